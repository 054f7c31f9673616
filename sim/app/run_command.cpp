// `syncsim run SCENARIO.yaml`: simulate a training scenario; write report.json and trace.json, print a summary.
// First version: strategy sync with communication allreduce, no faults or degraded links (InputError otherwise).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "run_trace.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"
#include "syncsim/training/bucket_plan.hpp"
#include "syncsim/training/synchronous_run.hpp"
#include "syncsim/training/training_report.hpp"
#include "syncsim/validation/calibration.hpp"

namespace syncsim::app {

namespace {

struct RunOptions {
  std::string scenario;
  std::string outdir;
  std::vector<std::string> overrides;
  bool json = false;
};

constexpr const char* kNotYet = "not simulated yet by syncsim run (it runs strategy sync with communication allreduce)";

template <typename T, typename F>
auto at_value(const Located<T>& value, F&& make) {
  try {
    return make();
  } catch (const InputError& e) {
    if (e.where()) throw;  // already placed (e.g. inside a calibration file)
    throw value.error(e.message());
  }
}

void check_supported(const Scenario& s) {
  if (s.training.strategy.value != StrategyKind::sync) {
    throw s.training.strategy.error(fmt::format("strategy '{}' is {}", to_string(s.training.strategy.value), kNotYet));
  }
  if (s.training.communication.value != Communication::allreduce) {
    throw s.training.communication.error(
        fmt::format("communication '{}' is {}", to_string(s.training.communication.value), kNotYet));
  }
  if (!s.faults.empty()) throw InputError(fmt::format("faults are {}", kNotYet), s.faults[0].where, s.faults[0].key);
  if (!s.degraded_links.empty()) {
    throw InputError(fmt::format("degraded links are {}", kNotYet), s.degraded_links[0].where, s.degraded_links[0].key);
  }
}

ModelSpec resolve_model(const ModelConfig& m) {
  return at_value(m.name, [&] {
    if (!m.layers.empty()) {
      std::vector<Layer> layers;
      for (const auto& layer : m.layers) layers.push_back(layer.value);
      return ModelSpec(m.name.value, std::move(layers));
    }
    ModelOptions options;
    if (m.sequence_length) options.sequence_length = m.sequence_length->value;
    if (m.image_size) options.image_size = m.image_size->value;
    return find_model(m.name.value, options);
  });
}

StragglerModel make_stragglers(const Scenario& s, std::int64_t workers) {
  StragglerSpec spec;
  spec.seed = s.seed;
  spec.sigma = s.stragglers.jitter.sigma;
  switch (s.stragglers.jitter.distribution) {
    case JitterDistribution::none:
      spec.jitter = JitterKind::none;
      break;
    case JitterDistribution::lognormal:
      spec.jitter = JitterKind::lognormal;
      break;
    case JitterDistribution::normal:
      spec.jitter = JitterKind::normal;
      break;
  }
  for (const SlowRank& slow : s.stragglers.slow) {
    if (slow.rank.value >= workers) {
      throw slow.rank.error(fmt::format("rank {} does not exist among {} workers", slow.rank.value, workers));
    }
    spec.slow_ranks[slow.rank.value] = slow.factor;
  }
  return StragglerModel(spec);
}

struct Simulation {
  TrainingReport report;
  trace::Trace trace;
};

Simulation simulate(const Scenario& s) {
  check_supported(s);
  const GpuSpec gpu = s.cluster.gpu.inline_spec
                          ? *s.cluster.gpu.inline_spec
                          : at_value(s.cluster.gpu.name, [&] { return find_gpu(s.cluster.gpu.name.value); });
  const ModelSpec model = resolve_model(s.model);
  const Topology topology = build_scenario_topology(s);
  const auto gpus = static_cast<std::int64_t>(topology.gpu_count());
  const std::int64_t workers = s.cluster.workers ? s.cluster.workers->value : gpus;
  if (workers < 1 || workers > gpus) {
    throw s.cluster.workers->error(
        fmt::format("expected 1 to {} workers (the topology's GPUs), got {}", gpus, workers));
  }
  const Precision precision = s.model.precision.value;
  ComputeOptions compute_options{.efficiency = s.model.efficiency.value_or(ComputeOptions{}.efficiency),
                                 .kernel_overhead = s.model.kernel_overhead,
                                 .backward_factor = s.model.backward_factor};
  const ComputeModel compute =
      at_value(s.model.precision, [&] { return ComputeModel(gpu, precision, compute_options); });
  const std::int64_t batch = s.model.batch_per_gpu.value;

  std::optional<CalibratedModel> calibrated;
  CollectiveSpec base;
  base.op = CollectiveOp::allreduce;
  base.ranks = static_cast<std::size_t>(workers);
  base.algorithm = s.training.algorithm.value;
  base.any_algorithm = s.training.any_algorithm;
  base.protocol = s.training.protocol;
  if (s.training.channels) base.channels = static_cast<std::uint32_t>(s.training.channels->value);
  base.latency = s.training.latency_model.value;
  if (base.latency == LatencySource::calibrated) {
    calibrated = to_model(at_value(*s.calibration, [&] { return read_calibration(s.calibration->value); }));
    base.calibration = &*calibrated;
  }
  Router router(topology);
  std::map<std::int64_t, CollectiveOutcome> outcomes;
  auto allreduce = [&](Bytes size) -> const CollectiveOutcome& {
    auto it = outcomes.find(size.value);
    if (it != outcomes.end()) return it->second;
    CollectiveSpec spec = base;
    spec.size = size;
    return outcomes
        .emplace(size.value, at_value(s.training.algorithm, [&] { return simulate_collective(router, spec); }))
        .first->second;
  };

  SynchronousRunSetup setup;
  setup.ddp.layers = layer_times(compute, model, batch);
  setup.ddp.buckets = make_buckets(model, s.training.bucket_size, precision);
  setup.ddp.overlap = s.training.overlap;
  setup.ddp.micro_batches = s.model.micro_batches;
  setup.ddp.optimizer_step = compute.optimizer_step(model.params(), s.model.optimizer.value);
  if (workers > 1) {
    setup.ddp.allreduce_time = [&](Bytes size) { return allreduce(size).time; };
  } else {
    setup.ddp.allreduce_time = [](Bytes) { return SimTime::zero(); };
  }
  setup.ranks = workers;
  setup.iterations = s.training.iterations;
  setup.stragglers = make_stragglers(s, workers);
  const SynchronousRunResult result = run_synchronous(setup);

  Simulation out;
  TrainingReport& r = out.report;
  r.scenario = s.name;
  r.strategy = std::string(to_string(s.training.strategy.value));
  r.communication = std::string(to_string(s.training.communication.value));
  r.algorithm = s.training.algorithm.value ? std::string(to_string(*s.training.algorithm.value))
                                           : (s.training.any_algorithm ? "best" : "auto");
  r.latency_model = std::string(to_string(base.latency));
  r.workers = workers;
  r.gpu = gpu.name;
  r.model = model.name();
  r.params = model.params();
  r.precision = std::string(to_string(precision));
  r.batch_per_gpu = batch;
  r.micro_batches = s.model.micro_batches;
  r.global_batch = workers * batch * s.model.micro_batches;
  r.iterations = s.training.iterations;
  r.overlap = s.training.overlap;
  r.total = result.total;
  r.iteration_mean = result.mean;
  r.iteration_p50 = result.p50;
  r.iteration_p99 = result.p99;
  SimTime forward_backward;
  for (std::size_t i = 0; i < setup.ddp.layers.forward.size(); ++i) {
    forward_backward += setup.ddp.layers.forward[i] + setup.ddp.layers.backward[i];
  }
  r.single_gpu_iteration = SimTime::from_ps(forward_backward.ps() * s.model.micro_batches) + setup.ddp.optimizer_step;
  r.samples_per_second = result.samples_per_second(r.global_batch);
  r.single_gpu_samples_per_second =
      static_cast<double>(batch * s.model.micro_batches) / r.single_gpu_iteration.seconds();
  r.scaling_efficiency = r.samples_per_second / (static_cast<double>(workers) * r.single_gpu_samples_per_second);
  for (const RankRunStats& rank : result.ranks) {
    r.per_worker.push_back({.compute = rank.compute,
                            .optimizer = rank.optimizer,
                            .exposed_communication = rank.idle - rank.straggler_wait,
                            .straggler_wait = rank.straggler_wait});
  }
  compute_shares(r);
  r.bucket_cap = s.training.bucket_size;
  for (const GradientBucket& bucket : setup.ddp.buckets.buckets) {
    BucketReport b;
    b.bytes = bucket.bytes;
    b.algorithm = "none";
    if (workers > 1) {
      const CollectiveOutcome& o = allreduce(bucket.bytes);
      b.allreduce_time = o.time;
      b.algorithm = std::string(to_string(o.algorithm));
      if (o.protocol) b.protocol = std::string(to_string(*o.protocol));
      b.channels = o.channels;
    }
    r.buckets.push_back(std::move(b));
  }
  r.memory = memory_check(model, gpu, batch, precision, s.model.optimizer.value);
  out.trace = build_run_trace(setup, s.name);
  return out;
}

std::string bytes_text(Bytes b) {
  return fmt::format("{:.2f} GiB", static_cast<double>(b.value) / (1LL << 30));
}

void print_summary(const TrainingReport& r, const std::filesystem::path& outdir) {
  auto& o = std::cout;
  fmt::print(o, "# syncsim run {}: {} x {}, {} ({}), global batch {}, {} {} ({}), {} iterations\n", r.scenario,
             r.workers, r.gpu, r.model, r.precision, r.global_batch, r.strategy, r.communication, r.algorithm,
             r.iterations);
  fmt::print(o, "iteration time   mean {:.3f} ms  p50 {:.3f} ms  p99 {:.3f} ms\n", r.iteration_mean.us() / 1e3,
             r.iteration_p50.us() / 1e3, r.iteration_p99.us() / 1e3);
  fmt::print(o, "throughput       {:.1f} samples/s (one GPU: {:.1f} samples/s)\n", r.samples_per_second,
             r.single_gpu_samples_per_second);
  fmt::print(o, "scaling          {:.1f}% of {} x one GPU\n", 100 * r.scaling_efficiency, r.workers);
  fmt::print(o, "time shares      compute {:.1f}%  optimizer {:.1f}%  exposed communication {:.1f}%  idle {:.1f}%\n",
             100 * r.compute_share, 100 * r.optimizer_share, 100 * r.exposed_communication_share, 100 * r.idle_share);
  fmt::print(o, "buckets          {} (cap {} bytes)\n", r.buckets.size(), r.bucket_cap.value);
  fmt::print(o, "memory           {}: {} of {}{}\n", r.memory.fits ? "fits" : "DOES NOT FIT",
             bytes_text(r.memory.total), bytes_text(r.memory.capacity),
             r.memory.fits ? "" : fmt::format(" (short by {})", bytes_text(r.memory.shortfall)));
  fmt::print(o, "wrote            {} and {}\n", (outdir / "report.json").string(), (outdir / "trace.json").string());
}

int run_scenario(const RunOptions& options) {
  const Scenario scenario = load_scenario(options.scenario, options.overrides);
  // Everything is simulated and checked before anything is written.
  const Simulation sim = simulate(scenario);
  const std::string report = to_json(sim.report).dump(2) + "\n";
  const std::filesystem::path outdir = options.outdir.empty() ? std::filesystem::path("syncsim-out") / scenario.name
                                                              : std::filesystem::path(options.outdir);
  std::error_code ec;
  std::filesystem::create_directories(outdir, ec);
  if (ec) throw InputError(fmt::format("cannot create '{}': {}", outdir.string(), ec.message()), SourceLocation{"-o"});
  write_file_atomically(outdir / "trace.json", [&](std::ostream& out) { trace::write_chrome_trace(sim.trace, out); });
  write_file_atomically(outdir / "report.json", [&](std::ostream& out) { out << report; });
  if (options.json) {
    std::cout << report;
  } else {
    print_summary(sim.report, outdir);
  }
  return 0;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand(
      "run", "Simulate a training scenario (YAML); write report.json and trace.json, print a summary");
  command->add_option("scenario", options->scenario, "Scenario file (YAML)")->required();
  command->add_option("-o,--outdir", options->outdir, "Output folder (default: ./syncsim-out/<scenario name>)");
  command->add_option("--set", options->overrides, "Override a scenario value: key.path=value (repeatable)");
  command->add_flag("--json", options->json, "Print report.json to stdout instead of the summary");
  return [options]() { return run_scenario(*options); };
}

}  // namespace syncsim::app
