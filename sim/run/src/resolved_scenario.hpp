#pragma once
// ResolvedScenario: what every training engine needs from a scenario, resolved and checked once — the GPU, the model,
// the topology and its router, the compute model, the worker count, and the AllReduce of a given size as
// `syncsim collective` would simulate it (cached by size for the run, and in the workspace across runs).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/collectives/calibration.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/compute/layer_profile_match.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/compute/step_time_fit.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time_overflow.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"
#include "syncsim/training/ddp_iteration.hpp"
#include "syncsim/training/straggler_model.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

// Runs `make`; an InputError without a line gets `value`'s position (file:line:column and key path). One placed
// on a line of another file (inside a calibration file, say) stays; one naming a file but no line (a file that
// cannot be opened) is reported at the scenario key that named the file, with the file in the message. A
// SimTimeOverflow passes through: the input that led to it is seldom `value` (run_scenario places it).
template <typename T, typename F>
auto at_value(const Located<T>& value, F&& make) {
  try {
    return make();
  } catch (const SimTimeOverflow&) {
    throw;
  } catch (const InputError& e) {
    if (e.where() && e.where()->line > 0) throw;
    throw value.error(e.where() && !e.where()->source.empty() ? e.where()->source + ": " + e.message() : e.message());
  }
}

// at_value at the pipeline split's first written key (parallelism_config.hpp), or at parallelism.pipeline without one:
// where the stage cuts' errors belong.
template <typename F>
auto at_pipeline_split(const ParallelismConfig& p, F&& make) {
  if (p.first_stage_blocks) return at_value(*p.first_stage_blocks, make);
  if (p.last_stage_blocks) return at_value(*p.last_stage_blocks, make);
  if (p.account_for_embedding.value) return at_value(p.account_for_embedding, make);
  if (p.account_for_loss.value) return at_value(p.account_for_loss, make);
  return at_value(p.pipeline, make);
}

// Which edge of its calibration's error band (calibration.hpp, ErrorBand) every calibrated collective takes: the
// prediction itself, or the band's low or high edge at the collective's size. The iteration at each edge is the run's
// calibration band (TrainingReport::calibration_band).
enum class BandEdge { none, low, high };

// One of a block's four GEMM runs (QKV, projection, FC1, FC2) under tp_comm_overlap (split_gemms.cpp): the products
// its forward and its backward input gradient run as beside their collectives, and each of its GEMM layers' added
// time, one rank's, per micro-batch.
struct SplitGemmCost {
  std::int64_t forward_pieces = 1;
  std::int64_t backward_pieces = 1;
  std::vector<std::size_t> layers;
  std::vector<SimTime> forward;
  std::vector<SimTime> backward;
};

// Collectives over at most this many ranks keep their per-rank step times, which traces show as nested spans.
inline constexpr std::size_t kTraceStepsMaxRanks = 64;

class ResolvedScenario {
 public:
  // Collectives come from `workspace` when an earlier run simulated them, and are kept there for later ones.
  ResolvedScenario(const Scenario& scenario, Workspace& workspace, const RunProgress* progress = nullptr);
  ResolvedScenario(const ResolvedScenario&) = delete;
  ResolvedScenario& operator=(const ResolvedScenario&) = delete;

  const Scenario& scenario() const { return *scenario_; }
  const GpuSpec& gpu() const { return gpu_; }
  const ModelSpec& model() const { return model_; }
  const Topology& topology() const { return *topology_; }
  Router& router() { return *router_; }
  const ComputeModel& compute() const { return *compute_; }
  std::int64_t workers() const { return workers_; }
  std::int64_t batch() const { return scenario_->model.batch_per_gpu.value; }
  Precision precision() const { return scenario_->model.precision.value; }

