#pragma once
// parallelism.tp_comm_overlap given as a mapping: Transformer Engine's userbuffers configuration, the `ub_cfgs` TE's
// initialize_ub takes (v1.8, transformer_engine/pytorch/module/base.py) and NeMo's conf/training/tp_overlap/ub_cfg_*
// files write, layer by layer:
//
//   tp_comm_overlap:
//     qkv_dgrad: {method: bulk, num_sm: 4, cga_size: 2, set_sm_margin: 0}
//     proj_fprop: {method: pipeline, num_sm: 24, cga_size: 2, num_splits: 4, set_sm_margin: 1}
//     fc2_dgrad: {method: ring_exchange, aggregate: 1}
//
// A layer the mapping leaves out, and a key a layer leaves out, take TE's defaults, as TE gives them
// (run/tensor_overlap.hpp times each). `tp_comm_overlap: true` is NeMo 24.07's H100 configuration instead
// (nemo_h100_userbuffers), the values the launcher's three H100 files share.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "syncsim/scenario/located.hpp"

namespace syncsim {

// TE's ten overlapped GEMMs, in this order: the forward's four (the input's all-gathers before QKV and FC1, the
// output's reduce-scatters after the projection and FC2), then the backward's six.
enum class UbLayer {
  qkv_fprop,
  proj_fprop,
  fc1_fprop,
  fc2_fprop,
  qkv_dgrad,
  qkv_wgrad,
  proj_dgrad,
  fc1_dgrad,
  fc1_wgrad,
  fc2_dgrad
};
inline constexpr std::size_t kUbLayers = 10;
std::string_view to_string(UbLayer layer);
// TE's own method for the layer when the configuration names none.
enum class UbMethod { ring_exchange, pipeline, bulk };
std::string_view to_string(UbMethod method);
UbMethod default_method(UbLayer layer);
// The layers whose collective is a reduce-scatter (TE's layers_reduce_scatter_overlap): the rest all-gather.
bool scatters(UbLayer layer);

// One layer's keys as given (TE 1.8's), each nullopt where the configuration leaves it to TE.
struct UbLayerSettings {
  std::optional<UbMethod> method = std::nullopt;
  std::optional<std::int64_t> num_sm =
      std::nullopt;  // SMs of the collective's kernels (TE: 1 for a ring, 16 otherwise)
  std::optional<std::int64_t> cga_size = std::nullopt;    // their thread-block cluster: read, not modelled
  std::optional<std::int64_t> num_splits = std::nullopt;  // a pipeline's chunks (TE: 4)
  std::optional<bool> set_sm_margin = std::nullopt;       // the GEMM runs on the SMs the collective leaves (TE: off)
  std::optional<bool> aggregate = std::nullopt;           // a ring exchange's chunks in pairs (TE: off)
  std::optional<bool> atomic_gemm = std::nullopt;         // only off is simulated
  std::optional<bool> use_ce = std::nullopt;              // a ring's copies on the copy engines (TE: on)
  std::optional<bool> fp8_buf = std::nullopt;  // a pipeline's reduce-scatter in FP8 under model.precision fp8
  bool operator==(const UbLayerSettings&) const = default;
};

struct UserbuffersConfig {
  std::array<std::optional<UbLayerSettings>, kUbLayers> layers{};  // by UbLayer; nullopt: not in the mapping
  bool operator==(const UserbuffersConfig&) const = default;
  const std::optional<UbLayerSettings>& operator[](UbLayer layer) const {
    return layers[static_cast<std::size_t>(layer)];
  }
};

// Throws at the configuration where a ring in pairs (`aggregate`) would run on an odd tensor group, which TE cannot
// pair.
void check_ring_pairs(const Located<UserbuffersConfig>& config, std::int64_t tensor);
// What is wrong where a layer's collective would hold every SM of a GPU with `gpu_sms` of them (`gpu` names it), or
// nullopt: under set_sm_margin TE's GEMM gets the SMs less num_sm (comm_gemm_overlap's math SMs, none left), and
// otherwise the collective's kernels would fill the GPU with nothing beside them, which is no overlap.
std::optional<std::string> userbuffers_sms_error(const UserbuffersConfig& config, std::int64_t gpu_sms,
                                                 std::string_view gpu);

// NeMo 24.07's H100 configuration (validation/sources/llm-runs.md, "Userbuffers TP-overlap layer names"): what
// `tp_comm_overlap: true` runs in Megatron's layouts.
const UserbuffersConfig& nemo_h100_userbuffers();

// The keys each given layer sets, as YAML scalars, layers and keys in TE's order: what the resolved scenario writes.
using UbFields = std::vector<std::pair<std::string_view, std::string>>;
std::vector<std::pair<UbLayer, UbFields>> fields_of(const UserbuffersConfig& config);
// The same as one line of flow YAML: what a layout's overrides write, and what reads back as the same configuration.
std::string to_flow_yaml(const UserbuffersConfig& config);

}  // namespace syncsim
