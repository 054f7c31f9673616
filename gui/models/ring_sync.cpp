#include "models/ring_sync.h"

#include <algorithm>
#include <cmath>

namespace {
int stepsOf(int ranks) {
  return 2 * (std::max(ranks, 2) - 1);
}
}  // namespace

int ringStepAt(const TimelineSpan& s, qint64 timePs, int ranks) {
  const int steps = stepsOf(ranks);
  if (s.durationPs <= 0) return 0;
  const double f = static_cast<double>(timePs - s.startPs) / static_cast<double>(s.durationPs);
  return std::clamp(static_cast<int>(std::floor(f * steps)), 0, steps - 1);
}

qint64 ringStepTime(const TimelineSpan& s, int step, int ranks) {
  const int steps = stepsOf(ranks);
  const double f = (std::clamp(step, 0, steps - 1) + 0.5) / steps;
  return s.startPs + static_cast<qint64>(std::llround(f * static_cast<double>(s.durationPs)));
}

std::optional<double> ringLinkRate(const TimelineSpan& s, int ranks) {
  if (!s.has(TimelineSpan::HasBytes) || s.durationPs <= 0) return std::nullopt;
  const int n = std::max(ranks, 2);
  const double stepSeconds = static_cast<double>(s.durationPs) * 1e-12 / stepsOf(n);
  return static_cast<double>(s.bytes) / n / stepSeconds;
}

std::optional<SpanRef> ringSpanNear(const TimelineData& data, qint64 timePs) {
  for (std::size_t lane = 0; lane < data.lanes().size(); ++lane) {
    if (data.lanes()[lane].kind != LaneKind::Gpu) continue;
    if (auto ref = data.spanNear(static_cast<int>(lane), timePs, SpanKind::Communication)) return ref;
  }
  return std::nullopt;
}
