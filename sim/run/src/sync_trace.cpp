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

void SyncTraceRecorder::on_bucket_sync(std::int64_t iteration, std::size_t bucket, const BucketSync& sync,
                                       const std::vector<SimTime>& step_starts, const std::vector<std::int64_t>& ranks,
                                       bool averaging) {
  const auto n = static_cast<std::int64_t>(ranks.size());
  for (std::size_t k = 0; k < sync.steps.size(); ++k) {
    const SyncStep& step = sync.steps[k];
    if (step.kind == SyncStep::Kind::collective) {
      collectives_.push_back({iteration, step.op, step.bytes, n, step_starts[k], step_starts[k + 1]});
    }
  }
  if (!traced(iteration)) return;
  const SimTime start = step_starts.front();
  const SimTime end = step_starts.back();
  const bool plain = sync.steps.size() == 1 && sync.steps.front().kind == SyncStep::Kind::collective &&
                     sync.steps.front().op == CollectiveOp::allreduce;
  const Bytes bytes = plain ? sync.steps.front().bytes : sync.wire_bytes();
  const std::string name = fmt::format("{} bucket {}",
                                       averaging ? "average"
                                       : plain   ? "allreduce"
                                                 : "compressed",
                                       bucket);
  const CollectiveOutcome* outcome = plain && steps_ && n > 1 ? steps_(bytes, n, start) : nullptr;
  // step_spans[i][s]: the span of rank i's step s, for the arrows from each send to the step it feeds.
  std::vector<std::vector<trace::SpanId>> step_spans(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const trace::TrackId track = comm_track_[static_cast<std::size_t>(ranks[i])];
    const trace::SpanId parent =
        builder_.add_span(track, name, trace::category::communication, start, end - start,
                          {{"iteration", iteration}, {"bucket", bucket}, {"bytes", bytes.value}, {"ranks", n}});
    if (!plain) {
      for (std::size_t k = 0; k < sync.steps.size(); ++k) {
        const SyncStep& step = sync.steps[k];
        const bool collective = step.kind == SyncStep::Kind::collective;
        builder_.add_span(track, std::string(step.label),
                          collective ? trace::category::collective_step : trace::category::compression, step_starts[k],
                          step_starts[k + 1] - step_starts[k],
                          {{"bytes", collective ? step.bytes.value : std::int64_t{0}}}, parent);
      }
    }
    if (outcome == nullptr || i >= outcome->step_starts.size()) continue;
    // The collective's rank i is the i-th joining rank (the simulation places it on the i-th GPU).
    const std::vector<SimTime>& steps = outcome->step_starts[i];
    for (std::size_t s = 0; s + 1 < steps.size(); ++s) {
      step_spans[i].push_back(builder_.add_span(
          track, step_name(*outcome, n, s), trace::category::collective_step, start + steps[s], steps[s + 1] - steps[s],
          {{"step", static_cast<std::int64_t>(s)}, {"algorithm", to_string(outcome->algorithm)}}, parent));
    }
  }
  if (outcome == nullptr) return;
  for (const StepSend& send : outcome->step_sends) {
    const auto& from = step_spans[send.src.value()];
    const auto& to = step_spans[send.dst.value()];
    if (send.step < from.size() && send.dst_step < to.size()) builder_.add_flow(from[send.step], to[send.dst_step]);
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
