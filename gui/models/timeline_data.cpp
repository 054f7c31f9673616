#include "models/timeline_data.h"

#include <QCoreApplication>
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <unordered_map>

#include "syncsim/trace/trace.hpp"

namespace tr = syncsim::trace;

bool TimelineSpan::relatedTo(const TimelineSpan& other) const {
  if (kind != other.kind) return false;
  if (has(HasIteration) != other.has(HasIteration) || (has(HasIteration) && iteration != other.iteration)) {
    return false;
  }
  if (has(HasBucket) != other.has(HasBucket) || (has(HasBucket) && bucket != other.bucket)) return false;
  // Without an iteration there is nothing to tie spans together but their name.
  return has(HasIteration) || name == other.name;
}

std::pair<std::size_t, std::size_t> TimelineRow::visibleRange(qint64 t0, qint64 t1) const {
  const auto byStart = [](const TimelineSpan& s, qint64 t) { return s.startPs < t; };
  const auto first = std::lower_bound(spans.begin(), spans.end(), t0 - maxDurationPs, byStart);
  const auto last = std::lower_bound(first, spans.end(), t1, byStart);
  return {static_cast<std::size_t>(first - spans.begin()), static_cast<std::size_t>(last - spans.begin())};
}

std::size_t TimelineLane::spanCount() const {
  std::size_t n = 0;
  for (const TimelineRow& r : rows) n += r.spans.size();
  return n;
}

namespace {

// "worker 3 compute" and "worker 3 communication" are rows of the lane "worker 3" (sim/run/src/sync_trace.cpp); a
// model-parallel stage has a "model-parallel" row between them (sim/run/src/model_parallel_run.cpp).
std::pair<QString, QString> splitRowName(const QString& track) {
  for (const QString& suffix :
       {QStringLiteral(" compute"), QStringLiteral(" model-parallel"), QStringLiteral(" communication")}) {
    if (track.endsWith(suffix)) return {track.chopped(suffix.size()), suffix.mid(1)};
  }
  return {track, QString()};
}

LaneKind laneKindOf(tr::TrackKind kind) {
  switch (kind) {
    case tr::TrackKind::worker:
      return LaneKind::Gpu;
    case tr::TrackKind::link:
      return LaneKind::Link;
    case tr::TrackKind::collective:
      return LaneKind::Collective;
  }
  return LaneKind::Gpu;
}

}  // namespace

