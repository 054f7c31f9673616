#pragma once
// TimelineData: a trace rearranged for drawing — one lane per GPU (its compute and communication tracks as two
// rows), one per link (its utilization counter, drawn as an area) and one per collective (its steps).
//
// The renderer asks each row for the spans that intersect a time window. Spans in a row are sorted by start and
// the row remembers its longest span, so that query is two binary searches:
//
//   first = first span with start >= t0 - maxDuration   (no earlier span can reach t0)
//   last  = first span with start >= t1
//
// which is what makes a frame of 1 M spans cheap when zoomed in. Zoomed out, the renderer coalesces spans that
// fall into one pixel (timeline_renderer.h).
//
// A span is 48 bytes (checked below): times in integer picoseconds as the simulator keeps them, the few arguments the
// tooltip and the "related spans" highlight need, and its index in the source trace.
#include <QString>
#include <QtGlobal>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "models/collective_schedule.h"
#include "models/span_kind.h"

namespace syncsim::trace {
class Trace;
}

struct TimelineSpan {
  enum Flag : quint8 { HasIteration = 1, HasBucket = 2, HasBytes = 4, HasPeers = 8, HasAlgorithm = 16 };

  qint64 startPs = 0;
  qint64 durationPs = 0;
  qint64 bytes = 0;
  quint32 name = 0;  // index into TimelineData::names()
  quint32 traceSpan = 0;
  qint32 iteration = 0;
  qint32 bucket = 0;
  qint32 peers = 0;
  SpanKind kind = SpanKind::Other;
  quint8 flags = 0;
  // A communication span's algorithm, from its collective steps' "algorithm" argument (sim/run/src/sync_trace.cpp):
  // what the simulator picked for this bucket (`algorithm: auto` picks per size).
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;

  qint64 endPs() const { return startPs + durationPs; }
  bool has(Flag f) const { return (flags & f) != 0; }
  // Related spans are what one click highlights on every lane: the same kind of work in the same iteration (and
  // for communication, the same bucket), e.g. bucket 2's AllReduce of iteration 5 on all GPUs.
  bool relatedTo(const TimelineSpan& other) const;
};

static_assert(sizeof(TimelineSpan) == 48, "a million spans must stay 48 MB");

struct TimelineRow {
  QString name;
  std::vector<TimelineSpan> spans;  // sorted by startPs
  qint64 maxDurationPs = 0;

  // Index range [first, last) of the spans that may intersect [t0, t1).
  std::pair<std::size_t, std::size_t> visibleRange(qint64 t0, qint64 t1) const;
};

struct CounterPoint {
  qint64 timePs = 0;
  double value = 0;
};

enum class LaneKind : quint8 { Gpu, Link, Collective };

struct TimelineLane {
  QString name;
  LaneKind kind = LaneKind::Gpu;
  std::vector<TimelineRow> rows;
  QString counterName;
  std::vector<CounterPoint> counter;  // sorted by time; a step function (a value holds until the next point)
  std::size_t spanCount() const;
};

// A job of a multi-job trace (metadata "job NAME" = its GPU lanes' indices, docs/jobs.md "The trace").
struct TimelineJob {
  QString name;
  std::vector<qint64> gpus;
};

// Identifies one span in a TimelineData.
struct SpanRef {
  int lane = 0;
  int row = 0;
  std::size_t index = 0;
  bool operator==(const SpanRef&) const = default;
};

class TimelineData {
 public:
  TimelineData() = default;
  static TimelineData fromTrace(const syncsim::trace::Trace& trace);
  // A synthetic timeline of `lanes` GPU lanes with `spansPerLane` spans each (forward, backward, communication and
  // idle in turn), for the paint benchmark and the tests.
  static TimelineData synthetic(int lanes, int spansPerLane);

  const std::vector<TimelineLane>& lanes() const { return m_lanes; }
  const QString& name(quint32 id) const { return m_names[id]; }
  const TimelineSpan& span(const SpanRef& ref) const { return m_lanes[ref.lane].rows[ref.row].spans[ref.index]; }
  qint64 beginPs() const { return m_beginPs; }
  qint64 endPs() const { return m_endPs; }
  std::size_t spanCount() const { return m_spanCount; }
  int laneCount(LaneKind kind) const;
  // On `lane`, the span of `kind` that contains t, else the first that starts after t, else none.
  std::optional<SpanRef> spanNear(int lane, qint64 t, SpanKind kind) const;
  // The trace's "scenario" metadata, or empty.
  const QString& title() const { return m_title; }
  // A multi-job trace's jobs, in its order; empty for a single job's.
  const std::vector<TimelineJob>& jobs() const { return m_jobs; }

 private:
  void finish();

  std::vector<TimelineLane> m_lanes;
  std::vector<QString> m_names;
  qint64 m_beginPs = 0;
  qint64 m_endPs = 0;
  std::size_t m_spanCount = 0;
  QString m_title;
  std::vector<TimelineJob> m_jobs;
};
