// `syncsim run SCENARIO.yaml`: simulate a training scenario; write report.json and trace.json, print a summary.
// The simulation itself is syncsim::run::run_scenario (run_scenario.hpp); this file is the command line around it.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>

#include "calibration_check.hpp"
#include "chakra_space.hpp"
#include "chart_files.hpp"
#include "commands.hpp"
#include "help_format.hpp"
#include "jobs_text.hpp"
#include "memory_text.hpp"
#include "recommendation_text.hpp"
#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/core/output_set.hpp"
#include "syncsim/planner/convergence_chart.hpp"
#include "syncsim/run/chakra_workload.hpp"
#include "syncsim/run/job_timeline.hpp"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"
#include "syncsim/training/training_report.hpp"

namespace syncsim::app {

namespace {

struct RunOptions {
  std::string scenario;
  std::string outdir;
  std::vector<std::string> overrides;
  bool json = false;
  bool no_symmetry = false;
  bool chakra = false;
  bool strict_calibration = false;
};

// `run --chakra`: one execution trace per rank, OUTDIR/chakra.<rank>.et (ASTRA-sim's workload prefix OUTDIR/chakra).
constexpr const char* kChakraPrefix = "chakra";

std::vector<std::string> chakra_files(const run::ChakraExport& workload) {
  std::vector<std::string> names;
  for (std::int64_t rank = 0; rank < workload.ranks(); ++rank) {
    names.push_back(chakra::execution_trace_file_name(kChakraPrefix, rank));
  }
  return names;
}

void print_convergence(const ConvergenceReport& c) {
  auto& o = std::cout;
  fmt::print(
      o, "convergence      {} proxy ({} parameters): {} updates, {} samples; held-out loss {:.4f}, accuracy {:.1f}%\n",
      c.problem, c.parameters, c.updates, c.samples, c.final_loss, 100 * c.final_accuracy);
  if (c.diverged_at) {
    fmt::print(o, "                 DIVERGED at update {} ({:.3f} s)\n", *c.diverged_at_update,
               c.diverged_at->seconds());
  }
  if (c.target_loss) {
    if (c.time_to_target) {
      fmt::print(o, "time to target   loss {} reached at {:.3f} s (update {})\n", *c.target_loss,
                 c.time_to_target->seconds(), *c.updates_to_target);
    } else {
      fmt::print(o, "time to target   loss {} not reached (best {:.4f})\n", *c.target_loss, c.best_loss);
    }
  }
}

// Transformer Engine's userbuffers overlaps of the first block, per micro-batch: what they expose and take from
// the GEMMs, then each one that shows or that its SMs hold back.
void print_tensor_overlap(const std::vector<TensorOverlapReport>& layers) {
  if (layers.empty()) return;
  auto& o = std::cout;
  SimTime exposed;
  SimTime sm_cost;
  SimTime split_cost;
  for (const TensorOverlapReport& t : layers) {
    exposed += t.exposed;
    sm_cost += t.sm_cost;
    split_cost += t.split_cost;
  }
  fmt::print(o,
             "tensor overlap   a block and micro-batch: {:.3f} ms exposed, {:.3f} ms of GEMM time to the SMs, {:.3f} "
             "ms to the GEMMs run in pieces ({} overlaps)\n",
             exposed.us() / 1e3, sm_cost.us() / 1e3, split_cost.us() / 1e3, layers.size());
  for (const TensorOverlapReport& t : layers) {
    const bool held = t.collective > t.own_rate;
    if (!held && t.exposed <= SimTime::zero() && t.split_cost <= SimTime::zero()) continue;
    fmt::print(o, "{:<17}{}: {}{}, {:.3f} ms beside a {:.3f} ms GEMM{}, {:.3f} ms exposed{}\n", "", t.layer, t.method,
               t.sms > 0 ? fmt::format(" on {} SMs", t.sms) : " on the copy engines", t.collective.us() / 1e3,
               t.gemm.us() / 1e3,
               t.split_cost > SimTime::zero()
                   ? fmt::format(" ({} pieces, {:.3f} ms more than whole)", t.pieces, t.split_cost.us() / 1e3)
                   : "",
               t.exposed.us() / 1e3,
               held && t.sms_to_keep_pace ? fmt::format("; {} SMs would keep its own pace, {:.3f} ms",
                                                        *t.sms_to_keep_pace, t.own_rate.us() / 1e3)
                                          : "");
  }
}

// A model-parallel layout: its sizes, the pipeline's bubble, MFU, and what each group kind moves and exposes.
void print_layout(const LayoutReport& l, const TrainingReport& r) {
  auto& o = std::cout;
  fmt::print(o, "layout           tensor {} x context {} x pipeline {} x data {}{}, schedule {}{}, sharding {}\n",
             l.tensor, l.context, l.pipeline, l.data, l.expert > 1 ? fmt::format(" (experts over {})", l.expert) : "",
             l.schedule, l.virtual_stages > 1 ? fmt::format(" ({} chunks per stage)", l.virtual_stages) : "",
             l.sharding);
  fmt::print(o, "                 pipeline bubble {:.1f}% of the pipeline ({:.1f}% of the time), MFU {:.1f}%{}\n",
             100 * l.bubble_fraction, 100 * l.bubble_share, 100 * l.model_flops_utilization,
             l.hardware_flops_utilization > l.model_flops_utilization
                 ? fmt::format(" ({:.1f}% with the recomputation)", 100 * l.hardware_flops_utilization)
                 : "");
  for (const GroupCommunication& g : r.group_communication) {
    fmt::print(o, "{:<17}{}: {:.3f} GB per GPU per iteration, {:.3f} ms exposed ({})\n", "", g.group,
               g.bytes_per_gpu / 1e9, g.exposed.us() / 1e3, g.collectives);
  }
  print_tensor_overlap(l.tensor_overlap);
}

// The time shares, which sum to 100% (training_report.hpp): the four every run has, then recompute, the pipeline
// bubble, framework overhead and overlap interference where a run has them, and with a layout the exposed
// communication by group kind.
// The goodput assessment (docs/faults.md, "Goodput"): ETTR, the interruptions, the badput causes above 0.05%.
void print_goodput(const GoodputReport& g) {
  auto& o = std::cout;
  fmt::print(o,
             "goodput          ETTR {:.1f}% (p10 {:.1f}%, p90 {:.1f}%) over {:.1f} days: {:.1f} interruptions expected "
             "(sampled p10 {}, p50 {}, p90 {}), one every {:.2f} h\n",
             100 * g.ettr, 100 * g.ettr_p10, 100 * g.ettr_p90, g.duration_seconds / 86400, g.interruptions.expected,
             g.interruptions.p10, g.interruptions.p50, g.interruptions.p90, g.mtbf_seconds / 3600);
  std::string badput;
  for (const auto& [cause, share] : g.badput) {
    if (share >= 0.0005) badput += fmt::format("{}{} {:.1f}%", badput.empty() ? "" : ", ", cause, 100 * share);
  }
  fmt::print(o, "                 badput {}\n", badput.empty() ? "none" : badput);
  fmt::print(o,
             "checkpoint       {:.3f} GB ({:.3f} GB per rank), {} save stalls {:.3f} s, restore {:.3f} s, every "
             "{:.1f} s (optimal {:.1f} s, Young {:.1f} s)\n",
             static_cast<double>(g.checkpoint_bytes.value) / 1e9,
             static_cast<double>(g.checkpoint_bytes_per_rank.value) / 1e9, g.async ? "async" : "sync",
             g.checkpoint_stall_seconds, g.restore_seconds, g.checkpoint_interval_seconds,
             g.checkpoint_interval_optimal_seconds, g.checkpoint_interval_young_seconds);
}

void print_shares(const TrainingReport& r) {
  auto& o = std::cout;
  fmt::print(o, "time shares      compute {:.1f}%  optimizer {:.1f}%  exposed communication {:.1f}%  idle {:.1f}%\n",
             100 * r.compute_share, 100 * r.optimizer_share, 100 * r.exposed_communication_share, 100 * r.idle_share);
  std::string more;
  const auto add = [&](const char* name, double share) { more += fmt::format("  {} {:.1f}%", name, 100 * share); };
  if (r.recompute_share > 0) add("recompute", r.recompute_share);
  if (r.pipeline_bubble_share > 0) add("pipeline bubble", r.pipeline_bubble_share);
  if (r.framework_overhead_share > 0 || r.overlap_interference_share > 0) {
    add("framework overhead", r.framework_overhead_share);
    add("overlap interference", r.overlap_interference_share);
  }
  if (!more.empty()) fmt::print(o, "{:<15}{}\n", "", more);
  if (!r.layout) return;
  std::string kinds;
  const std::pair<const char*, double> exposed[] = {{"tensor", r.exposed_tensor_share},
                                                    {"context", r.exposed_context_share},
                                                    {"pipeline", r.exposed_pipeline_share},
                                                    {"data", r.exposed_data_share},
                                                    {"expert", r.exposed_expert_share}};
  for (const auto& [name, share] : exposed) {
    if (share > 0) kinds += fmt::format("{}{} {:.1f}%", kinds.empty() ? "" : "  ", name, 100 * share);
  }
  if (!kinds.empty()) fmt::print(o, "                 exposed by group: {}\n", kinds);
}

// Gradient compression: the kind, the bytes it saves, and its kernels' time, per compressed iteration.
void print_compression(const CompressionReport& c) {
  auto& o = std::cout;
  const std::string knobs = c.kind == "powersgd" ? fmt::format(" rank {}", c.rank)
                            : c.kind == "topk"   ? fmt::format(" ratio {}", c.ratio)
                                                 : "";
  const std::string feedback =
      (c.kind == "powersgd" || c.kind == "topk") && !c.error_feedback ? " without error feedback" : "";
  const std::string from = c.start_iteration > 0 ? fmt::format(", from iteration {}", c.start_iteration) : "";
  const auto size = [](double bytes) { return format_bytes(Bytes{static_cast<std::int64_t>(std::llround(bytes))}); };
  fmt::print(o, "compression      {}{}{}{}: bus bytes per GPU {} -> {} per iteration ({:.1f}x fewer)\n", c.kind, knobs,
             feedback, from, size(c.plain_bus_bytes_per_gpu), size(c.bus_bytes_per_gpu),
             c.bus_bytes_per_gpu > 0 ? c.plain_bus_bytes_per_gpu / c.bus_bytes_per_gpu : 0.0);
  fmt::print(o, "                 kernels {:.3f} ms on the compute stream, {:.3f} ms beside the collectives\n",
             c.encode.us() / 1e3, c.stream_compute.us() / 1e3);
  if (!c.note.empty()) fmt::print(o, "                 {}\n", c.note);
}

// Model FLOPs per GPU against the dense peak, the hardware's where recomputation adds FLOPs, and tokens for a
// transformer.
void print_utilization(const TrainingReport::Utilization& u) {
  const bool recomputes = u.hardware_flops_utilization - u.model_flops_utilization >= 0.0005;
  fmt::print(
      std::cout, "utilization      MFU {:.1f}% of {:.1f} TFLOP/s per GPU ({:.1f} model TFLOP/s){}{}\n",
      100 * u.model_flops_utilization, u.peak_tflops, u.model_tflops_per_gpu,
      recomputes ? fmt::format(", HFU {:.1f}% with the recomputed forward", 100 * u.hardware_flops_utilization) : "",
      u.tokens_per_second_per_gpu > 0 ? fmt::format(", {:.0f} tokens/s per GPU", u.tokens_per_second_per_gpu) : "");
}

void print_summary(const TrainingReport& r, const std::filesystem::path& outdir,
                   const std::optional<run::ChakraExport>& workload, bool job_timeline) {
  auto& o = std::cout;
  fmt::print(o, "# syncsim run {}: {} x {}, {} ({}), global batch {}, {} {} ({}), {} iterations\n", r.scenario,
             r.workers, r.gpu, r.model, r.precision, r.global_batch, r.strategy, r.communication, r.algorithm,
             r.iterations);
  fmt::print(o, "iteration time   mean {:.3f} ms  p50 {:.3f} ms  p99 {:.3f} ms\n", r.iteration_mean.us() / 1e3,
             r.iteration_p50.us() / 1e3, r.iteration_p99.us() / 1e3);
  if (const auto& band = r.calibration_band) {
    fmt::print(
        o,
        "calibration band {:.3f} to {:.3f} ms per iteration, {:.1f} to {:.1f} samples/s (every collective at its "
        "fit's residual band)\n",
        band->iteration_low.us() / 1e3, band->iteration_high.us() / 1e3, band->samples_per_second_low,
        band->samples_per_second_high);
  }
  fmt::print(o, "throughput       {:.1f} samples/s (one GPU: {:.1f} samples/s)\n", r.samples_per_second,
             r.single_gpu_samples_per_second);
  fmt::print(o, "scaling          {:.1f}% of {} x one GPU\n", 100 * r.scaling_efficiency, r.workers);
  if (const auto& chip = r.slowest_chip) {
    fmt::print(o,
               "slowest chip     paces the {} GPUs: compute x{:.4f} at a {:.2g}% speed spread (cluster.speed_spread)\n",
               chip->gpus, chip->factor, 100 * chip->speed_spread);
  }
  print_utilization(r.utilization);
  if (r.compute_fit) {
    fmt::print(o, "compute          fitted to a measured step of {:.3f} ms: efficiency {:.3f} of the roofline{}\n",
               r.compute_fit->measured_step.us() / 1e3, r.compute_fit->implied_efficiency,
               r.compute_fit->implied_efficiency > 1 ? " (the run beat the layers' FLOP count)" : "");
  }
  if (const auto& k = r.kernel_model) {
    const std::string gemms = k->gemm_core ? fmt::format("GEMMs at {:.3f} x tile and wave", *k->gemm_core)
                                           : std::string("GEMMs on the constant roofline (no SM count or best GEMM)");
    const std::string attention = k->attention ? fmt::format("flash attention at {:.3f} of peak", *k->attention)
                                               : std::string("attention on the constant roofline");
    const std::string sustained =
        k->sustained_source == "none"
            ? std::string("the anchors as published (no sustained share known for this GPU)")
            : fmt::format("{:.1f}% of the burst anchors sustained ({})", 100 * k->sustained, k->sustained_source);
    fmt::print(
        o, "kernels          {} by shape: {}, {}, memory-bound at {:.3f} of the bandwidth; {}{}\n", k->style, gemms,
        attention, k->streaming_fraction, sustained,
        k->clock_factor < 1 ? fmt::format(", clock {:.3f} under the power limit", k->clock_factor) : std::string());
  }
  if (const auto& a = r.kernel_anchors) {
    const std::string fitted =
        a->fitted_shapes > 0 ? fmt::format("fitted to {} BF16 GEMMs ({:.1f}% rms, {:.1f} us start and drain each)",
                                           a->fitted_shapes, 100 * a->fit_rms_error, a->fixed.us())
                             : std::string("published (the profile timed no BF16 shape)");
    fmt::print(o,
               "gpu profile      GEMM constant {:.3f} {}{}, memory-bound kernels at {:.3f} of the bandwidth, "
               "sustained {:.1f}% of the quiet GEMM rate ({})\n",
               a->gemm_core, fitted,
               a->scaled_gemm_ratio ? fmt::format(", fp8/bf16 {:.3f}", *a->scaled_gemm_ratio) : std::string(),
               a->streaming_fraction, 100 * a->sustained, a->sustained_measured ? "measured" : "published");
  }
  if (r.compute_profile) {
    const auto& p = *r.compute_profile;
    fmt::print(
        o,
        "compute          from profile {} at batch {}: forward {:.3f} ms, backward {:.3f} ms (roofline {:.3f} ms, "
        "{:.3f} ms)\n",
        p.file, p.profile_batch, p.forward.us() / 1e3, p.backward.us() / 1e3, p.roofline_forward.us() / 1e3,
        p.roofline_backward.us() / 1e3);
    fmt::print(
        o, "                 {} layers from {} module calls: {} by name, {} by call, {} by order, {} between modules\n",
        p.layers, p.module_calls, p.by_name, p.by_call, p.by_order, p.between_modules);
  }
  if (const auto& c = r.collective_sequence) {
    fmt::print(o,
               "collectives      replayed from {}: {} ranks, {} communicators, {} collective calls a step ({} steps "
               "logged), rank 0 computes {:.3f} ms a step\n",
               c->file, c->ranks, c->communicators, c->calls_per_step, c->steps_in_log,
               c->rank0_gaps_per_step.us() / 1e3);
    for (const std::string& warning : c->warnings) fmt::print(o, "                 warning: {}\n", warning);
  }
  print_shares(r);
  fmt::print(o, "bottleneck       {}\n", r.bottleneck.summary);
  if (r.layout) print_layout(*r.layout, r);
  // A layout's buckets are per stage (its communication_by_group says what they move), not the report's list.
  if (!r.layout && !r.collective_sequence) {
    fmt::print(o, "buckets          {} (cap {} bytes)\n", r.buckets.size(), r.bucket_cap.value);
  }
  if (r.compression) print_compression(*r.compression);
  if (r.staleness) {
    fmt::print(o, "staleness        mean {:.2f}  max {} updates (over {} updates)\n", r.staleness->mean,
               r.staleness->max, r.staleness->updates);
  }
  if (!r.table_staleness.empty()) print_table_staleness(o, r.table_staleness);
  for (const FaultReport& f : r.faults) {
    fmt::print(
        o,
        "fault            {} {} at {:.3f} ms ({}): resumed at {:.3f} ms, {} iteration(s) lost, {:.3f} ms of work lost, "
        "{} workers after\n",
        to_string(f.kind), f.target, f.at.us() / 1e3, to_string(f.policy), f.resumed.us() / 1e3, f.iterations_lost,
        f.lost_work.us() / 1e3, f.workers_after);
  }
  if (!r.faults.empty()) {
    fmt::print(o, "lost to faults   {:.3f} ms of work, {:.3f} ms of downtime\n", r.lost_work.us() / 1e3,
               r.downtime.us() / 1e3);
  }
  for (std::size_t i = 0; i < r.busiest_links.size() && i < 3; ++i) {
    const LinkReport& l = r.busiest_links[i];
    fmt::print(o, "{}{} -> {} ({}): {:.1f}% utilized, {:.3f} GB\n", i == 0 ? "busiest links    " : "                 ",
               l.from, l.to, l.link_class, 100 * l.utilization, l.bytes / 1e9);
  }
  fmt::print(o, "memory           {}\n", memory_verdict(r.memory));
  if (r.goodput) print_goodput(*r.goodput);
  if (r.convergence) print_convergence(*r.convergence);
  fmt::print(o, "wrote            {} and {}\n", (outdir / "report.json").string(), (outdir / "trace.json").string());
  if (job_timeline) {
    fmt::print(o, "                 {}: the job's failures, restarts and checkpoints (the seed's first sample)\n",
               (outdir / run::kJobTimelineFile).string());
  }
  if (workload) {
    const auto [fewest, most] = workload->nodes();
    fmt::print(o, "                 {} .. {}: Chakra execution traces, {} nodes each (ASTRA-sim workload {})\n",
               (outdir / chakra::execution_trace_file_name(kChakraPrefix, 0)).string(),
               chakra::execution_trace_file_name(kChakraPrefix, workload->ranks() - 1),
               fewest == most ? fmt::format("{}", most) : fmt::format("{} to {}", fewest, most),
               (outdir / kChakraPrefix).string());
  }
  if (r.convergence) {
    fmt::print(o, "                 {}{}\n", (outdir / "convergence.svg").string(),
               r.staleness ? fmt::format(" and {}", (outdir / "staleness.svg").string()) : "");
  }
}

std::filesystem::path output_dir(const RunOptions& options, const Scenario& scenario) {
  return options.outdir.empty() ? std::filesystem::path("syncsim-out") / scenario.name
                                : std::filesystem::path(options.outdir);
}

// An earlier run's Chakra traces of ranks this run does not write (it has fewer, or no --chakra): they go with the
// swap, so that the folder never holds the traces of two runs. Only names of the form chakra.<rank>.et are read.
void remove_stale_traces(OutputSet& set, std::int64_t ranks) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(set.dir(), error)) {
    const std::string name = entry.path().filename().string();
    const std::optional<std::int64_t> rank = chakra::execution_trace_file_rank(kChakraPrefix, name);
    if (rank && *rank >= ranks) set.remove(name);
  }
}