TimelineData TimelineData::fromTrace(const tr::Trace& trace) {
  TimelineData d;
  for (const auto& [key, value] : trace.metadata()) {
    if (key == "scenario") d.m_title = QString::fromStdString(value);
    if (key.starts_with("job ")) {
      TimelineJob job{QString::fromStdString(key.substr(4)), {}};
      for (const QString& gpu : QString::fromStdString(value).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        job.gpus.push_back(gpu.toLongLong());
      }
      d.m_jobs.push_back(std::move(job));
    }
  }

  // Lanes and rows, in the trace's track order (kind, sort index, name).
  std::vector<std::pair<int, int>> rowOfTrack(trace.tracks().size());
  for (std::size_t t = 0; t < trace.tracks().size(); ++t) {
    const tr::Track& track = trace.tracks()[t];
    const auto [laneName, rowName] = splitRowName(QString::fromUtf8(trace.str(track.name)));
    const LaneKind kind = laneKindOf(track.kind);
    if (d.m_lanes.empty() || d.m_lanes.back().name != laneName || d.m_lanes.back().kind != kind || rowName.isEmpty()) {
      d.m_lanes.push_back(TimelineLane{laneName, kind, {}, {}, {}});
    }
    d.m_lanes.back().rows.push_back(TimelineRow{rowName, {}, 0});
    rowOfTrack[t] = {static_cast<int>(d.m_lanes.size()) - 1, static_cast<int>(d.m_lanes.back().rows.size()) - 1};
  }

  // Trace names are interned already; keep the same ids so no string is copied per span.
  const std::size_t maxName = std::numeric_limits<quint32>::max();
  std::unordered_map<tr::NameId, quint32> nameIds;
  const auto nameOf = [&](tr::NameId id) {
    auto [it, inserted] = nameIds.try_emplace(id, static_cast<quint32>(d.m_names.size()));
    if (inserted && d.m_names.size() < maxName) d.m_names.push_back(QString::fromUtf8(trace.str(id)));
    return it->second;
  };
  std::unordered_map<tr::NameId, SpanKind> kindOfCategory;
  std::unordered_map<tr::NameId, int> argKey;  // 0 iteration, 1 bucket, 2 bytes, 3 peers/ranks, -1 other
  const auto argKind = [&](tr::NameId key) {
    auto [it, inserted] = argKey.try_emplace(key, -1);
    if (inserted) {
      const std::string_view k = trace.str(key);
      it->second = k == "iteration"                 ? 0
                   : k == "bucket"                  ? 1
                   : k == "bytes"                   ? 2
                   : (k == "peers" || k == "ranks") ? 3
                                                    : -1;
    }
    return it->second;
  };

  // Which algorithm ran each AllReduce: its nested steps say so (a child's "algorithm" string argument).
  std::unordered_map<tr::SpanId, CollectiveAlgorithm> algorithmOfSpan;
  std::unordered_map<tr::NameId, std::optional<CollectiveAlgorithm>> algorithmOfName;  // parsed once per name
  for (const tr::Span& s : trace.spans()) {
    if (s.parent == tr::kNoSpan) continue;
    for (const tr::Arg& a : trace.args(s)) {
      if (a.kind != tr::SpanArg::Kind::string || trace.str(a.key) != "algorithm") continue;
      auto [it, fresh] = algorithmOfName.try_emplace(a.str_id());
      if (fresh) it->second = parseCollectiveAlgorithm(QString::fromUtf8(trace.str(a.str_id())));
      if (it->second) algorithmOfSpan.emplace(s.parent, *it->second);
    }
  }

  std::map<int, int> stepsLaneOf;  // GPU lane -> the lane of its nested spans
  for (std::size_t i = 0; i < trace.spans().size(); ++i) {
    const tr::Span& s = trace.spans()[i];
    TimelineSpan out;
    out.startPs = s.start.ps();
    out.durationPs = s.duration.ps();
    out.name = nameOf(s.name);
    out.traceSpan = static_cast<quint32>(i);
    auto [kit, fresh] = kindOfCategory.try_emplace(s.category, SpanKind::Other);
    if (fresh) kit->second = spanKindFromCategory(trace.str(s.category));
    out.kind = kit->second;
    for (const tr::Arg& a : trace.args(s)) {
      if (a.kind != tr::SpanArg::Kind::integer) continue;
      switch (argKind(a.key)) {
        case 0:
          out.iteration = static_cast<qint32>(a.as_int());
          out.flags |= TimelineSpan::HasIteration;
          break;
        case 1:
          out.bucket = static_cast<qint32>(a.as_int());
          out.flags |= TimelineSpan::HasBucket;
          break;
        case 2:
          out.bytes = a.as_int();
          out.flags |= TimelineSpan::HasBytes;
          break;
        case 3:
          out.peers = static_cast<qint32>(a.as_int());
          out.flags |= TimelineSpan::HasPeers;
          break;
        default:
          break;
      }
    }
    if (const auto it = algorithmOfSpan.find(static_cast<tr::SpanId>(i)); it != algorithmOfSpan.end()) {
      out.algorithm = it->second;
      out.flags |= TimelineSpan::HasAlgorithm;
    }
    const auto [lane, row] = rowOfTrack[s.track];
    if (s.parent != tr::kNoSpan && d.m_lanes[static_cast<std::size_t>(lane)].kind == LaneKind::Gpu) {
      // A span nested in a GPU's span (a collective's steps inside its AllReduce) would hide under its parent:
      // it goes to a lane of its own under the GPU's, shown with the collective lanes.
      auto [it, created] = stepsLaneOf.try_emplace(lane, static_cast<int>(d.m_lanes.size()));
      if (created) {
        const QString name = QCoreApplication::translate("TimelineData", "%1 steps").arg(d.m_lanes[lane].name);
        d.m_lanes.push_back(TimelineLane{name, LaneKind::Collective, {TimelineRow{}}, {}, {}});
      }
      d.m_lanes[static_cast<std::size_t>(it->second)].rows.front().spans.push_back(out);
      continue;
    }
    d.m_lanes[lane].rows[row].spans.push_back(out);
  }

  for (const tr::Counter& c : trace.counters()) {
    TimelineLane& lane = d.m_lanes[rowOfTrack[c.track].first];
    if (lane.counter.empty()) lane.counterName = QString::fromUtf8(trace.str(c.name));
    // One counter per lane is drawn (link utilization); others stay in the trace.
    if (lane.counterName == QString::fromUtf8(trace.str(c.name))) lane.counter.push_back({c.time.ps(), c.value});
  }
  // Each steps lane right under its GPU's lane.
  if (!stepsLaneOf.empty()) {
    std::vector<TimelineLane> ordered;
    ordered.reserve(d.m_lanes.size());
    const std::size_t original = d.m_lanes.size() - stepsLaneOf.size();
    for (std::size_t i = 0; i < original; ++i) {
      ordered.push_back(std::move(d.m_lanes[i]));
      const auto it = stepsLaneOf.find(static_cast<int>(i));
      if (it != stepsLaneOf.end()) ordered.push_back(std::move(d.m_lanes[static_cast<std::size_t>(it->second)]));
    }
    d.m_lanes = std::move(ordered);
  }
  d.finish();
  return d;
}

