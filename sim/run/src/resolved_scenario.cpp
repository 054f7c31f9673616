#include "resolved_scenario.hpp"

#include "syncsim/core/run_cost.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "kernel_model_report.hpp"
#include "syncsim/collectives/calibration.hpp"
#include "syncsim/compute/chip_spread.hpp"
#include "syncsim/compute/memory_check.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/compute/recommendation_model.hpp"
#include "syncsim/compute/step_time_fit.hpp"
#include "syncsim/run/chakra_workload.hpp"
#include "syncsim/run/gpu_node.hpp"
#include "syncsim/run/memory_budget.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/topology/link_changes.hpp"

namespace syncsim::run {

namespace {

// Errors point at the key that caused them: an unknown name at model.name, a sequence length or image size the
// model cannot take at that key (each option is applied on its own first, so the right one is blamed). A
// transformer's shape was checked at its keys when read.
ModelSpec resolve_model(const ModelConfig& m) {
  if (!m.layers.empty()) {
    return at_value(m.name, [&] {
      std::vector<Layer> layers;
      for (const auto& layer : m.layers) layers.push_back(layer.value);
      return ModelSpec(m.name.value, std::move(layers));
    });
  }
  if (m.transformer) return at_value(*m.transformer, [&] { return llama(m.name.value, m.transformer->value); });
  if (m.recommendation.shape) {
    return at_value(*m.recommendation.shape,
                    [&] { return recommendation_model(m.name.value, m.recommendation.shape->value); });
  }
  ModelSpec model = at_value(m.name, [&] { return find_model(m.name.value, ModelOptions{}); });
  ModelOptions options;
  if (m.sequence_length) {
    options.sequence_length = m.sequence_length->value;
    model = at_value(*m.sequence_length, [&] { return find_model(m.name.value, options); });
  }
  if (m.image_size) {
    options.image_size = m.image_size->value;
    model = at_value(*m.image_size, [&] { return find_model(m.name.value, options); });
  }
  if (m.attention) {
    options.attention = m.attention->value;
    model = at_value(*m.attention, [&] { return find_model(m.name.value, options); });
  }
  return model;
}

}  // namespace

ModelSpec scenario_model(const Scenario& scenario) {
  return resolve_model(scenario.model);
}

ResolvedScenario::ResolvedScenario(const Scenario& scenario, Workspace& workspace, const RunProgress* progress)
    : scenario_(&scenario),
      workspace_(&workspace),
      progress_(progress),
      gpu_(scenario_gpu(scenario)),
      model_(resolve_model(scenario.model)) {
  const Scenario& s = scenario;
  check_memory_budget(s.cluster.topology);  // before building anything a million-GPU spec would allocate
  topology_ = node_topology(s, gpu_);       // the GPU's own node rates where the spec leaves them out
  router_ = workspace.router(topology_, topology_digest_.emplace(digest(*topology_)), kScenarioRouteSearchBudget);
  const auto gpus = static_cast<std::int64_t>(topology_->gpu_count());
  workers_ = s.cluster.workers ? s.cluster.workers->value : gpus;
  if (workers_ < 1 || workers_ > gpus) {
    throw s.cluster.workers->error(
        fmt::format("expected 1 to {} workers (the topology's GPUs), got {}", gpus, workers_));
  }
  // A GPU profile's rates are what the GPU reached (gpu_profile.hpp), not datasheet ceilings: efficiency 1 unless told,
  // or unless model.kernels runs kernels by shape, anchored on the profile's measurements (scenario_gpu).
  std::optional<double> efficiency;
  if (s.model.efficiency) efficiency = *s.model.efficiency;
  if (!efficiency && s.cluster.gpu.profile && !profile_runs_kernels(s)) efficiency = 1.0;
  ComputeOptions options{.efficiency = efficiency,
                         .kernel_overhead = s.model.kernel_overhead,
                         .backward_factor = s.model.backward_factor,
                         .kernels = s.model.kernels ? std::optional(s.model.kernels->value) : std::nullopt,
                         .compiled_loss = s.model.compile_loss.value,
                         .cross_entropy_loss_fusion = s.model.cross_entropy_loss_fusion.value,
                         // Not the layout's: the planner's probe keeps this model while it tries other layouts.
                         .fp32_gradient_buffer = s.parallelism.grad_reduce_in_fp32.value,
                         .power_limit_watts = s.cluster.gpu.power_limit
                                                  ? std::optional<double>(s.cluster.gpu.power_limit->value)
                                                  : std::nullopt};
  if (s.model.step_time) {
    // The one measurement sets the one factor (step_time_fit.hpp); errors point at the measurement.
    step_time_fit_ = at_value(*s.model.step_time, [&] {
      return fit_step_time(gpu_, s.model.precision.value, options, model_, batch(), s.model.micro_batches,
                           s.model.optimizer.value, s.model.step_time->value);
    });
    options.efficiency = step_time_fit_->efficiency;
  }
  if (s.cluster.gpu.power_limit) {
    at_value(*s.cluster.gpu.power_limit, [&] { power_clock_factor(gpu_, s.cluster.gpu.power_limit->value); });
  }
  compute_ = at_value(s.model.precision, [&] {
    check_scaled_layers(model_, s.model.precision.value);
    return std::make_unique<ComputeModel>(gpu_, s.model.precision.value, options);
  });
  if (s.model.profile) {
    profile_ =
        at_value(*s.model.profile, [&] { return match_layers(model_, read_profile_trace(s.model.profile->value)); });
  }
  if (s.model.chakra) chakra_ = imported_chakra_workload(s);
  check_sequence_parallel();
  check_grad_reduce();
  if (!chakra_) {
    const auto slowest = [&] { return slowest_chip_factor(s.cluster.speed_spread_or_default(), paced_gpus()); };
    pace_ = s.cluster.speed_spread ? at_value(*s.cluster.speed_spread, slowest) : slowest();
  }
  if (s.training.latency_model.value == LatencySource::calibrated) {
    calibration_ = at_value(*s.calibration, [&] { return read_calibration(s.calibration->value); });
    calibrated_ = to_model(*calibration_);
  }
}

LayerTimes ResolvedScenario::with_recompute(LayerTimes times) const {
  const ParallelismConfig& p = scenario_->parallelism;
  if (p.activation_checkpointing.value == ActivationCheckpointing::none) return times;
  // Each block's backward first runs again the forward of the layers it did not keep (all of them under full).
  at_value(p.activation_checkpointing, [&] { check_checkpointing(model_, p.activation_checkpointing.value); });
  const std::vector<bool> again = recomputed_layers(model_, p.activation_checkpointing.value);
  for (std::size_t l = 0; l < again.size(); ++l) {
    if (again[l]) times.backward[l] += times.forward[l];
  }
  return times;
}

RankSplit ResolvedScenario::rank_split() const {
  const ParallelismConfig& p = scenario_->parallelism;
  return {.tensor = p.tensor.value,
          .context = p.context.value,
          .expert = p.expert.value,
          .sequence_parallel = p.sequence_parallel.value};
}

LayerTimes ResolvedScenario::even_share(LayerTimes times, RankSplit rank) const {
  const std::vector<Layer>& layers = model_.layers();
  for (std::size_t l = 0; l < times.forward.size(); ++l) {
    const RankSplit split = l < layers.size() ? layer_split(layers[l], rank) : rank;
    times.forward[l] = rank_share(times.forward[l], split);
    times.backward[l] = rank_share(times.backward[l], split);
  }
  return times;
}

LayerTimes ResolvedScenario::layer_times_at(std::int64_t samples, RankSplit split) const {
  // A trace or a profile timed whole layers on one GPU: a model-parallel rank runs its even share of each.
  if (chakra_) return even_share(chakra_->times, split);
  if (profile_) {
    ProfiledTimes t = profiled_times(*profile_, *compute_, model_, scenario_->model.profile_batch->value, samples);
    return with_recompute(even_share(LayerTimes{std::move(t.forward), std::move(t.backward)}, split));
  }
  LayerTimes times = syncsim::layer_times(*compute_, model_, samples, split);
  times = with_split_gemms(with_dtensor_copies(std::move(times), samples, split), samples, split);
  return with_recompute(with_userbuffers_sums(std::move(times), samples, split));
}

InputError ResolvedScenario::compute_overflow(const SimTimeOverflow& e, std::string_view what) const {
  const ModelConfig& m = scenario_->model;
  if (chakra_)
    return m.chakra->error(fmt::format("{} ({}, from the execution trace {})", e.message(), what, m.chakra->value));
  // Compute times grow with the batch; when one sample already passes the clock, the times' source is the cause.
  const bool one_sample_fits = [&] {
    try {
      SimTime total;
      const LayerTimes times = layer_times_at(1, RankSplit{});
      for (std::size_t i = 0; i < times.forward.size(); ++i) total += times.forward[i] + times.backward[i];
      return true;
    } catch (const SimTimeOverflow&) {
      return false;
    }
  }();
  const std::optional<Located<std::string>>& gpu_profile = scenario_->cluster.gpu.profile;
  if (!one_sample_fits && profile_) {
    return m.profile->error(fmt::format("{} ({} even at 1 sample per GPU, from the profiler trace {})", e.message(),
                                        what, m.profile->value));
  }
  if (!one_sample_fits && gpu_profile) {
    return gpu_profile->error(fmt::format("{} ({} even at 1 sample per GPU, at the rates of the GPU profile {})",
                                          e.message(), what, gpu_profile->value));
  }
  return m.batch_per_gpu.error(fmt::format("{} ({} at {} samples per GPU)", e.message(), what, batch()));
}

LayerTimes ResolvedScenario::layer_times() const {
  return layer_times(rank_split());
}

LayerTimes ResolvedScenario::layer_times(RankSplit split) const {
  return layer_times(split, pace_);
}

SimTime ResolvedScenario::optimizer_step() const {
  return optimizer_step(pace_);
}

SimTime ResolvedScenario::optimizer_step(double pace) const {
  if (chakra_) return chakra_->optimizer;
  try {
    const SimTime step = compute_->optimizer_step(model_.params(), scenario_->model.optimizer.value);
    return pace != 1 ? step.scaled(pace) : step;
  } catch (const SimTimeOverflow& e) {
    // The step reads and writes every parameter at the GPU's memory bandwidth: a profile's rate, when one gives it.
    const std::optional<Located<std::string>>& gpu_profile = scenario_->cluster.gpu.profile;
    if (gpu_profile) {
      throw gpu_profile->error(
          fmt::format("{} (the optimizer step, at the rates of the GPU profile {})", e.message(), gpu_profile->value));
    }
    throw scenario_->model.optimizer.error(fmt::format("{} (the optimizer step)", e.message()));
  }
}

BucketPlan ResolvedScenario::bucket_plan() const {
  if (chakra_) return chakra_->buckets;
  return make_buckets(model_, scenario_->training.bucket_size, precision());
}

std::vector<Bytes> ResolvedScenario::gather_bytes(const BucketPlan& units, std::int64_t parts) const {
  if (chakra_) return chakra_->gather_bytes;
  if (!scenario_->parallelism.fp8_all_gather.value) return {};
  return fp8_gather_bytes(model_, units, precision(), parts);
}

StragglerModel ResolvedScenario::stragglers() const {
  const Scenario& s = *scenario_;
  StragglerSpec spec;
  spec.seed = s.seed;
  spec.jitter = s.stragglers.jitter.distribution;
  spec.sigma = s.stragglers.jitter.sigma;
  for (const SlowRank& slow : s.stragglers.slow) {
    if (slow.rank.value >= workers_) {
      throw slow.rank.error(fmt::format("rank {} does not exist among {} workers", slow.rank.value, workers_));
    }
    spec.slow_ranks[slow.rank.value] = slow.factor;
  }
  return StragglerModel(spec);
}

CollectiveSpec ResolvedScenario::collective_spec(CollectiveOp op, std::size_t ranks) const {
  const TrainingConfig& t = scenario_->training;
  CollectiveSpec spec;
  spec.op = op;
  spec.ranks = ranks;
  spec.algorithm = t.algorithm.value;
  spec.any_algorithm = t.any_algorithm;
  spec.protocol = t.protocol;
  if (t.channels) spec.channels = static_cast<std::uint32_t>(t.channels->value);
  spec.latency = t.latency_model.value;
  if (calibrated_) spec.calibration = &*calibrated_;
  spec.record_steps = ranks <= kTraceStepsMaxRanks;
  if (gpu_.compute_capability) spec.busbw_cap = nccl_busbw_cap(*gpu_.compute_capability);
  spec.compute_capability = gpu_.compute_capability;
  spec.symmetry = workspace_->symmetry();
  return spec;
}

const CollectiveOutcome& ResolvedScenario::collective(CollectiveOp op, Bytes size, std::optional<std::size_t> ranks) {
  const std::size_t n = ranks.value_or(static_cast<std::size_t>(workers_));
  const auto key = std::make_tuple(op, size.value, n);
  if (const auto it = collective_cache_.find(key); it != collective_cache_.end()) return it->second;
  CollectiveSpec spec = collective_spec(op, n);
  spec.size = size;
  return collective_cache_.emplace(key, shared_or_simulated(spec)).first->second;
}

CollectiveOutcome ResolvedScenario::shared_or_simulated(const CollectiveSpec& spec) {
  // Across the runs of one workspace (a sweep, a GUI document), the same collective on the same network is
  // simulated once.
  return at_band_edge(
      cached_or(workspace_key(spec),
                [&] { return at_value(scenario_->training.algorithm, [&] { return timed_collective(spec); }); }),
      spec);
}

void ResolvedScenario::change_network(const std::map<LinkId, double>& factors) {
  if (factors.empty()) return;
  topology_ = std::make_shared<const Topology>(with_link_factors(*topology_, factors));
  router_ = std::make_shared<Router>(*topology_, kScenarioRouteSearchBudget);
  topology_digest_.reset();
  collective_cache_.clear();
  group_cache_.clear();
}

CollectiveOutcome ResolvedScenario::changed_network_collective(const Topology& changed, const CollectiveSpec& spec,
                                                               const std::function<CollectiveOutcome()>& simulate) {
  return at_band_edge(cached_or(CollectiveCache::key(digest(changed), spec), simulate), spec);
}

CollectiveOutcome ResolvedScenario::cached_or(const std::optional<CollectiveKey>& key,
                                              const std::function<CollectiveOutcome()>& simulate) {
  CollectiveCache& shared = workspace_->collectives();
  if (key) {
    if (const auto hit = shared.find(*key)) return *hit;
  }
  CollectiveOutcome outcome = simulate();
  if (key) shared.store(*key, outcome);
  return outcome;
}

std::optional<CollectiveKey> ResolvedScenario::workspace_key(const CollectiveSpec& spec) {
  if (!topology_digest_) topology_digest_ = digest(*topology_);
  return CollectiveCache::key(*topology_digest_, spec);
}

CollectiveOutcome ResolvedScenario::timed_collective(const CollectiveSpec& spec) {
  try {
    return simulate_collective(*router_, spec);
  } catch (const SimTimeOverflow& e) {
    // A collective's time depends on the network (bandwidths, latencies) and the latency model alone.
    const TopologySpec& topology = scenario_->cluster.topology;
    throw InputError(spec.groups.empty()
                         ? fmt::format("{} ({} of {} over {} ranks)", e.message(), to_string(spec.op),
                                       format_bytes(spec.size), spec.ranks)
                         : fmt::format("{} ({} of {} in {} groups of {} ranks)", e.message(), to_string(spec.op),
                                       format_bytes(spec.size), spec.groups.size(), spec.groups.front().size()),
                     topology.location, "cluster.topology");
  }
}

void ResolvedScenario::report_progress(std::int64_t done, std::int64_t total) const {
  if (progress_ == nullptr) return;
  if (progress_->on_iteration) progress_->on_iteration(done, total);
  if (progress_->stop != nullptr && progress_->stop->load(std::memory_order_relaxed)) throw RunCancelled();
}

SimTime ResolvedScenario::single_gpu_iteration() const {
  const Scenario& s = *scenario_;
  const LayerTimes layers = layer_times(RankSplit{}, 1);  // the whole model on one median GPU
  SimTime forward_backward;
  try {
    for (std::size_t i = 0; i < layers.forward.size(); ++i) forward_backward += layers.forward[i] + layers.backward[i];
  } catch (const SimTimeOverflow& e) {
    throw compute_overflow(e, "a forward and backward pass");
  }
  try {
    return forward_backward * s.model.micro_batches + optimizer_step(1);
  } catch (const SimTimeOverflow& e) {
    throw InputError(fmt::format("{} ({} micro-batches of {} each)", e.message(), s.model.micro_batches,
                                 format_duration(forward_backward)),
                     SourceLocation{s.source, 0, 0}, "model.micro_batches");
  }
}

void ResolvedScenario::check_run_length() const {
  const Scenario& s = *scenario_;
  const SimTime iteration = single_gpu_iteration();
  const std::int64_t iterations = s.training.iterations + s.training.warmup_iterations;
  if (iteration <= SimTime::zero() || iterations <= SimTime::max().ps() / iteration.ps()) return;
  throw InputError(
      fmt::format("{} iterations of at least {} each (the compute alone) pass the simulated clock's {:.0f} "
                  "days (int64 picoseconds)",
                  iterations, format_duration(iteration), std::floor(SimTime::kLimitDays)),
      SourceLocation{s.source, 0, 0}, "training.iterations");
}

TrainingReport ResolvedScenario::base_report() const {
  const Scenario& s = *scenario_;
  TrainingReport r;
  r.scenario = s.name;
  r.strategy = std::string(to_string(s.training.strategy.value));
  r.communication = std::string(to_string(s.training.communication.value));
  r.algorithm = s.training.algorithm.value ? std::string(to_string(*s.training.algorithm.value))
                                           : (s.training.any_algorithm ? "best" : "auto");
  r.latency_model = std::string(to_string(s.training.latency_model.value));
  r.workers = workers_;
  r.gpu = gpu_.name;
  r.model = model_.name();
  r.params = model_.params();
  r.precision = std::string(to_string(precision()));
  r.batch_per_gpu = batch();
  r.micro_batches = s.model.micro_batches;
  r.global_batch = workers_ * batch() * s.model.micro_batches;
  r.iterations = s.training.iterations;
  r.overlap = s.training.overlap;
  r.single_gpu_iteration = single_gpu_iteration();
  if (step_time_fit_) {
    r.compute_fit =
        TrainingReport::ComputeFit{s.model.step_time->value, step_time_fit_->efficiency, step_time_fit_->fixed};
  }
  if (profile_) r.compute_profile = profile_report();
  r.kernel_model = kernel_model_report(*compute_);
  if (pace_ > 1) {
    r.slowest_chip = TrainingReport::SlowestChip{
        .speed_spread = s.cluster.speed_spread_or_default(), .gpus = paced_gpus(), .factor = pace_};
  }
  if (gpu_.measured && gpu_.gemm_core && gpu_.streaming_fraction) {
    const GpuMeasurements& m = *gpu_.measured;
    r.kernel_anchors = TrainingReport::KernelAnchors{.gemm_core = *gpu_.gemm_core * gpu_.sustained_matmul.value_or(1),
                                                     .fitted_shapes = m.fitted_shapes,
                                                     .fit_rms_error = m.fit_rms_error,
                                                     .fixed = SimTime::from_seconds(m.fixed_seconds),
                                                     .scaled_gemm_ratio = m.fitted_scaled_ratio,
                                                     .streaming_fraction = *gpu_.streaming_fraction,
                                                     .sustained = gpu_.sustained_matmul.value_or(1),
                                                     .sustained_measured = m.sustained.has_value()};
  }
  r.single_gpu_samples_per_second =
      static_cast<double>(batch() * s.model.micro_batches) / r.single_gpu_iteration.seconds();
  r.bucket_cap = s.training.bucket_size;
  r.memory = memory();
  return r;
}

TrainingReport::ComputeProfile ResolvedScenario::profile_report() const {
  const LayerProfile& p = *profile_;
  const LayerTimes measured = layer_times(rank_split(), 1);  // the trace's own times, on its one GPU
  TrainingReport::ComputeProfile r{.file = std::filesystem::path(p.source).filename().string(),
                                   .profile_batch = scenario_->model.profile_batch->value,
                                   .kernel_times = p.kernel_times,
                                   .layers = p.forward.size(),
                                   .module_calls = p.module_calls,
                                   .by_name = p.count(ProfileMatch::name),
                                   .by_call = p.count(ProfileMatch::call),
                                   .by_order = p.count(ProfileMatch::order),
                                   .between_modules = p.count(ProfileMatch::between),
                                   .forward = SimTime::zero(),  // summed below, at the scenario's batch
                                   .backward = SimTime::zero(),
                                   .roofline_forward = compute_->forward(model_, batch()),
                                   .roofline_backward = compute_->backward(model_, batch()),
                                   .unattributed_forward = p.unattributed_forward,
                                   .unattributed_backward = p.unattributed_backward};
  for (std::size_t i = 0; i < measured.forward.size(); ++i) {
    r.forward += measured.forward[i];
    r.backward += measured.backward[i];
  }
  return r;
}

namespace {

// Forward FLOPs per sample that checkpointing runs again (recomputed_layers).
double recomputed_flops(const ResolvedScenario& context) {
  const ModelSpec& model = context.model();
  const ActivationCheckpointing checkpointing = context.scenario().parallelism.activation_checkpointing.value;
  if (checkpointing == ActivationCheckpointing::none || !model.transformer()) return 0;
  const std::vector<bool> again = recomputed_layers(model, checkpointing);
  double flops = 0;
  for (std::size_t i = 0; i < again.size(); ++i) {
    if (again[i]) flops += static_cast<double>(model.layers()[i].forward_flops);
  }
  return flops;
}

void fill_utilization(const ResolvedScenario& context, TrainingReport& r) {
  constexpr double kTera = 1e12;
  TrainingReport::Utilization& u = r.utilization;
  const double peak = context.gpu().require_peak(companion_precision(context.precision()));
  const double per_gpu = r.samples_per_second / static_cast<double>(r.workers);
  const double model_flops = 3 * static_cast<double>(context.model().forward_flops());
  u.peak_tflops = peak / kTera;
  u.model_tflops_per_gpu = model_flops * per_gpu / kTera;
  u.model_flops_utilization = model_flops * per_gpu / peak;
  u.hardware_flops_utilization = (model_flops + recomputed_flops(context)) * per_gpu / peak;
  if (const auto& t = context.model().transformer()) {
    u.tokens_per_second_per_gpu = per_gpu * static_cast<double>(t->sequence);
  }
}

}  // namespace

void fill_throughput(const ResolvedScenario& context, TrainingReport& r, std::int64_t iterations, SimTime total,
                     SimTime mean, SimTime p50, SimTime p99) {
  r.total = total;
  r.iteration_mean = mean;
  r.iteration_p50 = p50;
  r.iteration_p99 = p99;
  r.samples_per_second = total > SimTime::zero()
                             ? static_cast<double>(r.global_batch) * static_cast<double>(iterations) / total.seconds()
                             : 0.0;
  r.scaling_efficiency = r.samples_per_second / (static_cast<double>(r.workers) * r.single_gpu_samples_per_second);
  fill_utilization(context, r);
}

}  // namespace syncsim::run
