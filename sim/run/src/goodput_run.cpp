#include "goodput_run.hpp"

#include <algorithm>

#include "checkpoint_cost.hpp"
#include "failure_table.hpp"
#include "goodput_model.hpp"
#include "job_timeline.hpp"

namespace syncsim::run {

namespace {

// Where checkpoints go when the scenario does not say: Meta's Tectonic file system sustained 2 TB/s for Llama 3's
// 16K-GPU training (Dubey et al. 2024, §3.3.1); a node writes through one 400 Gb/s storage port (the DGX H100's
// ConnectX-7 storage NICs, NVIDIA DGX H100 user guide); the device-to-host copy runs at the GPU's reference node's
// host PCIe (gpu_spec.hpp's node_pcie_bandwidth), else PCIe 4.0 x16's 32 GB/s per direction.
constexpr Bandwidth kDefaultStorage = Bandwidth::from_gb_per_s(2000);
constexpr Bandwidth kDefaultStoragePerNode = Bandwidth::from_gbps(400);
constexpr Bandwidth kDefaultHostCopy = Bandwidth::from_gb_per_s(32);

// The iteration that a long run repeats: the mean, or with written faults in the run the median (the mean then
// holds their downtime, which the failure process here counts instead).
double iteration_seconds(const TrainingReport& report) {
  return (report.faults.empty() ? report.iteration_mean : report.iteration_p50).seconds();
}

double straggler_seconds(const TrainingReport& report) {
  for (const CauseReport& c : report.causes) {
    if (c.cause == "stragglers") return c.per_iteration.seconds();
  }
  return 0;
}

Bytes model_state(const MemoryReport& m) {
  return Bytes{m.weights.value + m.optimizer_state.value};
}

// Returns whether the interval is the job's whole duration (nothing to save, or no failures).
bool fill_checkpoint(GoodputReport& g, const ResolvedScenario& context, const TrainingReport& report,
                     std::int64_t hosts) {
  const Scenario& s = context.scenario();
  const MemoryReport whole =
      memory_check(context.model(), context.gpu(), 1, context.precision(), s.model.optimizer.value);
  g.checkpoint_bytes = model_state(whole);
  g.checkpoint_bytes_per_rank = model_state(report.memory);
  g.async = s.checkpoint.async;
  const CheckpointStorage storage{.aggregate = s.checkpoint.storage_bandwidth.value_or(kDefaultStorage),
                                  .per_node = s.checkpoint.storage_bandwidth_per_node.value_or(kDefaultStoragePerNode),
                                  .host_copy = context.gpu().node_pcie_bandwidth.value_or(kDefaultHostCopy)};
  const CheckpointCost cost = checkpoint_cost(g.checkpoint_bytes, g.checkpoint_bytes_per_rank, hosts, storage, g.async);
  g.checkpoint_write_seconds = cost.write_seconds;
  g.checkpoint_stall_seconds = cost.stall_seconds;
  g.restore_seconds = cost.restore_seconds;
  g.checkpoint_interval_young_seconds = young_interval(cost.stall_seconds, g.mtbf_seconds);
  g.checkpoint_interval_optimal_seconds = daly_interval(cost.stall_seconds, g.mtbf_seconds);
  if (s.checkpoint.every_iterations) {
    g.checkpoint_interval_seconds = static_cast<double>(*s.checkpoint.every_iterations) * g.iteration_seconds;
  } else if (s.checkpoint.every) {
    g.checkpoint_interval_seconds = s.checkpoint.every->seconds();
  } else {
    g.checkpoint_interval_seconds = g.checkpoint_interval_optimal_seconds;
  }
  g.checkpoint_interval_seconds = startable_interval(g, g.checkpoint_interval_seconds);
  // A stall-free checkpoint (nothing to save) or no failures: one interval the length of the job.
  return !(g.checkpoint_interval_seconds > 0);
}

}  // namespace

double startable_interval(const GoodputReport& g, double interval) {
  return g.async ? std::max(interval, g.checkpoint_write_seconds) : interval;
}

GoodputSetup goodput_setup(const ResolvedScenario& context, const TrainingReport& report) {
  const Scenario& s = context.scenario();
  const ReliabilityConfig& r = *s.reliability;
  GoodputSetup setup;
  GoodputReport& g = setup.report;
  g.duration_seconds = r.duration_seconds;
  g.samples = r.samples;
  g.spares = r.spares;
  g.iteration_seconds = iteration_seconds(report);
  const ClusterComponents components = count_components(context.topology(), context.workers());
  setup.classes = failure_classes(r.default_table ? llama3_failure_rates() : r.rates, components);
  // The MTBF, for the optimal interval: duration / expected count, the same at any duration (assess_at prints it).
  const double expected = expected_interruptions(setup.classes, r.duration_seconds / 3600);
  g.mtbf_seconds = expected > 0 ? r.duration_seconds / expected : r.duration_seconds;
  setup.interval_is_duration = fill_checkpoint(g, context, report, components.hosts);

  setup.inputs = GoodputInputs{
      .duration_seconds = r.duration_seconds,
      .iteration_seconds = g.iteration_seconds,
      .straggler_seconds = straggler_seconds(report),
      .detection_seconds = s.detection_timeout.seconds(),
      .restart_seconds = s.checkpoint.restart_cost.seconds(),
      .restore_seconds = g.restore_seconds,
      .interval_seconds = g.checkpoint_interval_seconds,
      .stall_seconds = g.checkpoint_stall_seconds,
      .upload_seconds = g.async ? g.checkpoint_write_seconds : 0,
      .job_gpus = context.workers(),
      .gpus_per_node = std::max<std::int64_t>(1, context.workers() / std::max<std::int64_t>(1, components.hosts)),
      .spares = r.spares,
      .swap_seconds = r.swap_time.seconds(),
      .repair_seconds = r.repair_time.seconds(),
      .samples = r.samples,
      .seed = s.seed};
  for (const FailureClass& c : setup.classes) {
    setup.inputs.sources.push_back(
        {c.name, c.rate_per_hour * static_cast<double>(c.components), c.domain_nodes, c.domain_share});
  }
  return setup;
}

GoodputInputs inputs_at(const GoodputSetup& setup, double duration_seconds) {
  GoodputInputs in = setup.inputs;
  in.duration_seconds = duration_seconds;
  // With nothing to save or no failures: one interval the length of the job.
  in.interval_seconds = setup.interval_is_duration ? duration_seconds : setup.report.checkpoint_interval_seconds;
  return in;
}

std::optional<trace::Trace> job_timeline_of(const GoodputSetup& setup, const Scenario& scenario) {
  const double duration = scenario.reliability->duration_seconds;
  if (!SimTime::fits_seconds(duration)) return std::nullopt;
  const GoodputInputs in = inputs_at(setup, duration);
  return job_timeline_trace(lay_out_job(in, sample_goodput(in, 0)), in, scenario.name, scenario.seed);
}

GoodputAssessment assess_at(const GoodputSetup& setup, double duration_seconds) {
  GoodputAssessment out{.report = setup.report};
  GoodputReport& g = out.report;
  const double hours = duration_seconds / 3600;
  g.interruptions.expected = expected_interruptions(setup.classes, hours);
  g.mtbf_seconds = g.interruptions.expected > 0 ? duration_seconds / g.interruptions.expected : duration_seconds;
  g.duration_seconds = duration_seconds;
  // With nothing to save or no failures: one interval the length of the job.
  if (setup.interval_is_duration) g.checkpoint_interval_seconds = duration_seconds;
  for (const FailureClass& c : setup.classes) {
    g.classes.push_back({c.name, c.components, c.rate_per_hour,
                         c.rate_per_hour * static_cast<double>(c.components) * hours, c.domain_nodes});
  }
  const GoodputInputs in = inputs_at(setup, duration_seconds);
  const GoodputOutcome outcome = assess_goodput(in);
  g.ettr = outcome.ettr;
  g.ettr_p10 = outcome.ettr_p10;
  g.ettr_p90 = outcome.ettr_p90;
  g.goodput = outcome.goodput;
  g.interruptions.sampled_mean = outcome.interruptions_mean;
  g.interruptions.p10 = outcome.p10;
  g.interruptions.p50 = outcome.p50;
  g.interruptions.p90 = outcome.p90;
  g.badput = outcome.badput;
  out.kept_share = outcome.kept_share;
  out.spare_gpus = static_cast<double>(in.spares * in.gpus_per_node);
  return out;
}

}  // namespace syncsim::run
