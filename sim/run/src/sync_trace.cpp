#include "sync_trace.hpp"

#include <fmt/format.h>

#include <utility>

namespace syncsim::run {

SyncTraceRecorder::SyncTraceRecorder(std::int64_t ranks, std::int64_t iterations, const std::string& scenario_name)
    : first_traced_(ranks * iterations <= kTraceAllIterationsCap ? 0 : iterations - 1) {
  builder_.set_metadata("scenario", scenario_name);
  builder_.set_metadata("iterations_traced", first_traced_ == 0 ? "all" : "last");
  for (std::int64_t r = 0; r < ranks; ++r) {
    const auto index = static_cast<std::int32_t>(2 * r);
    compute_track_.push_back(builder_.add_track(fmt::format("worker {} compute", r), trace::TrackKind::worker, index));
    comm_track_.push_back(
        builder_.add_track(fmt::format("worker {} communication", r), trace::TrackKind::worker, index + 1));
  }
}

void SyncTraceRecorder::on_compute(std::int64_t rank, std::int64_t iteration, std::int64_t micro_batch,
                                   ComputePhase phase, SimTime start, SimTime end, double factor) {
  if (!traced(iteration)) return;
  const bool forward = phase == ComputePhase::forward;
  builder_.add_span(compute_track_[static_cast<std::size_t>(rank)], forward ? "forward" : "backward",
                    forward ? trace::category::forward : trace::category::backward, start, end - start,
                    {{"iteration", iteration}, {"micro_batch", micro_batch}, {"factor", factor}});
}

void SyncTraceRecorder::on_allreduce(std::int64_t iteration, std::size_t bucket, Bytes bytes, SimTime start,
                                     SimTime end, const std::vector<std::int64_t>& ranks, bool averaging) {
  collectives_.push_back({iteration, bytes, static_cast<std::int64_t>(ranks.size()), start, end});
  if (!traced(iteration)) return;
  const std::string name = fmt::format("{} bucket {}", averaging ? "average" : "allreduce", bucket);
  for (const std::int64_t r : ranks) {
    builder_.add_span(comm_track_[static_cast<std::size_t>(r)], name, trace::category::communication, start,
                      end - start,
                      {{"iteration", iteration},
                       {"bucket", bucket},
                       {"bytes", bytes.value},
                       {"ranks", static_cast<std::int64_t>(ranks.size())}});
  }
}

void SyncTraceRecorder::on_optimizer(std::int64_t rank, std::int64_t iteration, SimTime start, SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(compute_track_[static_cast<std::size_t>(rank)], "optimizer", "optimizer", start, end - start,
                    {{"iteration", iteration}});
}

void SyncTraceRecorder::on_idle(std::int64_t rank, std::int64_t iteration, SimTime start, SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(compute_track_[static_cast<std::size_t>(rank)], "idle", trace::category::idle, start, end - start,
                    {{"iteration", iteration}});
}

void SyncTraceRecorder::on_fault(std::int64_t rank, FaultSpan span, std::size_t fault, SimTime start, SimTime end) {
  // Fault spans are always traced: they are few, and they are what a reader looks for.
  const char* name = span == FaultSpan::down ? "down" : span == FaultSpan::stalled ? "stalled" : "restart";
  const std::string_view category = span == FaultSpan::stalled ? trace::category::idle : std::string_view{"fault"};
  builder_.add_span(compute_track_[static_cast<std::size_t>(rank)], name, category, start, end - start,
                    {{"fault", fault}});
}

trace::Trace SyncTraceRecorder::build() && {
  return std::move(builder_).build();
}

}  // namespace syncsim::run
