#include "sync_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace syncsim::run {

namespace {

SimTime scaled(SimTime t, double factor) {
  if (factor == 1.0) return t;
  return SimTime::from_ps(std::llround(static_cast<double>(t.ps()) * factor));
}

SimTime sum(const std::vector<SimTime>& times, double factor) {
  SimTime total;
  for (const SimTime t : times) total += scaled(t, factor);
  return total;
}

}  // namespace

trace::Trace build_sync_trace(const SynchronousRunSetup& setup, const std::string& scenario_name) {
  const DdpSetup& ddp = setup.ddp;
  const auto ranks = static_cast<std::size_t>(setup.ranks);
  const std::vector<GradientBucket>& buckets = ddp.buckets.buckets;
  std::vector<SimTime> duration(buckets.size());
  for (std::size_t b = 0; b < buckets.size(); ++b) duration[b] = ddp.allreduce_time(buckets[b].bytes);
  const std::int64_t first_traced = setup.ranks * setup.iterations <= kTraceAllIterationsCap ? 0 : setup.iterations - 1;

  trace::TraceBuilder builder;
  builder.set_metadata("scenario", scenario_name);
  builder.set_metadata("iterations_traced", first_traced == 0 ? "all" : "last");
  std::vector<trace::TrackId> compute_track(ranks);
  std::vector<trace::TrackId> comm_track(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto index = static_cast<std::int32_t>(2 * r);
    compute_track[r] = builder.add_track(fmt::format("worker {} compute", r), trace::TrackKind::worker, index);
    comm_track[r] = builder.add_track(fmt::format("worker {} communication", r), trace::TrackKind::worker, index + 1);
  }

  const std::size_t layers = ddp.layers.forward.size();
  std::vector<SimTime> start(ranks);
  std::vector<double> factor(ranks);
  std::vector<SimTime> backward_end(ranks);
  std::vector<std::vector<SimTime>> backward_end_of(ranks, std::vector<SimTime>(layers));
  SimTime stream_free;
  for (std::int64_t it = 0; it < setup.iterations; ++it) {
    const bool traced = it >= first_traced;
    SimTime last_backward_end;
    for (std::size_t r = 0; r < ranks; ++r) {
      factor[r] = setup.stragglers.factor(static_cast<std::int64_t>(r), it);
      const SimTime forward = sum(ddp.layers.forward, factor[r]);
      const SimTime backward = sum(ddp.layers.backward, factor[r]);
      SimTime now = start[r];
      for (std::int64_t mb = 0; mb < ddp.micro_batches; ++mb) {
        if (traced) {
          builder.add_span(compute_track[r], "forward", trace::category::forward, now, forward,
                           {{"iteration", it}, {"micro_batch", mb}, {"factor", factor[r]}});
          builder.add_span(compute_track[r], "backward", trace::category::backward, now + forward, backward,
                           {{"iteration", it}, {"micro_batch", mb}, {"factor", factor[r]}});
        }
        now += forward;
        for (std::size_t i = layers; i-- > 0;) {
          now += scaled(ddp.layers.backward[i], factor[r]);
          backward_end_of[r][i] = now;
        }
      }
      backward_end[r] = now;
      last_backward_end = std::max(last_backward_end, now);
    }
    if (!ddp.overlap) stream_free = std::max(stream_free, last_backward_end);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      SimTime ready;
      for (std::size_t r = 0; r < ranks; ++r) ready = std::max(ready, backward_end_of[r][buckets[b].ready_after_layer]);
      const SimTime begin = std::max(ready, stream_free);
      stream_free = begin + duration[b];
      if (!traced) continue;
      for (std::size_t r = 0; r < ranks; ++r) {
        builder.add_span(comm_track[r], fmt::format("allreduce bucket {}", b), trace::category::communication, begin,
                         duration[b], {{"iteration", it}, {"bucket", b}, {"bytes", buckets[b].bytes.value}});
      }
    }
    for (std::size_t r = 0; r < ranks; ++r) {
      const SimTime optimizer_start = std::max(backward_end[r], stream_free);
      if (traced) {
        if (optimizer_start > backward_end[r]) {
          builder.add_span(compute_track[r], "idle", trace::category::idle, backward_end[r],
                           optimizer_start - backward_end[r], {{"iteration", it}});
        }
        builder.add_span(compute_track[r], "optimizer", "optimizer", optimizer_start, ddp.optimizer_step,
                         {{"iteration", it}});
      }
      start[r] = optimizer_start + ddp.optimizer_step;
    }
  }
  return std::move(builder).build();
}

}  // namespace syncsim::run