// report.json, trace.json, the convergence charts and the Chakra traces are one set (output_set.hpp): an interrupt
// or a full disk leaves an earlier run's set whole, and files an earlier run made but this one does not are taken
// away with it.
void write_outputs(const std::filesystem::path& outdir, const Scenario& scenario, const run::RunOutput& sim,
                   const std::string& report, const std::optional<run::ChakraExport>& workload) {
  OutputSet set(outdir);
  for (std::int64_t rank = 0; workload && rank < workload->ranks(); ++rank) {
    const chakra::ExecutionTrace trace = workload->trace(rank);
    const std::string bytes = chakra::encode_execution_trace(trace);
    if (rank == 0) check_chakra_space(set.dir(), *workload, trace.nodes.size(), bytes.size());
    set.add(chakra::execution_trace_file_name(kChakraPrefix, rank), [&](std::ostream& out) { out << bytes; });
  }
  remove_stale_traces(set, workload ? workload->ranks() : 0);
  set.add("trace.json", [&](std::ostream& out) { trace::write_chrome_trace(sim.trace, out); });
  set.add("report.json", [&](std::ostream& out) { out << report; });
  const std::string job_timeline(run::kJobTimelineFile);
  if (sim.job_timeline) {
    set.add(job_timeline, [&](std::ostream& out) { trace::write_chrome_trace(*sim.job_timeline, out); });
  } else {
    set.remove(job_timeline);
  }
  if (sim.report.convergence) {
    add_chart_files(set, "convergence", planner::loss_chart({{scenario.name, &*sim.report.convergence}}));
  } else {
    remove_chart_files(set, "convergence");
  }
  if (sim.report.convergence && sim.report.staleness) {
    add_chart_files(set, "staleness", planner::staleness_chart(*sim.report.staleness));
  } else {
    remove_chart_files(set, "staleness");
  }
  set.commit();
}

