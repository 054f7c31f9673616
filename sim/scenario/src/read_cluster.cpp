// The `cluster:` section: GPU (catalog name or inline), topology (spec string or mapping), workers, speed spread.
#include <fmt/format.h>

#include <filesystem>

#include "field_reader.hpp"
#include "sections.hpp"
#include "syncsim/compute/gpu_profile.hpp"

namespace syncsim::scenario_detail {

namespace {

// A position inside a spec string (column 1 = its first character) as a position in the file.
SourceLocation in_file(const ConfigNode& node, const SourceLocation& in_string) {
  if (node.where.line == 0 || in_string.column == 0) return node.where;
  const int quote = node.plain ? 0 : 1;
  return SourceLocation{node.where.source, node.where.line, node.where.column + quote + in_string.column - 1};
}

TopologySpec spec_from_string(const ConfigNode& node, const std::string& path) {
  try {
    TopologySpec spec = parse_topology_spec(node.text, node.where.source);
    spec.location = in_file(node, spec.location);
    for (auto& [key, where] : spec.param_locations) where = in_file(node, where);
    return spec;
  } catch (const InputError& error) {
    const SourceLocation where = error.where() ? in_file(node, *error.where()) : node.where;
    throw InputError(error.message(), where, error.key().empty() ? path : child_path(path, error.key()));
  }
}

TopologySpec spec_from_mapping(const ConfigNode& node, const std::string& path) {
  TopologySpec spec;
  const ConfigNode* kind = node.find("kind");
  if (kind == nullptr || kind->kind == ConfigNode::Kind::null) {
    throw InputError("missing required key 'kind' (a topology kind such as dgx, fattree, switch or file)", node.where,
                     child_path(path, "kind"));
  }
  spec.kind = read_text(*kind, child_path(path, "kind"));
  spec.location = kind->where;
  for (const ConfigEntry& entry : node.entries) {
    if (entry.key == "kind" || entry.value.kind == ConfigNode::Kind::null) continue;
    if (entry.value.kind != ConfigNode::Kind::scalar) {
      fail(entry.value, child_path(path, entry.key),
           fmt::format("expected a value like 8 or 100Gbps, got {}", describe(entry.value)));
    }
    spec.params.emplace(entry.key, entry.value.text);
    spec.param_locations.emplace(entry.key, entry.value.where);
  }
  return spec;
}

TopologySpec read_topology(const ConfigNode& node, const std::string& path, const std::filesystem::path& base_dir) {
  TopologySpec spec;
  if (node.kind == ConfigNode::Kind::scalar) {
    spec = spec_from_string(node, path);
  } else if (node.kind == ConfigNode::Kind::mapping) {
    spec = spec_from_mapping(node, path);
  } else {
    fail(node, path,
         fmt::format("expected a spec like \"dgx:nodes=4\" or a mapping {{kind: dgx, nodes: 4}}, got {}",
                     describe(node)));
  }
  // A topology file next to the scenario is found from wherever the scenario is run. Made absolute: the file
  // generator resolves a relative path written in a file against that file's folder, which would apply the
  // scenario's folder a second time (examples/examples/...).
  const auto file = spec.params.find("path");
  if (spec.kind == "file" && file != spec.params.end() && !base_dir.empty()) {
    const std::filesystem::path given(file->second);
    if (given.is_relative()) file->second = std::filesystem::absolute(base_dir / given).lexically_normal().string();
  }
  return spec;
}

// Peaks in TFLOP/s: one number for fp32, tf32, fp16 and bf16, or a mapping by precision with fp32 required (a GPU
// without tensor cores runs tf32 as fp32; one without fp16 or bf16 arithmetic leaves them out). The scaled formats
// (fp8, mxfp8, nvfp4, mxfp4) come only from the mapping: one number says nothing of them.
PrecisionPeaks read_peaks(const ConfigNode& node, const std::string& path) {
  constexpr std::string_view kRange = "a peak above zero in TFLOP/s";
  constexpr double kTera = 1e12;
  if (node.kind == ConfigNode::Kind::scalar) {
    const double peak = read_number_in(node, path, 0, 1e9, true, kRange) * kTera;
    return PrecisionPeaks{peak, peak, peak, peak};
  }
  const MapReader reader(node, path, {"fp32", "tf32", "fp16", "bf16", "fp8", "mxfp8", "nvfp4", "mxfp4"});
  const auto peak = [&](std::string_view key) -> std::optional<double> {
    const ConfigNode* value = reader.get(key);
    if (value == nullptr) return std::nullopt;
    return read_number_in(*value, reader.path(key), 0, 1e9, true, kRange) * kTera;
  };
  PrecisionPeaks peaks;
  reader.require("fp32", "every GPU runs fp32");
  peaks.fp32 = *peak("fp32");
  peaks.tf32 = peak("tf32");
  peaks.fp16 = peak("fp16");
  peaks.bf16 = peak("bf16");
  peaks.fp8 = peak("fp8");
  peaks.mxfp8 = peak("mxfp8");
  peaks.nvfp4 = peak("nvfp4");
  peaks.mxfp4 = peak("mxfp4");
  return peaks;
}

// `gpu: {profile: FILE}` (and `mem` for a device the catalog does not know): the GPU as syncsim-bench-nccl
// --compute measured it.
GpuConfig read_gpu_profile_config(const MapReader& reader, const ConfigNode& node, const std::string& path,
                                  const std::filesystem::path& base_dir) {
  for (const char* excluded : {"name", "peak_tflops", "mem_bw"}) {
    if (const ConfigNode* other = reader.get(excluded)) {
      fail(*other, reader.path(excluded), "comes from the GPU profile: remove it, or the profile");
    }
  }
  const ConfigNode& profile = *reader.get("profile");
  std::filesystem::path file(read_text(profile, reader.path("profile"), "a file path"));
  if (file.is_relative() && !base_dir.empty()) file = (base_dir / file).lexically_normal();
  std::optional<Bytes> memory;
  if (const ConfigNode* mem = reader.get("mem")) {
    memory = read_size(*mem, reader.path("mem"));
    if (memory->value <= 0) fail(*mem, reader.path("mem"), "expected a memory size above zero");
  }
  GpuConfig gpu;
  gpu.profile = located(file.string(), profile, reader.path("profile"));
  try {
    gpu.inline_spec = read_gpu_profile(file, memory);
  } catch (const InputError& error) {
    if (error.where() && error.where()->line > 0) throw;  // at its place in the profile (nested too deep)
    fail(profile, reader.path("profile"), fmt::format("{}: {}", file.string(), error.message()));
  }
  gpu.name = located(gpu.inline_spec->name, node, path);
  return gpu;
}

// Watts: a number, or one with a W suffix ("500W", "500 W").
constexpr double kMaxWatts = 100'000;
Located<double> read_power(const ConfigNode& node, const std::string& path) {
  std::string text = node.text;
  if (!text.empty() && (text.back() == 'W' || text.back() == 'w')) text.pop_back();
  ConfigNode number = node;
  number.text = text;
  while (!number.text.empty() && number.text.back() == ' ') number.text.pop_back();
  const double watts = read_number_in(number, path, 0, kMaxWatts, true, "a board power like 500W, in (0, 100000] W");
  return located(watts, node, path);
}

GpuConfig read_gpu(const ConfigNode& node, const std::string& path, const std::filesystem::path& base_dir) {
  GpuConfig gpu;
  if (node.kind == ConfigNode::Kind::scalar) {
    gpu.name = located(node.text, node, path);
    return gpu;
  }
  if (node.kind != ConfigNode::Kind::mapping) {
    fail(node, path, fmt::format("expected a GPU name like A100-SXM4-80GB or a mapping, got {}", describe(node)));
  }
  const MapReader reader(node, path, {"name", "peak_tflops", "mem_bw", "mem", "profile", "power_limit"});
  if (reader.get("profile")) {
    if (const ConfigNode* power = reader.get("power_limit")) {
      fail(*power, reader.path("power_limit"), "caps a catalog GPU: a profile measured its own clocks");
    }
    return read_gpu_profile_config(reader, node, path, base_dir);
  }
  const ConfigNode* name = reader.get("name");
  if (const ConfigNode* power = reader.get("power_limit")) {
    // A catalog GPU under a cap: the name alone, no inline numbers.
    for (const char* excluded : {"peak_tflops", "mem_bw", "mem"}) {
      if (const ConfigNode* other = reader.get(excluded)) {
        fail(*other, reader.path(excluded), "defines an inline GPU; power_limit caps a catalog one");
      }
    }
    const ConfigNode& named = reader.require("name", "the catalog GPU the power limit caps");
    gpu.name = located(read_text(named, reader.path("name")), named, reader.path("name"));
    gpu.power_limit = read_power(*power, reader.path("power_limit"));
    return gpu;
  }
  gpu.name = name ? located(read_text(*name, reader.path("name")), *name, reader.path("name"))
                  : reader.defaulted("name", std::string("custom-gpu"));
  const PrecisionPeaks peaks =
      read_peaks(reader.require("peak_tflops", "an inline GPU needs its peaks"), reader.path("peak_tflops"));
  const Bandwidth mem_bw =
      read_bandwidth(reader.require("mem_bw", "an inline GPU needs its memory bandwidth"), reader.path("mem_bw"));
  const ConfigNode& mem = reader.require("mem", "an inline GPU needs its memory size");
  const Bytes size = read_size(mem, reader.path("mem"));
  if (size.value <= 0) fail(mem, reader.path("mem"), "expected a memory size above zero");
  try {
    gpu.inline_spec = make_gpu_spec(gpu.name.value, peaks, mem_bw, size);
  } catch (const InputError& error) {
    fail(node, path, error.message());
  }
  return gpu;
}

}  // namespace

ConfigNode topology_string_to_mapping(const ConfigNode& node, const std::string& path) {
  const TopologySpec spec = spec_from_string(node, path);
  ConfigNode mapping;
  mapping.kind = ConfigNode::Kind::mapping;
  mapping.where = node.where;
  const auto scalar = [](std::string text, SourceLocation where) {
    ConfigNode value;
    value.kind = ConfigNode::Kind::scalar;
    value.text = std::move(text);
    value.where = std::move(where);
    return value;
  };
  mapping.entries.push_back(ConfigEntry{"kind", spec.location, scalar(spec.kind, spec.location)});
  for (const auto& [key, text] : spec.params) {
    const SourceLocation& where = spec.param_locations.at(key);
    mapping.entries.push_back(ConfigEntry{key, where, scalar(text, where)});
  }
  return mapping;
}

ClusterConfig read_cluster(const ConfigNode& node, const std::filesystem::path& base_dir) {
  const MapReader reader(node, "cluster", {"gpu", "topology", "workers", "speed_spread"});
  ClusterConfig cluster;
  cluster.gpu =
      read_gpu(reader.require("gpu", "a catalog name like A100-SXM4-80GB, or a mapping"), reader.path("gpu"), base_dir);
  cluster.topology = read_topology(reader.require("topology", "a spec like \"dgx:nodes=4\" or a mapping"),
                                   reader.path("topology"), base_dir);
  if (const ConfigNode* workers = reader.get("workers")) {
    cluster.workers = located(read_count(*workers, reader.path("workers"), 1), *workers, reader.path("workers"));
  }
  if (const ConfigNode* spread = reader.get("speed_spread")) {
    cluster.speed_spread =
        located(read_number_in(*spread, reader.path("speed_spread"), 0, kMaxSpeedSpread, false,
                               fmt::format("a fraction of the median chip's speed from 0 to {}", kMaxSpeedSpread)),
                *spread, reader.path("speed_spread"));
  }
  return cluster;
}

}  // namespace syncsim::scenario_detail
