// parallelism.tp_comm_overlap as a mapping (userbuffers_config.hpp): Transformer Engine's ub_cfgs, read with TE's
// names and keys, its 0/1 flags included, and refused at the key where TE refuses it or syncsim does not simulate it.
#include <fmt/format.h>

#include "enum_names.hpp"
#include "field_reader.hpp"
#include "sections.hpp"
#include "syncsim/core/input_file.hpp"

namespace syncsim::scenario_detail {

namespace {

// Beyond any GPU's SMs and any useful split: refused before they reach the model.
constexpr std::int64_t kMaxSms = 1024;
constexpr std::int64_t kMaxSplits = 1024;
constexpr std::int64_t kMaxClusterSize = 16;  // a thread-block cluster's CTAs (Hopper's non-portable limit)
// A userbuffers file is ten short mappings (NeMo's are under 1 KB).
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 20;

// TE's files write their flags 0 or 1; true and false read too.
bool read_flag(const ConfigNode& node, const std::string& path) {
  if (node.kind == ConfigNode::Kind::scalar && node.plain && (node.text == "0" || node.text == "1")) {
    return node.text == "1";
  }
  if (node.kind == ConfigNode::Kind::scalar && node.plain && !bool_text(node.text)) {
    fail(node, path, fmt::format("expected 0, 1, true or false, got '{}'", node.text));
  }
  return read_bool(node, path);
}

std::int64_t read_bounded(const ConfigNode& node, const std::string& path, std::int64_t most, std::string_view what) {
  const std::int64_t value = read_count(node, path, 1);
  if (value > most) fail(node, path, fmt::format("expected at most {} {}, got {}", most, what, value));
  return value;
}

UbLayerSettings read_layer(const ConfigNode& node, const std::string& path, UbLayer layer) {
  const MapReader reader(
      node, path,
      {"method", "num_sm", "cga_size", "set_sm_margin", "num_splits", "aggregate", "atomic_gemm", "use_ce", "fp8_buf"});
  UbLayerSettings s;
  if (const ConfigNode* method = reader.get("method"))
    s.method = read_choice(*method, reader.path("method"), kUbMethodNames);
  if (const ConfigNode* n = reader.get("num_sm")) s.num_sm = read_bounded(*n, reader.path("num_sm"), kMaxSms, "SMs");
  if (const ConfigNode* n = reader.get("cga_size")) {
    s.cga_size = read_bounded(*n, reader.path("cga_size"), kMaxClusterSize, "thread blocks in a cluster");
  }
  if (const ConfigNode* n = reader.get("num_splits")) {
    s.num_splits = read_bounded(*n, reader.path("num_splits"), kMaxSplits, "splits");
  }
  for (const auto& [key, field] :
       {std::pair{"set_sm_margin", &s.set_sm_margin}, std::pair{"aggregate", &s.aggregate},
        std::pair{"atomic_gemm", &s.atomic_gemm}, std::pair{"use_ce", &s.use_ce}, std::pair{"fp8_buf", &s.fp8_buf}}) {
    if (const ConfigNode* flag = reader.get(key)) *field = read_flag(*flag, reader.path(key));
  }
  const UbMethod method = s.method.value_or(default_method(layer));
  const auto refuse = [&](std::string_view key, const std::string& message) {
    const ConfigNode* at = reader.get(key);
    fail(at ? *at : node, at ? reader.path(key) : path, message);
  };
  const bool bulk_layer = default_method(layer) == UbMethod::bulk;
  if (method == UbMethod::pipeline && !scatters(layer)) {
    refuse("method", fmt::format("Transformer Engine refuses the pipeline method for an all-gather ({} gathers; "
                                 "initialize_ub allows it for reduce-scatters only)",
                                 to_string(layer)));
  }
  if (bulk_layer && method != UbMethod::bulk) {
    refuse("method", fmt::format("{} beside its product is not simulated: Transformer Engine then overlaps the data "
                                 "gradient's reduce-scatter with the data-gradient product instead of the weight "
                                 "gradient's; syncsim runs {} in bulk only",
                                 to_string(method), to_string(layer)));
  }
  if (!bulk_layer && method == UbMethod::bulk) {
    refuse("method",
           fmt::format("a bulk {} beside the product that {} it is not simulated: {} runs as a "
                       "ring_exchange{}",
                       scatters(layer) ? "reduce-scatter" : "all-gather", scatters(layer) ? "produces" : "consumes",
                       to_string(layer), scatters(layer) ? " or a pipeline" : ""));
  }
  if (s.atomic_gemm.value_or(false)) {
    refuse("atomic_gemm", "Transformer Engine's atomic GEMM overlap (a beta cuBLAS API, FP8 only) is not simulated");
  }
  if (s.set_sm_margin.value_or(false) && method != UbMethod::pipeline) {
    refuse("set_sm_margin", fmt::format("the GEMM on the SMs a {} collective leaves is not simulated; set_sm_margin "
                                        "is simulated for the pipelined reduce-scatters",
                                        to_string(method)));
  }
  if (s.aggregate.value_or(false) && (method != UbMethod::ring_exchange || scatters(layer))) {
    // Only a reduce-scatter or a bulk all-gather gets here: the checks above refuse the other methods' all-gathers.
    refuse("aggregate", fmt::format("aggregate pairs the chunks of a ring-exchange all-gather; {} is {} (Transformer "
                                    "Engine ignores it there)",
                                    to_string(layer), scatters(layer) ? "a reduce-scatter" : "a bulk all-gather"));
  }
  return s;
}

}  // namespace

UserbuffersConfig read_userbuffers_file(const ConfigNode& node, const std::string& path,
                                        const std::filesystem::path& base_dir) {
  std::filesystem::path file(read_text(node, path, "the path of a userbuffers file"));
  if (file.is_relative() && !base_dir.empty()) file = (base_dir / file).lexically_normal();
  const ConfigNode root = parse_config(read_input_file(file, "userbuffers file", kMaxFileBytes), file.string());
  if (root.kind != ConfigNode::Kind::mapping) {
    fail(root, "",
         fmt::format("expected Transformer Engine's userbuffers configuration (a mapping of its layer names), "
                     "got {}",
                     describe(root)));
  }
  return read_userbuffers(root, "");
}

UserbuffersConfig read_userbuffers(const ConfigNode& node, const std::string& path) {
  const MapReader reader(node, path,
                         {"qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop", "qkv_dgrad", "qkv_wgrad", "proj_dgrad",
                          "fc1_dgrad", "fc1_wgrad", "fc2_dgrad"});
  UserbuffersConfig config;
  for (const auto& [name, layer] : kUbLayerNames) {
    // `name:` alone reads as left out: TE's defaults either way.
    if (const ConfigNode* settings = reader.get(name)) {
      config.layers[static_cast<std::size_t>(layer)] = read_layer(*settings, reader.path(name), layer);
    }
  }
  return config;
}

}  // namespace syncsim::scenario_detail