// A scenario with several jobs (docs/jobs.md): report.json and the per-job table.
int run_jobs_scenario(const RunOptions& options, const JobsScenario& scenario) {
  const std::filesystem::path outdir = output_dir(options, scenario.base);
  check_output_dir(outdir, "-o", {"report.json", "trace.json"});
  const JobsReport jobs = run::run_jobs(scenario);
  const std::string report = jobs_json(jobs).dump(2) + "\n";
  OutputSet set(outdir);
  set.add("report.json", [&](std::ostream& out) { out << report; });
  const trace::Trace trace = run::jobs_trace(jobs);
  set.add("trace.json", [&](std::ostream& out) { trace::write_chrome_trace(trace, out); });
  // A single-job run's job timeline in the same folder would describe another run.
  set.remove(std::string(run::kJobTimelineFile));
  set.commit();
  if (options.json) {
    std::cout << report;
  } else {
    print_jobs_summary(jobs, outdir);
  }
  return 0;
}

int run_scenario(const RunOptions& options) {
  if (const auto jobs = load_jobs_scenario(options.scenario, options.overrides))
    return run_jobs_scenario(options, *jobs);
  const Scenario scenario = load_scenario(options.scenario, options.overrides);
  check_scenario_calibration(scenario, options.strict_calibration);
  const std::filesystem::path outdir = output_dir(options, scenario);
  std::optional<run::ChakraExport> workload;
  if (options.chakra) workload = run::scenario_chakra_export(scenario);
  std::vector<std::string> outputs = {"trace.json", "report.json", std::string(run::kJobTimelineFile)};
  for (const char* stem : {"convergence", "staleness"})
    std::ranges::copy(chart_file_names(stem), std::back_inserter(outputs));
  if (workload) std::ranges::copy(chakra_files(*workload), std::back_inserter(outputs));
  check_output_dir(outdir, "-o", outputs);  // before the simulation, which may take long
  // Everything is simulated and checked before anything is written.
  run::Workspace workspace;  // one run: its collectives are not kept past it
  workspace.set_symmetry(!options.no_symmetry);
  const run::RunOutput sim = run::run_scenario(scenario, workspace);
  const std::string report = to_json(sim.report).dump(2) + "\n";
  write_outputs(outdir, scenario, sim, report, workload);
  if (options.json) {
    std::cout << report;
  } else {
    print_summary(sim.report, outdir, workload, sim.job_timeline.has_value());
  }
  return 0;
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand(
      "run", "Simulate a training scenario (YAML); write report.json and trace.json, print a summary");
  set_examples(command,
               {"syncsim run examples/resnet50-dgx-8gpu.yaml -o out",
                "syncsim run examples/llama3-70b-layouts.yaml --set parallelism.tensor=4 --set parallelism.pipeline=8",
                "syncsim run examples/vgg16-gradient-compression.yaml --set training.gradient_compression=powersgd",
                "syncsim run examples/resnet50-dgx-8gpu.yaml -o out --chakra"});
  command->add_option("scenario", options->scenario, "Scenario file (YAML)")->required();
  command->add_option("-o,--outdir", options->outdir, "Output folder (default: ./syncsim-out/<scenario name>)");
  command->add_option("--set", options->overrides, "Override a scenario value: key.path=value (repeatable)");
  command->add_flag("--json", options->json, "Print report.json to stdout instead of the summary");
  command->add_flag(
      "--no-symmetry", options->no_symmetry,
      "Step every rank one step at a time: no symmetry classes, ring cycle evaluation or tree channel classes "
      "(same results, slower)");
  command->add_flag(
      "--strict-calibration", options->strict_calibration,
      "A scenario calibration fitted on another system (GPU, link rate, scale) is an error, not a warning");
  command->add_flag("--chakra", options->chakra,
                    "Also write one iteration as Chakra execution traces, OUTDIR/chakra.<rank>.et (ASTRA-sim's "
                    "workload format; docs/chakra.md)");
  return [options]() { return run_scenario(*options); };
}

}  // namespace syncsim::app
