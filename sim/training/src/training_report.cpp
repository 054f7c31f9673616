#include "syncsim/training/training_report.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "report_rounding.hpp"

namespace syncsim {
using training_detail::rounded_ratio;

BucketReport allreduce_bucket_report(Bytes bytes, const CollectiveOutcome& outcome) {
  BucketReport b;
  b.bytes = bytes;
  b.allreduce_time = outcome.time;
  b.algorithm = std::string(to_string(outcome.algorithm));
  if (outcome.protocol) b.protocol = std::string(to_string(*outcome.protocol));
  b.channels = outcome.channels;
  return b;
}

namespace {

double us(SimTime t) {
  return training_detail::report_us(t);
}

double share(SimTime part, SimTime whole) {
  return whole.ps() > 0 ? static_cast<double>(part.ps()) / static_cast<double>(whole.ps()) : 0.0;
}

template <typename T>
nlohmann::ordered_json or_null(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json time_or_null(const std::optional<SimTime>& t) {
  return t ? nlohmann::ordered_json(us(*t)) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json convergence_json(const ConvergenceReport& c) {
  nlohmann::ordered_json out;
  out["problem"] = c.problem;
  out["parameters"] = c.parameters;
  out["batch_per_worker"] = c.batch_per_worker;
  out["learning_rate"] = c.learning_rate;
  out["lr_scaling"] = c.lr_scaling;
  out["warmup_updates"] = c.warmup_updates;
  out["updates"] = c.updates;
  out["samples"] = c.samples;
  out["eval_every"] = c.eval_every;
  out["target_loss"] = or_null(c.target_loss);
  out["time_to_target_us"] = time_or_null(c.time_to_target);
  out["updates_to_target"] = or_null(c.updates_to_target);
  out["diverged_at_us"] = time_or_null(c.diverged_at);
  out["diverged_at_update"] = or_null(c.diverged_at_update);
  out["final_loss"] = rounded_ratio(c.final_loss);
  out["final_accuracy"] = rounded_ratio(c.final_accuracy);
  out["best_loss"] = rounded_ratio(c.best_loss);
  auto& curve = out["curve"] = nlohmann::ordered_json::array();
  for (const ConvergenceSample& p : c.curve) {
    curve.push_back({{"update", p.update},
                     {"time_us", us(p.at)},
                     {"samples", p.samples},
                     {"loss", rounded_ratio(p.loss)},
                     {"accuracy", rounded_ratio(p.accuracy)}});
  }
  return out;
}

nlohmann::ordered_json faults_json(const std::vector<FaultReport>& all) {
  auto faults = nlohmann::ordered_json::array();
  for (const FaultReport& f : all) {
    faults.push_back({{"kind", std::string(to_string(f.kind))},
                      {"target", f.target},
                      {"policy", std::string(to_string(f.policy))},
                      {"at_us", us(f.at)},
                      {"detected_us", us(f.detected)},
                      {"resumed_us", us(f.resumed)},
                      {"iterations_lost", f.iterations_lost},
                      {"lost_work_us", us(f.lost_work)},
                      {"downtime_us", us(f.downtime)},
                      {"workers_after", f.workers_after}});
  }
  return faults;
}

nlohmann::ordered_json links_json(const std::vector<LinkReport>& all) {
  auto links = nlohmann::ordered_json::array();
  for (const LinkReport& l : all) {
    links.push_back({{"from", l.from},
                     {"to", l.to},
                     {"class", l.link_class},
                     {"bytes", rounded_ratio(l.bytes)},
                     {"busy_us", us(l.busy)},
                     {"utilization", rounded_ratio(l.utilization)}});
  }
  return links;
}

nlohmann::ordered_json buckets_json(const std::vector<BucketReport>& all) {
  auto buckets = nlohmann::ordered_json::array();
  for (const BucketReport& b : all) {
    nlohmann::ordered_json j = {{"bytes", b.bytes.value},
                                {"allreduce_us", us(b.allreduce_time)},
                                {"algorithm", b.algorithm},
                                {"channels", b.channels}};
    j["protocol"] = b.protocol ? nlohmann::ordered_json(*b.protocol) : nullptr;
    if (b.compressed) {
      j["compressed"] = {{"wire_bytes", b.compressed->wire_bytes.value},
                         {"encode_us", us(b.compressed->encode)},
                         {"sync_us", us(b.compressed->sync_time)}};
    }
    buckets.push_back(std::move(j));
  }
  return buckets;
}

nlohmann::ordered_json workers_json(const std::vector<WorkerReport>& all) {
  auto workers = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const WorkerReport& w = all[i];
    workers.push_back({{"rank", i},
                       {"compute_us", us(w.compute)},
                       {"optimizer_us", us(w.optimizer)},
                       {"exposed_communication_us", us(w.exposed_communication)},
                       {"idle_us", us(w.straggler_wait)},
                       {"updates", w.updates ? nlohmann::ordered_json(*w.updates) : nullptr}});
  }
  return workers;
}

// The job's collective sequence a replay ran (model.collectives).
nlohmann::ordered_json collective_sequence_json(const TrainingReport::CollectiveSequenceReport& c) {
  return {{"file", c.file},
          {"ranks", c.ranks},
          {"communicators", c.communicators},
          {"calls_per_step", c.calls_per_step},
          {"steps_in_log", c.steps_in_log},
          {"rank0_gaps_per_step_us", us(c.rank0_gaps_per_step)},
          {"warnings", c.warnings}};
}

// Where a profiled run's layer times came from (model.profile).
nlohmann::ordered_json compute_profile_json(const TrainingReport::ComputeProfile& p) {
  return {{"file", p.file},
          {"profile_batch", p.profile_batch},
          {"kernel_times", p.kernel_times},
          {"layers", p.layers},
          {"module_calls", p.module_calls},
          {"matched",
           {{"by_name", p.by_name},
            {"by_call", p.by_call},
            {"by_order", p.by_order},
            {"between_modules", p.between_modules}}},
          {"forward_us", us(p.forward)},
          {"backward_us", us(p.backward)},
          {"roofline_forward_us", us(p.roofline_forward)},
          {"roofline_backward_us", us(p.roofline_backward)},
          {"unattributed_forward_us", us(p.unattributed_forward)},
          {"unattributed_backward_us", us(p.unattributed_backward)}};
}

nlohmann::ordered_json tensor_overlap_json(const std::vector<TensorOverlapReport>& layers) {
  auto out = nlohmann::ordered_json::array();
  for (const TensorOverlapReport& t : layers) {
    out.push_back({{"layer", t.layer},
                   {"method", t.method},
                   {"sms", t.sms},
                   {"collective_us", us(t.collective)},
                   {"own_rate_us", us(t.own_rate)},
                   {"gemm_us", us(t.gemm)},
                   {"exposed_us", us(t.exposed)},
                   {"sm_cost_us", us(t.sm_cost)},
                   {"gemm_pieces", t.pieces},
                   {"split_cost_us", us(t.split_cost)},
                   {"sms_to_keep_pace", t.sms_to_keep_pace ? nlohmann::ordered_json(*t.sms_to_keep_pace) : nullptr}});
  }
  return out;
}

nlohmann::ordered_json layout_json(const LayoutReport& l) {
  nlohmann::ordered_json out = {{"tensor", l.tensor},
                                {"context", l.context},
                                {"pipeline", l.pipeline},
                                {"data", l.data},
                                {"expert", l.expert},
                                {"schedule", l.schedule},
                                {"virtual_stages", l.virtual_stages},
                                {"sharding", l.sharding},
                                {"bubble_fraction", rounded_ratio(l.bubble_fraction)},
                                {"bubble_share", rounded_ratio(l.bubble_share)},
                                {"model_flops_utilization", rounded_ratio(l.model_flops_utilization)},
                                {"hardware_flops_utilization", rounded_ratio(l.hardware_flops_utilization)}};
  // Only under tp_comm_overlap, so that other layouts' reports keep their shape.
  if (!l.tensor_overlap.empty()) out["tensor_overlap_per_block"] = tensor_overlap_json(l.tensor_overlap);
  return out;
}

nlohmann::ordered_json bottleneck_json(const BottleneckReport& b) {
  return {{"bound", b.bound},
          {"resource", b.resource},
          {"link_class", b.link_class},
          {"compute_share", rounded_ratio(b.compute_share)},
          {"communication_share", rounded_ratio(b.communication_share)},
          {"straggler_share", rounded_ratio(b.straggler_share)},
          {"bound_share", rounded_ratio(b.bound_share)},
          {"summary", b.summary}};
}

nlohmann::ordered_json causes_json(const std::vector<CauseReport>& causes) {
  auto out = nlohmann::ordered_json::array();
  for (const CauseReport& c : causes) {
    out.push_back({{"cause", c.cause},
                   {"group", c.group},
                   {"resource", c.resource},
                   {"us_per_iteration", us(c.per_iteration)},
                   {"share", rounded_ratio(c.share)},
                   {"measured", c.measured}});
  }
  return out;
}

nlohmann::ordered_json compression_json(const CompressionReport& c) {
  nlohmann::ordered_json out = {{"kind", c.kind}};
  if (c.kind == "powersgd") out["rank"] = c.rank;
  if (c.kind == "topk") out["ratio"] = rounded_ratio(c.ratio);
  if (c.kind == "powersgd" || c.kind == "topk") out["error_feedback"] = c.error_feedback;
  out["start_iteration"] = c.start_iteration;
  out["gradient_bytes"] = c.gradient_bytes.value;
  out["wire_bytes"] = c.wire_bytes.value;
  out["bus_bytes_per_gpu"] = c.bus_bytes_per_gpu;
  out["plain_bus_bytes_per_gpu"] = c.plain_bus_bytes_per_gpu;
  out["encode_us"] = us(c.encode);
  out["stream_compute_us"] = us(c.stream_compute);
  if (c.kind == "powersgd") {
    out["compressed_matrices"] = c.compressed_matrices;
    out["uncompressed_params"] = c.uncompressed_params;
  }
  out["note"] = c.note;
  return out;
}

nlohmann::ordered_json utilization_json(const TrainingReport::Utilization& u) {
  nlohmann::ordered_json out = {{"peak_tflops_per_gpu", rounded_ratio(u.peak_tflops)},
                                {"model_tflops_per_gpu", rounded_ratio(u.model_tflops_per_gpu)},
                                {"model_flops_utilization", rounded_ratio(u.model_flops_utilization)},
                                {"hardware_flops_utilization", rounded_ratio(u.hardware_flops_utilization)}};
  if (u.tokens_per_second_per_gpu > 0) out["tokens_per_s_per_gpu"] = rounded_ratio(u.tokens_per_second_per_gpu);
  return out;
}

// The first six keys as before issue 40 (compute now without recompute); then the split that sums to 1.
nlohmann::ordered_json shares_json(const TrainingReport& r) {
  return {{"compute", rounded_ratio(r.compute_share)},
          {"optimizer", rounded_ratio(r.optimizer_share)},
          {"exposed_communication", rounded_ratio(r.exposed_communication_share)},
          {"idle", rounded_ratio(r.idle_share)},
          {"framework_overhead", rounded_ratio(r.framework_overhead_share)},
          {"overlap_interference", rounded_ratio(r.overlap_interference_share)},
          {"recompute", rounded_ratio(r.recompute_share)},
          {"pipeline_bubble", rounded_ratio(r.pipeline_bubble_share)},
          {"exposed_tensor", rounded_ratio(r.exposed_tensor_share)},
          {"exposed_context", rounded_ratio(r.exposed_context_share)},
          {"exposed_pipeline", rounded_ratio(r.exposed_pipeline_share)},
          {"exposed_data", rounded_ratio(r.exposed_data_share)},
          {"exposed_expert", rounded_ratio(r.exposed_expert_share)}};
}

nlohmann::ordered_json memory_json(const MemoryReport& m) {
  return {{"fits", m.fits},
          {"weights_bytes", m.weights.value},
          {"gradients_bytes", m.gradients.value},
          {"optimizer_state_bytes", m.optimizer_state.value},
          {"activations_bytes", m.activations.value},
          {"loss_buffers_bytes", m.loss_buffers.value},
          {"workspaces_bytes", m.workspaces.value},
          {"allocated_bytes", m.allocated.value},
          {"reserved_bytes", m.reserved.value},
          {"cuda_context_bytes", m.cuda_context.value},
          {"nccl_buffers_bytes", m.nccl_buffers.value},
          {"userbuffers_bytes", m.userbuffers.value},
          {"total_bytes", m.total.value},
          {"capacity_bytes", m.capacity.value},
          {"shortfall_bytes", m.shortfall.value}};
}

nlohmann::ordered_json table_staleness_json(const std::vector<TableStaleness>& tables) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const TableStaleness& t : tables) {
    out.push_back(
        {{"table", t.table}, {"iterations", t.iterations}, {"missed_updates", rounded_ratio(t.missed_updates)}});
  }
  return out;
}

nlohmann::ordered_json kernel_anchors_json(const TrainingReport::KernelAnchors& a) {
  return {{"gemm_core", rounded_ratio(a.gemm_core)},
          {"fitted_shapes", a.fitted_shapes},
          {"fit_rms_error", rounded_ratio(a.fit_rms_error)},
          {"fixed_us", us(a.fixed)},
          {"scaled_gemm_ratio", a.scaled_gemm_ratio ? nlohmann::ordered_json(rounded_ratio(*a.scaled_gemm_ratio))
                                                    : nlohmann::ordered_json()},
          {"streaming_fraction", rounded_ratio(a.streaming_fraction)},
          {"sustained", rounded_ratio(a.sustained)},
          {"sustained_measured", a.sustained_measured}};
}

nlohmann::ordered_json slowest_chip_json(const TrainingReport::SlowestChip& chip) {
  return {{"speed_spread", rounded_ratio(chip.speed_spread)},
          {"gpus", chip.gpus},
          {"compute_factor", rounded_ratio(chip.factor)}};
}

nlohmann::ordered_json kernel_model_json(const TrainingReport::KernelModelReport& k) {
  const auto maybe = [](std::optional<double> v) {
    return v ? nlohmann::ordered_json(rounded_ratio(*v)) : nlohmann::ordered_json();
  };
  return {{"style", k.style},
          {"gemm_core", maybe(k.gemm_core)},
          {"attention", maybe(k.attention)},
          {"streaming_fraction", rounded_ratio(k.streaming_fraction)},
          {"sustained", rounded_ratio(k.sustained)},
          {"sustained_source", k.sustained_source},
          {"clock_factor", rounded_ratio(k.clock_factor)}};
}

// Where the compute times came from: a fit, a profile, the kernel model, a GPU profile's anchors, the slowest chip.
void add_compute_sources(nlohmann::ordered_json& out, const TrainingReport& r) {
  if (r.compute_fit) {
    out["compute_fit"] = {{"measured_step_us", us(r.compute_fit->measured_step)},
                          {"implied_efficiency", rounded_ratio(r.compute_fit->implied_efficiency)},
                          {"kernel_overheads_us", us(r.compute_fit->kernel_overheads)}};
  }
  if (r.compute_profile) out["compute_profile"] = compute_profile_json(*r.compute_profile);
  if (r.kernel_model) out["kernel_model"] = kernel_model_json(*r.kernel_model);
  if (r.slowest_chip) out["slowest_chip"] = slowest_chip_json(*r.slowest_chip);
  if (r.kernel_anchors) out["kernel_anchors"] = kernel_anchors_json(*r.kernel_anchors);
}

}  // namespace

