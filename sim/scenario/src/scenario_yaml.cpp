// to_yaml: the resolved scenario, every default written out, in schema order. Values are written in the
// largest unit that keeps them exact (1500us, 25MB, 64KiB), so the text loads back to the same scenario.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>

#include "enum_names.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {

namespace {

using namespace scenario_detail;

std::string duration_text(SimTime t) {
  static constexpr std::array<std::pair<std::string_view, std::int64_t>, 4> kUnits{
      {{"s", 1'000'000'000'000}, {"ms", 1'000'000'000}, {"us", 1'000'000}, {"ns", 1'000}}};
  for (const auto& [unit, ps] : kUnits) {
    if (t.ps() % ps == 0) return fmt::format("{}{}", t.ps() / ps, unit);
  }
  return fmt::format("{}ps", t.ps());
}

std::string size_text(Bytes bytes) {
  static constexpr std::array<std::pair<std::string_view, std::int64_t>, 8> kUnits{{{"TB", 1'000'000'000'000},
                                                                                    {"TiB", std::int64_t{1} << 40},
                                                                                    {"GB", 1'000'000'000},
                                                                                    {"GiB", std::int64_t{1} << 30},
                                                                                    {"MB", 1'000'000},
                                                                                    {"MiB", std::int64_t{1} << 20},
                                                                                    {"KB", 1'000},
                                                                                    {"KiB", std::int64_t{1} << 10}}};
  for (const auto& [unit, factor] : kUnits) {
    if (bytes.value != 0 && bytes.value % factor == 0) return fmt::format("{}{}", bytes.value / factor, unit);
  }
  return fmt::format("{}B", bytes.value);
}

// GB/s when that parses back to exactly this rate (units.hpp's factors), else Gbps, else bytes per second.
std::string bandwidth_text(Bandwidth bw) {
  static constexpr std::array<std::pair<std::string_view, double>, 2> kUnits{{{"GB/s", 1e9}, {"Gbps", 1e9 / 8}}};
  for (const auto& [unit, factor] : kUnits) {
    const double number = bw.bytes_per_second / factor;
    if (number * factor == bw.bytes_per_second) return fmt::format("{}{}", number, unit);
  }
  return fmt::format("{}B/s", bw.bytes_per_second);
}

std::string number_text(double value) {
  return fmt::format("{}", value);
}

class Writer {
 public:
  Writer() { out_ << YAML::BeginMap; }

  template <typename T>
  Writer& field(std::string_view key, const T& value) {
    out_ << YAML::Key << std::string(key) << YAML::Value << value;
    return *this;
  }
  Writer& text(std::string_view key, std::string_view value) { return field(key, std::string(value)); }
  Writer& begin_map(std::string_view key) {
    out_ << YAML::Key << std::string(key) << YAML::Value << YAML::BeginMap;
    return *this;
  }
  Writer& begin_list(std::string_view key, bool empty) {
    out_ << YAML::Key << std::string(key) << YAML::Value;
    if (empty) out_ << YAML::Flow;
    out_ << YAML::BeginSeq;
    return *this;
  }
  YAML::Emitter& raw() { return out_; }
  std::string finish() {
    out_ << YAML::EndMap;
    return std::string(out_.c_str()) + "\n";
  }

 private:
  YAML::Emitter out_;
};

void write_link(YAML::Emitter& out, const LinkEnds& ends) {
  out << YAML::Key << "between" << YAML::Value << YAML::Flow << YAML::BeginSeq << ends.a.value << ends.b.value
      << YAML::EndSeq;
}

void write_cluster(Writer& w, const ClusterConfig& cluster) {
  w.begin_map("cluster");
  if (cluster.gpu.profile) {
    w.begin_map("gpu")
        .text("profile", cluster.gpu.profile->value)
        .text("mem", size_text(cluster.gpu.inline_spec->memory));
    w.raw() << YAML::EndMap;
  } else if (cluster.gpu.inline_spec) {
    const GpuSpec& gpu = *cluster.gpu.inline_spec;
    w.begin_map("gpu").text("name", cluster.gpu.name.value).begin_map("peak_tflops");
    for (const auto& [name, precision] : kPrecisionNames) {
      if (const auto peak = gpu.peak(precision)) w.text(name, number_text(*peak / 1e12));
    }
    w.raw() << YAML::EndMap;
    w.text("mem_bw", bandwidth_text(gpu.memory_bandwidth)).text("mem", size_text(gpu.memory)).raw() << YAML::EndMap;
  } else if (cluster.gpu.power_limit) {
    w.begin_map("gpu").text("name", cluster.gpu.name.value);
    w.text("power_limit", number_text(cluster.gpu.power_limit->value) + "W").raw() << YAML::EndMap;
  } else {
    w.text("gpu", cluster.gpu.name.value);
  }
  w.begin_map("topology").text("kind", cluster.topology.kind);
  for (const auto& [key, value] : cluster.topology.params) w.text(key, value);
  w.raw() << YAML::EndMap;
  if (cluster.workers) w.field("workers", cluster.workers->value);
  if (cluster.speed_spread) w.text("speed_spread", number_text(cluster.speed_spread->value));
  w.raw() << YAML::EndMap;
}

// The shape itself, also when it came from an hf_config: the written scenario needs no other file.
void write_transformer(Writer& w, const LlamaShape& shape) {
  w.begin_map("transformer").field("layers", shape.layers).field("hidden", shape.hidden).field("heads", shape.heads);
  w.field("kv_heads", shape.kv_heads.value_or(shape.heads)).field("ffn", shape.ffn).field("vocab", shape.vocab);
  w.field("seq", shape.sequence_length).field("experts", shape.experts);
  w.field("experts_per_token", shape.experts_per_token);
  w.field("tied_embeddings", shape.tied_embeddings);
  if (shape.shared_experts > 0) w.field("shared_experts", shape.shared_experts);
  if (shape.dense_layers > 0) w.field("dense_layers", shape.dense_layers);
  if (shape.dense_ffn) w.field("dense_ffn", *shape.dense_ffn);
  // The parts other than LLaMA's, as written (the defaults are LLaMA's).
  const LlamaShape llama;
  if (shape.mlp != llama.mlp) w.text("mlp", name_of(kMlpActivationNames, shape.mlp));
  if (shape.norm != llama.norm) w.text("norm", name_of(kDecoderNormNames, shape.norm));
  if (shape.positions != llama.positions) w.text("positions", name_of(kPositionEncodingNames, shape.positions));
  if (shape.bias) w.field("bias", true);
  if (shape.dropout) w.field("dropout", true);
  w.raw() << YAML::EndMap;
}

void write_widths(Writer& w, std::string_view key, const std::vector<std::int64_t>& widths) {
  w.raw() << YAML::Key << std::string(key) << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (std::int64_t width : widths) w.raw() << width;
  w.raw() << YAML::EndSeq;
}

// model.recommendation's shape, every table written out (repeats expanded), so it loads back to the same tables.
void write_recommendation(Writer& w, const RecommendationShape& shape) {
  w.begin_map("recommendation").field("dense_features", shape.dense_features);
  write_widths(w, "bottom_mlp", shape.bottom_mlp);
  w.begin_list("tables", false);
  for (const EmbeddingTable& t : shape.tables) {
    w.raw() << YAML::Flow << YAML::BeginMap;
    w.text("name", t.name).field("rows", t.rows).field("dim", t.dim).field("lookups", t.lookups);
    w.text("pooling", to_string(t.pooling));
    if (t.touched_share) w.text("touched_share", number_text(*t.touched_share));
    if (t.zipf) w.text("zipf", number_text(*t.zipf));
    w.raw() << YAML::EndMap;
  }
  w.raw() << YAML::EndSeq;
  w.text("interaction", to_string(shape.interaction));
  if (shape.interaction == FeatureInteraction::dcn) {
    w.field("cross_layers", shape.cross_layers).field("cross_rank", shape.cross_rank);
  }
  write_widths(w, "top_mlp", shape.top_mlp);
  w.raw() << YAML::EndMap;
}

void write_request(YAML::Emitter& out, const ShardingRequest& request) {
  if (!request) {
    out << "auto";
    return;
  }
  const std::vector<std::int64_t>& ranks = request->ranks;
  const bool open = std::any_of(ranks.begin(), ranks.end(), [](std::int64_t r) { return r < 0; });
  const bool fused = request->kernel == EmbeddingComputeKernel::fused;
  if (fused &&
      (request->type == EmbeddingShardingType::row_wise || request->type == EmbeddingShardingType::data_parallel ||
       (request->type == EmbeddingShardingType::table_wise && open))) {
    out << std::string(to_string(request->type));
    return;
  }
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value << std::string(to_string(request->type));
  if (request->type == EmbeddingShardingType::table_wise) {
    if (!open) out << YAML::Key << "rank" << YAML::Value << ranks.front();
  } else if (request->type == EmbeddingShardingType::column_wise && open) {
    out << YAML::Key << "shards" << YAML::Value << ranks.size();
  } else if (request->type == EmbeddingShardingType::column_wise) {
    out << YAML::Key << "ranks" << YAML::Value << YAML::Flow << ranks;
  }
  if (!fused) {
    out << YAML::Key << "compute_kernel" << YAML::Value << std::string(to_string(request->kernel));
    if (request->kernel == EmbeddingComputeKernel::fused_uvm_caching) {
      out << YAML::Key << "cache_load_factor" << YAML::Value << number_text(request->cache_load_factor);
    }
  }
  out << YAML::EndMap;
}

void write_embedding_keys(Writer& w, const RecommendationConfig& c) {
  w.raw() << YAML::Key << "embedding_sharding" << YAML::Value;
  if (c.sharding.tables.empty()) {
    write_request(w.raw(), c.sharding.all.value);
  } else {
    w.raw() << YAML::BeginMap << YAML::Key << "default" << YAML::Value;
    write_request(w.raw(), c.sharding.all.value);
    for (const auto& [name, request] : c.sharding.tables) {
      w.raw() << YAML::Key << name << YAML::Value;
      write_request(w.raw(), request.value);
    }
    w.raw() << YAML::EndMap;
  }
  w.text("embedding_optimizer", to_string(c.optimizer.value));
}

void write_model(Writer& w, const ModelConfig& model) {
  w.begin_map("model").text("name", model.name.value);
  if (!model.layers.empty()) {
    w.begin_list("layers", false);
    for (const Located<Layer>& located_layer : model.layers) {
      const Layer& layer = located_layer.value;
      w.raw() << YAML::BeginMap;
      w.text("name", layer.name).field("params", layer.params).field("forward_flops", layer.forward_flops);
      w.field("weight_elements_read", layer.weight_elements_read);
      w.field("activation_elements_moved", layer.activation_elements_moved);
      w.field("saved_elements", layer.saved_elements).field("saved_mask_bytes", layer.saved_mask_bytes);
      if (layer.weight_matrices > 0) {
        w.raw() << YAML::Key << "weight_shape" << YAML::Flow << YAML::BeginSeq << layer.weight_rows << layer.weight_cols
                << YAML::EndSeq;
      }
      if (layer.kind != LayerKind::other) w.text("kind", name_of(kLayerKindNames, layer.kind));
      w.raw() << YAML::EndMap;
    }
    w.raw() << YAML::EndSeq;
  }
  if (model.transformer) write_transformer(w, model.transformer->value);
  if (model.recommendation.shape) write_recommendation(w, model.recommendation.shape->value);
  if (model.recommendation.shape || model.recommendation.given) write_embedding_keys(w, model.recommendation);
  if (model.sequence_length && !model.transformer) w.field("sequence_length", model.sequence_length->value);
  if (model.image_size) w.field("image_size", model.image_size->value);
  if (model.transformer) {
    w.text("attention", name_of(kAttentionNames, model.transformer->value.attention));
  } else if (model.attention) {
    w.text("attention", name_of(kAttentionNames, model.attention->value));
  }
  w.field("batch_per_gpu", model.batch_per_gpu.value)
      .text("precision", name_of(kPrecisionNames, model.precision.value));
  // A global batch stands for the micro-batches it derives: written alone, it keeps its meaning at another size.
  if (model.global_batch) {
    w.field("global_batch", model.global_batch->value);
  } else {
    w.field("micro_batches", model.micro_batches);
  }
  w.text("optimizer", name_of(kOptimizerNames, model.optimizer.value));
  if (!model.profile) w.text("backward_factor", number_text(model.backward_factor));  // the profile has backward
  if (model.kernels) w.text("kernels", to_string(model.kernels->value));
  if (model.compile_loss.value) w.field("compile_loss", true);
  if (model.cross_entropy_loss_fusion.value) w.field("cross_entropy_loss_fusion", true);
  w.text("kernel_overhead", duration_text(model.kernel_overhead));
  if (model.efficiency) w.text("efficiency", number_text(*model.efficiency));
  if (model.step_time) w.text("step_time", duration_text(model.step_time->value));
  if (model.profile) w.text("profile", model.profile->value).field("profile_batch", model.profile_batch->value);
  w.raw() << YAML::EndMap;
}

// Written only when on, so scenarios without it read back as they were.
void write_compression(Writer& w, const GradientCompression& c) {
  if (!c.enabled()) return;
  w.begin_map("gradient_compression").text("kind", to_string(c.kind));
  if (c.kind == CompressionKind::powersgd) {
    w.field("rank", c.rank).text("min_compression_rate", number_text(c.min_compression_rate));
  }
  if (c.kind == CompressionKind::topk) w.text("ratio", number_text(c.ratio));
  if (c.kind == CompressionKind::powersgd || c.kind == CompressionKind::topk) {
    w.field("error_feedback", c.error_feedback);
  }
  w.field("start_iteration", c.start_iteration);
  w.raw() << YAML::EndMap;
}

void write_training(Writer& w, const TrainingConfig& t) {
  w.begin_map("training").text("strategy", to_string(t.strategy.value));
  w.text("communication", to_string(t.communication.value));
  const std::optional<Algorithm>& algorithm = t.algorithm.value;
  w.text("algorithm", t.any_algorithm ? "best" : name_of(kAlgorithmChoices, algorithm));
  if (t.channels) w.field("channels", t.channels->value);
  w.text("latency_model", name_of(kLatencyNames, t.latency_model.value));
  w.text("protocol", name_of(kProtocolNames, t.protocol));
  w.text("bucket_size", size_text(t.bucket_size)).field("overlap", t.overlap);
  if (t.framework_overhead) w.text("framework_overhead", duration_text(t.framework_overhead->value));
  if (t.overlap_slowdown) w.text("overlap_slowdown", number_text(t.overlap_slowdown->value));
  w.field("iterations", t.iterations).field("warmup_iterations", t.warmup_iterations);
  if (t.staleness_bound) w.field("staleness_bound", t.staleness_bound->value);
  if (t.sync_every) w.field("sync_every", t.sync_every->value);
  if (t.group_size) w.field("group_size", t.group_size->value);
  write_compression(w, t.gradient_compression.value);
  if (t.communication.value == Communication::parameter_server) {
    const ParameterServerConfig& ps = t.parameter_servers;
    w.begin_map("parameter_servers").field("count", ps.count.value).text("placement", to_string(ps.placement));
    w.text("partition", to_string(ps.partition)).text("per_message", duration_text(ps.per_message));
    w.text("host", to_string(ps.host));
    if (ps.host_memory_bw) w.text("host_memory_bw", bandwidth_text(*ps.host_memory_bw));
    if (ps.nic_bw) w.text("nic_bw", bandwidth_text(*ps.nic_bw));
    if (ps.apply_rate) w.text("apply_rate", bandwidth_text(*ps.apply_rate));
    if (ps.apply_time) w.text("apply_time", duration_text(*ps.apply_time));
    if (ps.dense.value != DenseExchange::allreduce) w.text("dense", to_string(ps.dense.value));
    if (ps.embeddings.value != EmbeddingConsistency::sync) w.text("embeddings", to_string(ps.embeddings.value));
    w.raw() << YAML::EndMap;
  }
  w.raw() << YAML::EndMap;
}

// Written only when it says more than plain data parallelism, so scenarios without it read back as they were.
void write_parallelism(Writer& w, const ParallelismConfig& p) {
  const bool plain = !p.splits() && !p.data && p.schedule.value == PipelineSchedule::one_f_one_b &&
                     p.activation_checkpointing.value == ActivationCheckpointing::none;
  if (plain) return;
  w.begin_map("parallelism").field("tensor", p.tensor.value).field("pipeline", p.pipeline.value);
  w.field("context", p.context.value).field("expert", p.expert.value);
  if (p.data) w.field("data", p.data->value);
  w.text("sharding", name_of(kShardingNames, p.sharding.value));
  if (p.shard_group) w.field("shard_group", p.shard_group->value);
  w.text("schedule", name_of(kScheduleNames, p.schedule.value));
  if (p.virtual_stages) w.field("virtual_stages", p.virtual_stages->value);
  w.text("activation_checkpointing", name_of(kCheckpointingNames, p.activation_checkpointing.value));
  if (p.userbuffers) {
    w.begin_map("tp_comm_overlap");
    for (const auto& [layer, fields] : fields_of(p.userbuffers->value)) {
      w.raw() << YAML::Key << std::string(to_string(layer)) << YAML::Value << YAML::Flow << YAML::BeginMap;
      for (const auto& [key, value] : fields) w.raw() << YAML::Key << std::string(key) << YAML::Value << value;
      w.raw() << YAML::EndMap;
    }
    w.raw() << YAML::EndMap;
  } else if (p.tp_comm_overlap.value) {
    w.field("tp_comm_overlap", true);
  }
  if (!p.sequence_parallel.value) w.field("sequence_parallel", false);
  if (p.fp8_all_gather.value) w.field("fp8_all_gather", true);
  if (!p.grad_reduce_in_fp32.value) w.field("grad_reduce_in_fp32", false);
  if (p.tp_only_amax_red.value) w.field("tp_only_amax_red", true);
  if (p.first_stage_blocks) w.field("decoder_first_pipeline_num_layers", p.first_stage_blocks->value);
  if (p.last_stage_blocks) w.field("decoder_last_pipeline_num_layers", p.last_stage_blocks->value);
  if (p.account_for_embedding.value) w.field("account_for_embedding_in_pipeline_split", true);
  if (p.account_for_loss.value) w.field("account_for_loss_in_pipeline_split", true);
  w.raw() << YAML::EndMap;
}

void write_perturbations(Writer& w, const Scenario& s) {
  w.begin_map("stragglers").begin_map("jitter").text("distribution", to_string(s.stragglers.jitter.distribution));
  w.text("sigma", number_text(s.stragglers.jitter.sigma)).raw() << YAML::EndMap;
  w.begin_list("slow", s.stragglers.slow.empty());
  for (const SlowRank& slow : s.stragglers.slow) {
    w.raw() << YAML::BeginMap;
    w.field("rank", slow.rank.value).text("factor", number_text(slow.factor)).raw() << YAML::EndMap;
  }
  w.raw() << YAML::EndSeq << YAML::EndMap;

  w.begin_list("degraded_links", s.degraded_links.empty());
  for (const LinkDegradation& link : s.degraded_links) {
    w.raw() << YAML::BeginMap;
    write_link(w.raw(), link.between);
    w.text("factor", number_text(link.factor)).text("from", duration_text(link.from));
    if (link.until) w.text("until", duration_text(*link.until));
    w.raw() << YAML::EndMap;
  }
  w.raw() << YAML::EndSeq;

  w.begin_list("faults", s.faults.empty());
  for (const FaultConfig& fault : s.faults) {
    w.raw() << YAML::BeginMap;
    w.text("at", duration_text(fault.at)).text("kind", to_string(fault.kind));
    if (fault.rank) w.field("rank", fault.rank->value);
    if (fault.between) write_link(w.raw(), *fault.between);
    w.text("policy", to_string(fault.policy.value)).raw() << YAML::EndMap;
  }
  w.raw() << YAML::EndSeq;

  w.begin_map("checkpoint");
  if (s.checkpoint.every_iterations) w.field("interval", *s.checkpoint.every_iterations);
  if (s.checkpoint.every) w.text("interval", duration_text(*s.checkpoint.every));
  w.text("restart_cost", duration_text(s.checkpoint.restart_cost));
  if (s.checkpoint.storage_bandwidth) w.text("storage_bandwidth", bandwidth_text(*s.checkpoint.storage_bandwidth));
  if (s.checkpoint.storage_bandwidth_per_node) {
    w.text("storage_bandwidth_per_node", bandwidth_text(*s.checkpoint.storage_bandwidth_per_node));
  }
  if (s.checkpoint.async) w.field("async", true);
  w.raw() << YAML::EndMap;
  w.text("detection_timeout", duration_text(s.detection_timeout));
}

// Rates per hour as `X/h` and the duration in seconds: both parse back to the same doubles.
void write_reliability(Writer& w, const ReliabilityConfig& r) {
  w.begin_map("reliability");
  if (r.default_table) {
    w.text("failures", "default");
  } else {
    const auto rate = [](double per_hour) { return fmt::format("{}/h", per_hour); };
    w.begin_map("failures").text("gpu", rate(r.rates.gpu)).text("hbm", rate(r.rates.hbm));
    w.text("nic", rate(r.rates.nic)).text("switch", rate(r.rates.network_switch)).text("host", rate(r.rates.host));
    w.text("software", rate(r.rates.software)).raw() << YAML::EndMap;
  }
  w.text("duration", fmt::format("{}s", r.duration_seconds)).field("spares", r.spares);
  w.text("swap_time", duration_text(r.swap_time)).text("repair_time", duration_text(r.repair_time));
  w.field("samples", r.samples).raw() << YAML::EndMap;
}

void write_convergence(Writer& w, const ConvergenceConfig& c) {
  w.begin_map("convergence").text("problem", to_string(c.problem));
  w.field("features", c.features).field("classes", c.classes);
  if (c.problem == ProxyProblem::mlp) w.field("hidden", c.hidden);
  w.field("train_samples", c.train_samples).field("eval_samples", c.eval_samples);
  w.text("separation", number_text(c.separation)).field("batch_per_worker", c.batch_per_worker);
  w.text("learning_rate", number_text(c.learning_rate));
  if (c.base_batch) w.field("base_batch", *c.base_batch);
  w.text("lr_scaling", to_string(c.lr_scaling)).field("warmup_updates", c.warmup_updates);
  if (c.target_loss) w.text("target_loss", number_text(c.target_loss->value));
  if (c.eval_every) w.field("eval_every", *c.eval_every);
  w.raw() << YAML::EndMap;
}

}  // namespace

std::string to_yaml(const Scenario& scenario) {
  Writer w;
  w.text("name", scenario.name).field("seed", scenario.seed);
  write_cluster(w, scenario.cluster);
  write_model(w, scenario.model);
  write_training(w, scenario.training);
  write_parallelism(w, scenario.parallelism);
  write_perturbations(w, scenario);
  if (scenario.reliability) write_reliability(w, *scenario.reliability);
  if (scenario.calibration) w.text("calibration", scenario.calibration->value);
  if (scenario.strict_calibration) w.field("strict_calibration", scenario.strict_calibration->value);
  if (scenario.convergence) write_convergence(w, *scenario.convergence);
  return w.finish();
}

}  // namespace syncsim
