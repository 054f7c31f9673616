#include "models/ring_sync.h"

#include <algorithm>
#include <cmath>

int collectiveStepAt(const TimelineSpan& s, qint64 timePs, int steps) {
  steps = std::max(steps, 1);
  if (s.durationPs <= 0) return 0;
  const double f = static_cast<double>(timePs - s.startPs) / static_cast<double>(s.durationPs);
  return std::clamp(static_cast<int>(std::floor(f * steps)), 0, steps - 1);
}

qint64 collectiveStepTime(const TimelineSpan& s, int step, int steps) {
  steps = std::max(steps, 1);
  const double f = (std::clamp(step, 0, steps - 1) + 0.5) / steps;
  return s.startPs + static_cast<qint64>(std::llround(f * static_cast<double>(s.durationPs)));
}

std::optional<double> collectiveTransferRate(const TimelineSpan& s, int steps, int chunks, int pieces) {
  if (!s.has(TimelineSpan::HasBytes) || s.durationPs <= 0 || pieces <= 0) return std::nullopt;
  const double stepSeconds = static_cast<double>(s.durationPs) * 1e-12 / std::max(steps, 1);
  return static_cast<double>(s.bytes) * chunks / pieces / stepSeconds;
}

namespace {
int firstGpuLane(const TimelineData& data) {
  for (std::size_t lane = 0; lane < data.lanes().size(); ++lane) {
    if (data.lanes()[lane].kind == LaneKind::Gpu) return static_cast<int>(lane);
  }
  return -1;
}
}  // namespace

std::optional<SpanRef> ringSpanNear(const TimelineData& data, qint64 timePs) {
  for (std::size_t lane = 0; lane < data.lanes().size(); ++lane) {
    if (data.lanes()[lane].kind != LaneKind::Gpu) continue;
    if (auto ref = data.spanNear(static_cast<int>(lane), timePs, SpanKind::Communication)) return ref;
  }
  return std::nullopt;
}

std::optional<SpanRef> bucketSpan(const TimelineData& data, int bucket) {
  const int lane = firstGpuLane(data);
  if (lane < 0) return std::nullopt;
  const auto& rows = data.lanes()[static_cast<std::size_t>(lane)].rows;
  // Spans are sorted by start, so the first match in time is the first iteration's.
  std::optional<SpanRef> best;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& spans = rows[r].spans;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const TimelineSpan& s = spans[i];
      if (s.kind != SpanKind::Communication || !s.has(TimelineSpan::HasBucket) || s.bucket != bucket) continue;
      if (!best || s.startPs < data.span(*best).startPs) best = SpanRef{lane, static_cast<int>(r), i};
      break;
    }
  }
  return best;
}
