#pragma once
// Keeping the timeline's cursor and the ring view's step in sync, through one AllReduce span of the timeline.
//
// The view splits the span's duration d evenly over the K steps of the algorithm's schedule (collective_schedule.h;
// a ring has K = 2(n-1)), so within a span [start, start + d):
//
//   step(t)     = floor((t - start) / d * K)                clamped to 0 .. K-1
//   time(k)     = start + (k + 1/2) * d / K                 the middle of step k
//   rate        = (S * chunks / pieces) / (d / K)           bytes per second of a transfer moving `chunks` of the
//                                                           buffer's `pieces` pieces (ring: S/n per step)
//
// The simulator records each AllReduce's real step times too (nested collective steps, pipelined and over
// channels); the animation's unit steps are the schedule's, so it uses the even split.
#include <QtGlobal>
#include <optional>

#include "models/timeline_data.h"

int collectiveStepAt(const TimelineSpan& allReduce, qint64 timePs, int steps);
qint64 collectiveStepTime(const TimelineSpan& allReduce, int step, int steps);
// Bytes per second of one transfer; none without the span's byte count or duration.
std::optional<double> collectiveTransferRate(const TimelineSpan& allReduce, int steps, int chunks, int pieces);
// The AllReduce the ring view follows for time t: on the first GPU lane, the communication span at t, else the
// next one.
std::optional<SpanRef> ringSpanNear(const TimelineData& data, qint64 timePs);
// On the first GPU lane, the AllReduce of `bucket` in the first iteration that has one; none if no such span.
std::optional<SpanRef> bucketSpan(const TimelineData& data, int bucket);
