#pragma once
// Keeping the timeline's cursor and the ring view's step in sync, through one AllReduce span of the timeline.
//
// A ring AllReduce of S bytes on n ranks takes 2(n-1) equal steps (ring_plan.hpp), each moving S/n bytes over
// every ring link, so within a span [start, start + d):
//
//   step(t)     = floor((t - start) / d * 2(n-1))          clamped to 0 .. 2(n-1)-1
//   time(k)     = start + (k + 1/2) * d / 2(n-1)           the middle of step k
//   link rate   = (S / n) / (d / 2(n-1))                   bytes per second on each link during a step
//
// The simulator records the AllReduce as a whole (not each ring step) and may have picked another algorithm than
// the ring; the view then shows how a ring would split that same time.
#include <QtGlobal>
#include <optional>

#include "models/timeline_data.h"

int ringStepAt(const TimelineSpan& allReduce, qint64 timePs, int ranks);
qint64 ringStepTime(const TimelineSpan& allReduce, int step, int ranks);
std::optional<double> ringLinkRate(const TimelineSpan& allReduce, int ranks);
// The AllReduce the ring view follows for time t: on the first GPU lane, the communication span at t, else the
// next one.
std::optional<SpanRef> ringSpanNear(const TimelineData& data, qint64 timePs);