  // Per-layer times at the per-GPU batch (the profile's when model.profile is given), every block's backward
  // including its forward again under full activation checkpointing; and the optimizer step over all parameters.
  // With model.chakra, the execution trace's layers and optimizer step as they are.
  // One rank's forward and backward per layer: its share of each under the layout's tensor, context and expert
  // parallelism.
  // Both at the pace of the job's slowest chip (pace()); single_gpu_iteration's one GPU at the median chip's.
  LayerTimes layer_times() const;
  LayerTimes layer_times(RankSplit split) const;  // `split`'s share (RankSplit{}: the whole model on one GPU)
  RankSplit rank_split() const;
  // Per layer: whether its backward runs its forward again (activation checkpointing); all false without
  // checkpointing or with model.chakra, whose trace's times are taken as they are.
  std::vector<bool> recomputed() const;
  // The share of `times`' forward and backward (layer_times) that is forward run again: the time shares' recompute.
  double recompute_fraction(const LayerTimes& times) const;
  SimTime optimizer_step() const;
  // The job's compute time over its median chip's: the pace of the slowest of the GPUs that wait for each other
  // (all but async's, whose workers each go at their own, and hybrid's groups) at cluster.speed_spread
  // (chip_spread.hpp); 1 for one GPU, and with model.chakra, whose trace's times are the job's as recorded.
  double pace() const { return pace_; }
  // DDP's buckets of the model's gradients at training.bucket_size (bucket_plan.hpp), or the execution trace's.
  BucketPlan bucket_plan() const;
  // `times` with the copies PyTorch's tensor parallelism adds beside its collectives (dtensor_copies.cpp).
  LayerTimes with_dtensor_copies(LayerTimes times, std::int64_t samples, RankSplit split) const;
  // `times` with the sums after Transformer Engine's ring-exchange reduce-scatters (userbuffers_sums.cpp).
  LayerTimes with_userbuffers_sums(LayerTimes times, std::int64_t samples, RankSplit split) const;
  // Block `block`'s four GEMM runs as tp_comm_overlap splits their products beside chunked collectives
  // (split_gemms.cpp): per run, the pieces each way and each GEMM layer's added time; empty where nothing splits.
  std::vector<SplitGemmCost> split_gemm_costs(std::size_t block, std::int64_t samples, RankSplit split) const;
  // `times` with those added to the GEMM layers.
  LayerTimes with_split_gemms(LayerTimes times, std::int64_t samples, RankSplit split) const;
  // Per unit of `units` (bucket_plan(), or a layout rank's 1/parts of it), what its weight all-gather moves when that
  // is not the unit's bytes: the execution trace's ALL_GATHER sizes, or the FP8 all-gather's
  // (parallelism.fp8_all_gather); empty otherwise.
  std::vector<Bytes> gather_bytes(const BucketPlan& units, std::int64_t parts = 1) const;
  // Seeded per-rank, per-iteration compute multipliers; slow ranks checked against the worker count.
  StragglerModel stragglers() const;

  // The collective template of training.algorithm / channels / latency model, for `ranks` ranks.
  CollectiveSpec collective_spec(CollectiveOp op, std::size_t ranks) const;
  // The same for `op` of `size` in every one of `groups` at once (group_collective's).
  CollectiveSpec group_spec(CollectiveOp op, Bytes size, const std::vector<std::vector<std::size_t>>& groups) const;
  // `op` of `size` over the first `ranks` workers (default: all), simulated once per (op, size, ranks).
  const CollectiveOutcome& collective(CollectiveOp op, Bytes size, std::optional<std::size_t> ranks = std::nullopt);
  const CollectiveOutcome& allreduce(Bytes size, std::optional<std::size_t> ranks = std::nullopt) {
    return collective(CollectiveOp::allreduce, size, ranks);
  }
  // `op` of `size` in every one of `groups` at once, sharing the network (CollectiveSpec::groups), simulated once
  // per (op, size, groups): a parallel layout's tensor, data-parallel or pipeline groups.
  const CollectiveOutcome& group_collective(CollectiveOp op, Bytes size,
                                            const std::vector<std::vector<std::size_t>>& groups);
  // The same by `algorithm`, whatever the scenario's: a collective whose algorithm the framework's size decides (an
  // FP8 amax all-reduce of a few hundred bytes, NCCL's tree), not simulated per candidate algorithm.
  CollectiveOutcome group_collective(CollectiveOp op, Bytes size, const std::vector<std::vector<std::size_t>>& groups,
                                     Algorithm algorithm);

  // `spec` on a changed copy of the network (a degraded state, network_timeline.hpp): from the workspace's cache
  // under that copy's own digest, or simulated by `simulate` and kept there. The key holds the network's state, so
  // a degraded network is never served the intact one's result, and a state another run of the workspace already
  // met (the same degradation in every point of a sweep) is simulated once.
  CollectiveOutcome changed_network_collective(const Topology& changed, const CollectiveSpec& spec,
                                               const std::function<CollectiveOutcome()>& simulate);

  // From here on every collective runs on the network with each link in `factors` at that fraction of its bandwidth
  // (with_link_factors, factors in (0, 1]): degraded links for the whole run, in the engines that simulate each
  // collective once (the layouts'). The collectives simulated so far are forgotten; the workspace keeps each
  // network's apart (its digest is in their key).
  void change_network(const std::map<LinkId, double>& factors);

  // Every calibrated collective from here on at `edge` of its error band (before the engine runs: the collectives
  // asked so far keep the edge they were asked at). Without a calibration nothing changes.
  void set_band_edge(BandEdge edge) { band_edge_ = edge; }

  // For engines to call after each iteration or update: `done` of `total`. Throws RunCancelled when asked to stop.
  void report_progress(std::int64_t done, std::int64_t total) const;
  bool reports_progress() const { return progress_ != nullptr; }

  // One GPU's iteration: forward and backward of every micro-batch, and the optimizer step. A time beyond the
  // clock is an InputError at the batch (or the micro-batch count).
  SimTime single_gpu_iteration() const;
  // InputError at training.iterations when the iterations' compute alone passes the clock: found before a
  // simulation that would run until it overflows.
  void check_run_length() const;

