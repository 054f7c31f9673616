#include "syncsim/scenario/userbuffers_config.hpp"

#include <fmt/format.h>

#include "enum_names.hpp"

namespace syncsim {

using scenario_detail::kUbLayerNames;
using scenario_detail::kUbMethodNames;
using scenario_detail::name_of;

std::string_view to_string(UbLayer layer) {
  return name_of(kUbLayerNames, layer);
}

std::string_view to_string(UbMethod method) {
  return name_of(kUbMethodNames, method);
}

UbMethod default_method(UbLayer layer) {
  switch (layer) {
    case UbLayer::proj_fprop:
    case UbLayer::fc2_fprop:
      return UbMethod::pipeline;
    case UbLayer::qkv_dgrad:
    case UbLayer::qkv_wgrad:
    case UbLayer::fc1_dgrad:
    case UbLayer::fc1_wgrad:
      return UbMethod::bulk;
    default:
      return UbMethod::ring_exchange;
  }
}

bool scatters(UbLayer layer) {
  return layer == UbLayer::proj_fprop || layer == UbLayer::fc2_fprop || layer == UbLayer::qkv_wgrad ||
         layer == UbLayer::fc1_wgrad;
}

void check_ring_pairs(const Located<UserbuffersConfig>& config, std::int64_t tensor) {
  if (tensor % 2 == 0) return;
  for (const auto& [name, layer] : kUbLayerNames) {
    if (config.value[layer] && config.value[layer]->aggregate.value_or(false)) {
      throw config.error(fmt::format("{}: aggregate pairs a ring's chunks, and tensor {} is odd", name, tensor));
    }
  }
}

std::optional<std::string> userbuffers_sms_error(const UserbuffersConfig& config, std::int64_t gpu_sms,
                                                 std::string_view gpu) {
  for (const auto& [name, layer] : kUbLayerNames) {
    const std::optional<UbLayerSettings>& s = config[layer];
    if (s && s->num_sm && *s->num_sm >= gpu_sms) {
      return fmt::format("{}: num_sm {} leaves no SM to the GEMM beside it on the {} ({} SMs); expected at most {}",
                         name, *s->num_sm, gpu, gpu_sms, gpu_sms - 1);
    }
  }
  return std::nullopt;
}

const UserbuffersConfig& nemo_h100_userbuffers() {
  // Launcher 24.07's ub_cfg_h100_h8192_tp4_mbs1_seqlen4096 (Llama 2 70B), ..._seqlen8192 (Llama 3 70B) and
  // ub_cfg_h100_h12288_tp4_mbs1_seqlen2048 (GPT-3 175B): where they differ, the value two of them give (qkv_dgrad
  // 4 SMs, where Llama 2's gives 8; fc2_fprop 16, where GPT-3's gives 20; fc2_dgrad's ring in pairs, as Llama 2's
  // and GPT-3's set it), and where all three differ the middle one (qkv_wgrad 16 of 8, 16 and 24).
  static const UserbuffersConfig config = [] {
    UserbuffersConfig c;
    const auto set = [&](UbLayer layer, UbLayerSettings s) { c.layers[static_cast<std::size_t>(layer)] = s; };
    const auto ring = UbLayerSettings{.method = UbMethod::ring_exchange, .aggregate = false};
    const auto pipeline = [](std::int64_t sms) {
      return UbLayerSettings{
          .method = UbMethod::pipeline, .num_sm = sms, .cga_size = 2, .num_splits = 4, .set_sm_margin = true};
    };
    const auto bulk = [](std::int64_t sms) {
      return UbLayerSettings{.method = UbMethod::bulk, .num_sm = sms, .cga_size = 2, .set_sm_margin = false};
    };
    set(UbLayer::qkv_fprop, ring);
    set(UbLayer::proj_fprop, pipeline(24));
    set(UbLayer::fc1_fprop, ring);
    set(UbLayer::fc2_fprop, pipeline(16));
    set(UbLayer::qkv_dgrad, bulk(4));
    set(UbLayer::qkv_wgrad, bulk(16));
    set(UbLayer::proj_dgrad, ring);
    set(UbLayer::fc1_dgrad, bulk(2));
    set(UbLayer::fc1_wgrad, bulk(4));
    set(UbLayer::fc2_dgrad, UbLayerSettings{.method = UbMethod::ring_exchange, .aggregate = true});
    return c;
  }();
  return config;
}

std::vector<std::pair<UbLayer, UbFields>> fields_of(const UserbuffersConfig& config) {
  std::vector<std::pair<UbLayer, UbFields>> out;
  for (const auto& [name, layer] : kUbLayerNames) {
    const std::optional<UbLayerSettings>& s = config[layer];
    if (!s) continue;
    UbFields f;
    const auto flag = [](bool value) { return std::string(value ? "true" : "false"); };
    if (s->method) f.emplace_back("method", std::string(to_string(*s->method)));
    if (s->num_sm) f.emplace_back("num_sm", std::to_string(*s->num_sm));
    if (s->cga_size) f.emplace_back("cga_size", std::to_string(*s->cga_size));
    if (s->num_splits) f.emplace_back("num_splits", std::to_string(*s->num_splits));
    if (s->set_sm_margin) f.emplace_back("set_sm_margin", flag(*s->set_sm_margin));
    if (s->aggregate) f.emplace_back("aggregate", flag(*s->aggregate));
    if (s->atomic_gemm) f.emplace_back("atomic_gemm", flag(*s->atomic_gemm));
    if (s->use_ce) f.emplace_back("use_ce", flag(*s->use_ce));
    if (s->fp8_buf) f.emplace_back("fp8_buf", flag(*s->fp8_buf));
    out.emplace_back(layer, std::move(f));
  }
  return out;
}

std::string to_flow_yaml(const UserbuffersConfig& config) {
  std::string out;
  for (const auto& [layer, fields] : fields_of(config)) {
    std::string keys;
    for (const auto& [key, value] : fields) keys += fmt::format("{}{}: {}", keys.empty() ? "" : ", ", key, value);
    out += fmt::format("{}{}: {{{}}}", out.empty() ? "" : ", ", to_string(layer), keys);
  }
  return "{" + out + "}";
}

}  // namespace syncsim