TimelineData TimelineData::synthetic(int lanes, int spansPerLane) {
  TimelineData d;
  d.m_title = QStringLiteral("synthetic");
  d.m_names = {QStringLiteral("forward"), QStringLiteral("backward"), QStringLiteral("allreduce"),
               QStringLiteral("idle")};
  constexpr std::array<SpanKind, 4> kCycle{SpanKind::Forward, SpanKind::Backward, SpanKind::Communication,
                                           SpanKind::Idle};
  // Durations vary with lane and index (deterministically) so that lanes do not line up.
  quint32 state = 12345;
  const auto next = [&state] {
    state = state * 1664525U + 1013904223U;
    return state >> 8;
  };
  quint32 traceSpan = 0;
  for (int l = 0; l < lanes; ++l) {
    TimelineLane lane{QStringLiteral("worker %1").arg(l), LaneKind::Gpu, {TimelineRow{}}, {}, {}};
    TimelineRow& row = lane.rows.front();
    row.spans.reserve(static_cast<std::size_t>(spansPerLane));
    qint64 t = 0;
    for (int i = 0; i < spansPerLane; ++i) {
      TimelineSpan s;
      s.kind = kCycle[static_cast<std::size_t>(i % 4)];
      s.name = static_cast<quint32>(i % 4);
      s.startPs = t;
      s.durationPs = 1'000'000 + static_cast<qint64>(next() % 9'000'000U);  // 1..10 µs
      s.iteration = i / 4;
      s.bucket = 0;
      s.flags = TimelineSpan::HasIteration | (s.kind == SpanKind::Communication ? TimelineSpan::HasBucket : 0);
      s.traceSpan = traceSpan++;
      t += s.durationPs;
      row.spans.push_back(s);
    }
    d.m_lanes.push_back(std::move(lane));
  }
  d.finish();
  return d;
}

void TimelineData::finish() {
  m_spanCount = 0;
  m_beginPs = std::numeric_limits<qint64>::max();
  m_endPs = std::numeric_limits<qint64>::min();
  for (TimelineLane& lane : m_lanes) {
    for (TimelineRow& row : lane.rows) {
      std::stable_sort(row.spans.begin(), row.spans.end(),
                       [](const TimelineSpan& a, const TimelineSpan& b) { return a.startPs < b.startPs; });
      row.maxDurationPs = 0;
      for (const TimelineSpan& s : row.spans) {
        row.maxDurationPs = std::max(row.maxDurationPs, s.durationPs);
        m_beginPs = std::min(m_beginPs, s.startPs);
        m_endPs = std::max(m_endPs, s.endPs());
      }
      m_spanCount += row.spans.size();
    }
    for (const CounterPoint& p : lane.counter) {
      m_beginPs = std::min(m_beginPs, p.timePs);
      m_endPs = std::max(m_endPs, p.timePs);
    }
  }
  if (m_beginPs > m_endPs) m_beginPs = m_endPs = 0;
}

int TimelineData::laneCount(LaneKind kind) const {
  return static_cast<int>(
      std::count_if(m_lanes.begin(), m_lanes.end(), [kind](const TimelineLane& l) { return l.kind == kind; }));
}

std::optional<SpanRef> TimelineData::spanNear(int lane, qint64 t, SpanKind kind) const {
  if (lane < 0 || lane >= static_cast<int>(m_lanes.size())) return std::nullopt;
  std::optional<SpanRef> best;
  qint64 bestStart = 0;
  const auto& rows = m_lanes[static_cast<std::size_t>(lane)].rows;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const TimelineRow& row = rows[r];
    for (std::size_t i = row.visibleRange(t, t + 1).first; i < row.spans.size(); ++i) {
      const TimelineSpan& s = row.spans[i];
      if (s.kind != kind || s.endPs() <= t) continue;
      if (s.startPs <= t) return SpanRef{lane, static_cast<int>(r), i};
      if (!best || s.startPs < bestStart) {
        best = SpanRef{lane, static_cast<int>(r), i};
        bestStart = s.startPs;
      }
      break;  // later spans of this row start later still
    }
  }
  return best;
}