  // The report's fields that do not depend on the engine: names, sizes, single-GPU throughput, memory.
  TrainingReport base_report() const;
  // One GPU's memory under the scenario's parallelism (the fullest pipeline stage).
  MemoryReport memory() const;
  // Whether the layout is Megatron's (tensor, pipeline, context or expert parallelism without full sharding, ZeRO-1
  // as its distributed optimizer, ZeRO-2 as Megatron-FSDP's optim_grads) rather than PyTorch's (data parallelism
  // alone, or FSDP beside a layout, as torchtitan runs it): whose memory layout and whose tensor-parallel backward.
  bool megatron_layout() const;
  // Transformer Engine's userbuffers configuration where its overlaps run (tp_comm_overlap in Megatron's layout with
  // tensor and sequence parallelism): the scenario's, or NeMo's H100 one under `true`; nullptr elsewhere.
  const UserbuffersConfig* userbuffers() const;

 private:
  // InputError at parallelism.sequence_parallel when it is false beside a layout that is not Megatron's.
  void check_sequence_parallel() const;
  // parallelism.grad_reduce_in_fp32 written on a layout that is not Megatron's is an error at the key.
  void check_grad_reduce() const;
  // layer_times at `samples` per GPU, at the median chip's pace; SimTimeOverflow is left to the caller.
  LayerTimes layer_times_at(std::int64_t samples, RankSplit split) const;
  // layer_times and optimizer_step with every time x `pace`.
  LayerTimes layer_times(RankSplit split, double pace) const;
  SimTime optimizer_step(double pace) const;
  // How many GPUs wait for each other's compute (pace()).
  std::int64_t paced_gpus() const;
  // A compute time past the clock placed at what holds its cause: model.chakra (the trace's times), model.profile
  // or cluster.gpu.profile when one sample per GPU already passes the clock, else model.batch_per_gpu. `what` says
  // which time ("a layer's compute time").
  InputError compute_overflow(const SimTimeOverflow& e, std::string_view what) const;
  // `times` with each block's forward added to its backward under full activation checkpointing.
  LayerTimes with_recompute(LayerTimes times) const;
  LayerTimes even_share(LayerTimes times, RankSplit split) const;
  // What the report says of the profile's layer times (only with profile_).
  TrainingReport::ComputeProfile profile_report() const;
  // `spec` from the workspace's cache, or simulated (timed_collective) and kept there.
  CollectiveOutcome shared_or_simulated(const CollectiveSpec& spec);
  // The workspace's outcome under `key`, or `simulate`'s, kept there (nothing is kept without a key).
  CollectiveOutcome cached_or(const std::optional<CollectiveKey>& key,
                              const std::function<CollectiveOutcome()>& simulate);
  // `outcome` of `spec` at the band edge asked (set_band_edge): its time scaled by 1 + the edge of the calibration's
  // band at the spec's size; as it is without a calibration or an edge.
  CollectiveOutcome at_band_edge(CollectiveOutcome outcome, const CollectiveSpec& spec) const;
  // simulate_collective, with a clock overflow placed at cluster.topology.
  CollectiveOutcome timed_collective(const CollectiveSpec& spec);

  // The workspace's key for `spec` (nullopt: not cached there); the topology's digest is taken on first use.
  std::optional<CollectiveKey> workspace_key(const CollectiveSpec& spec);

  const Scenario* scenario_;
  Workspace* workspace_;
  const RunProgress* progress_;
  GpuSpec gpu_;
  ModelSpec model_;
  std::shared_ptr<const Topology> topology_;  // the loader's, when it built one (scenario_topology)
  std::shared_ptr<Router> router_;            // kept in the workspace for the thread's next run on this topology
  std::unique_ptr<ComputeModel> compute_;
  std::optional<StepTimeFit> step_time_fit_;   // with a measured step time: the efficiency it implies
  std::optional<LayerProfile> profile_;        // with a profiler trace: every layer's measured times
  std::optional<chakra::DdpWorkload> chakra_;  // with model.chakra: the iteration's compute and buckets
  std::int64_t workers_ = 1;
  double pace_ = 1;                         // pace()
  std::optional<Calibration> calibration_;  // the file read, for its error band
  std::optional<CalibratedModel> calibrated_;
  BandEdge band_edge_ = BandEdge::none;
  std::optional<TopologyDigest> topology_digest_;
  std::map<std::tuple<CollectiveOp, std::int64_t, std::size_t>, CollectiveOutcome> collective_cache_;
  std::map<std::tuple<CollectiveOp, std::int64_t, std::vector<std::vector<std::size_t>>>, CollectiveOutcome>
      group_cache_;
};

// Fills the report's iteration statistics and throughput from per-iteration times (total is their sum) and a
// global batch per iteration; scaling efficiency against base_report's single-GPU throughput; the FLOP utilisation
// of the context's model and GPU (TrainingReport::Utilization).
void fill_throughput(const ResolvedScenario& context, TrainingReport& report, std::int64_t iterations, SimTime total,
                     SimTime mean, SimTime p50, SimTime p99);

}  // namespace syncsim::run
