#include "sync_trace.hpp"

#include <fmt/format.h>

#include <utility>

namespace syncsim::run {

namespace {

// A ring AllReduce's 2(n-1) steps are n-1 of reduce-scatter, then n-1 of all-gather; other plans just count.
std::string step_name(const CollectiveOutcome& outcome, std::int64_t ranks, std::size_t step) {
  const auto half = static_cast<std::size_t>(ranks - 1);
  if (outcome.algorithm == Algorithm::ring && outcome.step_starts.front().size() == 2 * half + 1) {
    return step < half ? fmt::format("reduce-scatter {}/{}", step + 1, half)
                       : fmt::format("all-gather {}/{}", step - half + 1, half);
  }
  return fmt::format("step {}", step + 1);
}

}  // namespace

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
  const auto n = static_cast<std::int64_t>(ranks.size());
  const CollectiveOutcome* outcome = steps_ && n > 1 ? steps_(bytes, n, start) : nullptr;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const trace::SpanId parent = builder_.add_span(
        comm_track_[static_cast<std::size_t>(ranks[i])], name, trace::category::communication, start, end - start,
        {{"iteration", iteration}, {"bucket", bucket}, {"bytes", bytes.value}, {"ranks", n}});
    if (outcome == nullptr || i >= outcome->step_starts.size()) continue;
    // The collective's rank i is the i-th joining rank (the simulation places it on the i-th GPU).
    const std::vector<SimTime>& steps = outcome->step_starts[i];
    for (std::size_t s = 0; s + 1 < steps.size(); ++s) {
      builder_.add_span(comm_track_[static_cast<std::size_t>(ranks[i])], step_name(*outcome, n, s),
                        trace::category::collective_step, start + steps[s], steps[s + 1] - steps[s],
                        {{"step", static_cast<std::int64_t>(s)}, {"algorithm", to_string(outcome->algorithm)}}, parent);
    }
  }
}

void SyncTraceRecorder::on_optimizer(std::int64_t rank, std::int64_t iteration, SimTime start, SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(compute_track_[static_cast<std::size_t>(rank)], "optimizer", trace::category::optimizer, start,
                    end - start, {{"iteration", iteration}});
}

void SyncTraceRecorder::on_idle(std::int64_t rank, std::int64_t iteration, SimTime start, SimTime end) {
  if (!traced(iteration)) return;
  builder_.add_span(compute_track_[static_cast<std::size_t>(rank)], "idle", trace::category::idle, start, end - start,
                    {{"iteration", iteration}});
}

void SyncTraceRecorder::on_fault(std::int64_t rank, FaultSpan span, std::size_t fault, SimTime start, SimTime end) {
  // Fault spans are always traced: they are few, and they are what a reader looks for.
  const char* name = span == FaultSpan::down ? "down" : span == FaultSpan::stalled ? "stalled" : "restart";
  const std::string_view category = span == FaultSpan::stalled ? trace::category::idle : trace::category::fault;
  builder_.add_span(compute_track_[static_cast<std::size_t>(rank)], name, category, start, end - start,
                    {{"fault", fault}});
}

trace::Trace SyncTraceRecorder::build() && {
  return std::move(builder_).build();
}

}  // namespace syncsim::run