std::vector<std::pair<std::string, double>> time_shares(const TrainingReport& report) {
  std::vector<std::pair<std::string, double>> out;
  const nlohmann::ordered_json shares = shares_json(report);  // kept alive through the loop over its items
  for (const auto& [name, value] : shares.items()) out.emplace_back(name, value.get<double>());
  return out;
}

void compute_shares(TrainingReport& report) {
  double* const leaves[] = {&report.compute_share,
                            &report.recompute_share,
                            &report.pipeline_bubble_share,
                            &report.exposed_tensor_share,
                            &report.exposed_context_share,
                            &report.exposed_pipeline_share,
                            &report.exposed_data_share,
                            &report.exposed_expert_share,
                            &report.optimizer_share,
                            &report.framework_overhead_share,
                            &report.overlap_interference_share,
                            &report.idle_share};
  for (double* leaf : leaves) *leaf = 0;
  report.exposed_communication_share = 0;
  if (report.per_worker.empty() || report.total.ps() <= 0) return;
  const SimTime total = report.total;
  for (const WorkerReport& w : report.per_worker) {
    const SimTime by_kind = w.exposed_tensor + w.exposed_context + w.exposed_pipeline + w.exposed_expert;
    const SimTime data = std::max(SimTime::zero(), w.exposed_communication - by_kind);
    const SimTime parts[] = {
        w.compute - w.recompute, w.recompute, w.pipeline_bubble, w.exposed_tensor, w.exposed_context,
        w.exposed_pipeline,      data,        w.exposed_expert,  w.optimizer,      w.framework_overhead,
        w.overlap_interference};
    SimTime accounted;
    for (std::size_t i = 0; i < std::size(parts); ++i) {
      *leaves[i] += share(parts[i], total);
      accounted += parts[i];
    }
    // Idle closes the worker's time: waiting for others, stalled, or anything else it was not doing above.
    *leaves[std::size(parts)] += share(std::max(w.straggler_wait, total - accounted), total);
  }
  const auto n = static_cast<double>(report.per_worker.size());
  for (double* leaf : leaves) *leaf /= n;
  report.exposed_communication_share = report.exposed_tensor_share + report.exposed_context_share +
                                       report.exposed_pipeline_share + report.exposed_data_share +
                                       report.exposed_expert_share;
  if (report.layout) report.layout->bubble_share = report.pipeline_bubble_share;
}

