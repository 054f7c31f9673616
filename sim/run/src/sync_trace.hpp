#pragma once
// The trace of `syncsim run` for sync and local_sgd over AllReduce: records run_synchronous's spans as it places
// them (SynchronousRunObserver), per worker a compute track (forward and backward per micro-batch, optimizer step,
// idle gaps, and a fault's "down", "stalled" and "restart" spans) and a communication track (one span per bucket
// AllReduce, from the moment every rank has joined to its end; "average bucket j" for local SGD's averaging), the
// collective's steps nested in each bucket span when the step source gives them (small collectives). Under
// gradient compression a bucket's span is "compressed bucket j", with its collectives and kernels nested in it
// by their labels (gradient_compression.hpp).
//
// An attempt that a fault cut short shows what was done before the fault; the survivors' wait for the detection
// is the "stalled" span (category idle).
//
// Cap: every iteration is traced when workers x iterations <= kTraceAllIterationsCap; otherwise only the last
// iteration (and every fault span), so that a large run's trace stays small (a few spans per worker).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/trace/trace.hpp"
#include "syncsim/training/synchronous_run.hpp"

namespace syncsim::run {

inline constexpr std::int64_t kTraceAllIterationsCap = 1024;

class SyncTraceRecorder final : public SynchronousRunObserver {
 public:
  SyncTraceRecorder(std::int64_t ranks, std::int64_t iterations, const std::string& scenario_name);

  void on_compute(std::int64_t rank, std::int64_t iteration, std::int64_t micro_batch, ComputePhase phase,
                  SimTime start, SimTime end, double factor) override;
  void on_bucket_sync(std::int64_t iteration, std::size_t bucket, const BucketSync& sync,
                      const std::vector<SimTime>& step_starts, const std::vector<std::int64_t>& ranks,
                      bool averaging) override;
  void on_optimizer(std::int64_t rank, std::int64_t iteration, SimTime start, SimTime end) override;
  void on_idle(std::int64_t rank, std::int64_t iteration, SimTime start, SimTime end) override;
  void on_fault(std::int64_t rank, FaultSpan span, std::size_t fault, SimTime start, SimTime end) override;

  // Every collective the run placed, traced or not (for the link loads of sync_link_load.hpp).
  struct Collective {
    std::int64_t iteration = 0;
    CollectiveOp op = CollectiveOp::allreduce;
    Bytes bytes;
    std::int64_t ranks = 0;
    SimTime start;
    SimTime end;
  };
  const std::vector<Collective>& collectives() const { return collectives_; }
  bool traced_iteration(std::int64_t iteration) const { return traced(iteration); }
  trace::TraceBuilder& builder() { return builder_; }
  // Where the collective steps of an AllReduce come from (CollectiveOutcome::step_starts, with its algorithm):
  // each bucket span then gets one nested span per step on every rank. Unset or empty step times: no steps.
  using StepSource = std::function<const CollectiveOutcome*(Bytes bytes, std::int64_t ranks, SimTime start)>;
  void set_step_source(StepSource source) { steps_ = std::move(source); }

  trace::Trace build() &&;

 private:
  bool traced(std::int64_t iteration) const { return iteration >= first_traced_; }

  trace::TraceBuilder builder_;
  std::int64_t first_traced_ = 0;
  std::vector<trace::TrackId> compute_track_;
  std::vector<trace::TrackId> comm_track_;
  std::vector<Collective> collectives_;
  StepSource steps_;
};

}  // namespace syncsim::run