double sum_of_shares(const TrainingReport& r) {
  return r.compute_share + r.recompute_share + r.pipeline_bubble_share + r.exposed_communication_share +
         r.optimizer_share + r.framework_overhead_share + r.overlap_interference_share + r.idle_share;
}

nlohmann::ordered_json to_json(const TrainingReport& r) {
  nlohmann::ordered_json out;
  out["scenario"] = r.scenario;
  out["strategy"] = r.strategy;
  out["communication"] = r.communication;
  out["algorithm"] = r.algorithm;
  out["latency_model"] = r.latency_model;
  out["workers"] = r.workers;
  out["gpu"] = r.gpu;
  out["model"] = r.model;
  out["params"] = r.params;
  out["precision"] = r.precision;
  out["batch_per_gpu"] = r.batch_per_gpu;
  out["micro_batches"] = r.micro_batches;
  out["global_batch"] = r.global_batch;
  out["iterations"] = r.iterations;
  out["overlap"] = r.overlap;
  out["total_us"] = us(r.total);
  out["iteration_time_us"] = {
      {"mean", us(r.iteration_mean)}, {"p50", us(r.iteration_p50)}, {"p99", us(r.iteration_p99)}};
  out["samples_per_s"] = rounded_ratio(r.samples_per_second);
  if (const auto& band = r.calibration_band) {
    out["calibration_band"] = {
        {"iteration_time_us", {{"low", us(band->iteration_low)}, {"high", us(band->iteration_high)}}},
        {"samples_per_s",
         {{"low", rounded_ratio(band->samples_per_second_low)},
          {"high", rounded_ratio(band->samples_per_second_high)}}}};
  }
  out["single_gpu_iteration_us"] = us(r.single_gpu_iteration);
  add_compute_sources(out, r);
  if (r.collective_sequence) out["collective_sequence"] = collective_sequence_json(*r.collective_sequence);
  out["single_gpu_samples_per_s"] = rounded_ratio(r.single_gpu_samples_per_second);
  out["scaling_efficiency"] = rounded_ratio(r.scaling_efficiency);
  out["utilization"] = utilization_json(r.utilization);
  out["shares"] = shares_json(r);
  if (r.staleness) {
    out["staleness"] = {{"updates", r.staleness->updates},
                        {"mean", rounded_ratio(r.staleness->mean)},
                        {"max", r.staleness->max},
                        {"histogram", r.staleness->histogram}};
  } else {
    out["staleness"] = nullptr;
  }
  if (!r.table_staleness.empty()) out["table_staleness"] = table_staleness_json(r.table_staleness);
  out["faults"] = faults_json(r.faults);
  out["lost_work_us"] = us(r.lost_work);
  out["downtime_us"] = us(r.downtime);
  out["busiest_links"] = links_json(r.busiest_links);
  out["bottleneck"] = bottleneck_json(r.bottleneck);
  out["causes"] = causes_json(r.causes);
  out["bucket_cap_bytes"] = r.bucket_cap.value;
  out["buckets"] = buckets_json(r.buckets);
  if (!r.group_communication.empty()) {  // not with parameter servers, whose traffic is per server link
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const GroupCommunication& g : r.group_communication) {
      nlohmann::ordered_json j = {{"group", g.group},
                                  {"collectives", g.collectives},
                                  {"bytes_per_gpu_per_iteration", g.bytes_per_gpu},
                                  {"exposed_us_per_iteration", us(g.exposed)}};
      if (g.busiest_link) j["busiest_link"] = links_json({*g.busiest_link}).front();
      groups.push_back(std::move(j));
    }
    out["communication_by_group"] = groups;
  }
  if (r.layout) out["layout"] = layout_json(*r.layout);
  if (r.compression) out["gradient_compression"] = compression_json(*r.compression);
  out["per_worker"] = workers_json(r.per_worker);
  out["memory"] = memory_json(r.memory);
  // Only with a convergence section, so that throughput-only reports keep their shape.
  if (r.convergence) out["convergence"] = convergence_json(*r.convergence);
  if (r.goodput) out["goodput"] = goodput_json(*r.goodput);
  return out;
}

}  // namespace syncsim
