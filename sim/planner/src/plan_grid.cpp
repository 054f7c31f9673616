#include "syncsim/planner/plan_grid.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/planner/sweep_table.hpp"
#include "syncsim/run/gpu_node.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim::planner {

namespace {

constexpr std::int64_t kMaxPlanGpus = 1 << 20;
constexpr std::int64_t kDgxDefaultGpusPerNode = 8;  // dgx.cpp's default

std::int64_t count_at(const std::string& text, const char* flag) {
  try {
    return parse_count(text);
  } catch (const InputError& e) {
    throw InputError(e.message(), SourceLocation{flag});
  }
}

std::string spec_text(const TopologySpec& spec) {
  std::string out = spec.kind + ":";
  bool first = true;
  for (const auto& [key, value] : spec.params) {
    out += fmt::format("{}{}={}", first ? "" : ",", key, value);
    first = false;
  }
  return out;
}

// The overrides that make `kind` a topology of n GPUs; `params` are the spec's (to read dgx's gpus per node).
std::vector<std::string> size_overrides(const std::string& kind, const std::map<std::string, std::string>& params,
                                        std::int64_t n, std::optional<std::size_t> file_gpus,
                                        const std::string& label) {
  if (kind == "dgx") {
    const auto it = params.find("gpus");
    const std::int64_t per_node = it == params.end() ? kDgxDefaultGpusPerNode : count_at(it->second, "--networks");
    // Checked here, before dividing by it: the dgx generator would reject it too, but only after this division.
    if (per_node < 1) {
      throw InputError(fmt::format("network '{}': a DGX node needs at least 1 GPU, got {}", label, per_node),
                       SourceLocation{"--networks"}, "gpus");
    }
    // ceil(n / per_node) without n + per_node - 1, which overflows for a per_node near 2^63 (n >= 1).
    return {fmt::format("cluster.topology.nodes={}", (n - 1) / per_node + 1)};
  }
  if (kind == "ring" || kind == "mesh" || kind == "switch" || kind == "fattree") {
    return {fmt::format("cluster.topology.n={}", n)};
  }
  if (kind == "file") {
    if (file_gpus && static_cast<std::size_t>(n) > *file_gpus) {
      throw InputError(fmt::format("{} GPUs asked, but network '{}' (a topology file) has {}", n, label, *file_gpus),
                       SourceLocation{"--gpus"});
    }
    return {};
  }
  throw InputError(fmt::format("cannot resize a '{}' topology (network '{}') to a GPU count; give --networks of "
                               "kind dgx, fattree, switch, ring, mesh or file",
                               kind, label),
                   SourceLocation{"--gpus"});
}

}  // namespace

std::string scenario_gpu_name(const Scenario& s) {
  if (s.cluster.gpu.inline_spec) return s.cluster.gpu.name.value;
  try {
    return find_gpu(s.cluster.gpu.name.value).name;
  } catch (const InputError& e) {
    throw s.cluster.gpu.name.error(e.message());
  }
}

std::string topology_override(const TopologySpec& spec) {
  return "cluster.topology=" + spec_text(spec);
}

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      out.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::int64_t> parse_gpu_counts(std::string_view text) {
  const InputError empty("empty: expected MIN:MAX[:FACTOR] (8:1024) or a list (16,32)", SourceLocation{"--gpus"});
  if (text.empty()) throw empty;
  std::vector<std::int64_t> out;
  if (text.find(':') == std::string_view::npos) {
    for (const std::string& part : split_list(text, ',')) out.push_back(count_at(part, "--gpus"));
  } else {
    const std::vector<std::string> parts = split_list(text, ':');
    if (parts.size() > 3) throw empty;
    const std::int64_t lo = count_at(parts[0], "--gpus");
    const std::int64_t hi = count_at(parts[1], "--gpus");
    const std::int64_t factor = parts.size() == 3 ? count_at(parts[2], "--gpus") : 2;
    if (factor < 2)
      throw InputError("the factor must be at least 2, or the range does not advance", SourceLocation{"--gpus"});
    if (hi < lo) throw InputError(fmt::format("empty range: {} is below {}", hi, lo), SourceLocation{"--gpus"});
    // Bounds first: from 0 or below, multiplying never reaches `hi` (an endless loop filling memory), and beyond
    // 2^63 / factor the next step overflows.
    for (const std::int64_t end : {lo, hi}) {
      if (end < 1 || end > kMaxPlanGpus)
        throw InputError(fmt::format("{} GPUs is out of range (1 to {})", end, kMaxPlanGpus), SourceLocation{"--gpus"});
    }
    for (std::int64_t n = lo;; n *= factor) {
      out.push_back(n);
      if (n > hi / factor) break;
    }
  }
  std::set<std::int64_t> seen;
  for (std::int64_t n : out) {
    if (n < 1 || n > kMaxPlanGpus)
      throw InputError(fmt::format("{} GPUs is out of range (1 to {})", n, kMaxPlanGpus), SourceLocation{"--gpus"});
    if (!seen.insert(n).second) throw InputError(fmt::format("{} GPUs given twice", n), SourceLocation{"--gpus"});
  }
  return out;
}

std::vector<std::string> parse_gpu_types(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  std::map<std::string, std::string> spelling;  // canonical name -> as the user first wrote it
  for (const std::string& arg : args) {
    for (const std::string& name : split_list(arg, ',')) {
      if (name.empty()) throw InputError("empty GPU name", SourceLocation{"--gpu-types"});
      std::string canonical;
      try {
        canonical = find_gpu(name).name;
      } catch (const InputError& e) {
        throw InputError(e.message(), SourceLocation{"--gpu-types"});
      }
      // Aliases (a100-80gb) name a catalog GPU too: the same GPU twice would be planned, and priced, twice.
      const auto [it, first] = spelling.emplace(canonical, name);
      if (!first) {
        const std::string why =
            it->second == name ? std::string() : fmt::format(": '{}' and '{}' name the same GPU", it->second, name);
        throw InputError(fmt::format("{} given twice{}", canonical, why), SourceLocation{"--gpu-types"});
      }
      out.push_back(std::move(canonical));
    }
  }
  return out;
}

std::vector<PlanNetwork> parse_networks(const std::vector<std::string>& args) {
  std::vector<PlanNetwork> out;
  std::set<std::string> labels;
  for (const std::string& arg : args) {
    for (const std::string& item : split_list(arg, ';')) {
      if (item.empty()) throw InputError("empty network spec", SourceLocation{"--networks"});
      // NAME=SPEC when an '=' comes before the spec's ':' (a bare spec has its ':' first).
      const auto eq = item.find('=');
      const auto colon = item.find(':');
      const bool named = eq != std::string::npos && (colon == std::string::npos || eq < colon);
      const std::string label = named ? item.substr(0, eq) : item;
      if (named && label.find_first_not_of(" \t") == std::string::npos) {
        throw InputError(fmt::format("no network name before '=' in '{}' (NAME=SPEC, or the spec alone)", item),
                         SourceLocation{"--networks"});
      }
      TopologySpec spec = parse_topology_spec(named ? item.substr(eq + 1) : item, "--networks");
      if (spec.kind == "file") {
        // The scenario resolves relative paths against its own folder; a path on the command line is the shell's.
        auto path = spec.params.find("path");
        if (path != spec.params.end()) path->second = std::filesystem::absolute(path->second).string();
      }
      if (!labels.insert(label).second) {
        throw InputError(fmt::format("network '{}' given twice", label), SourceLocation{"--networks"});
      }
      out.push_back({label, std::move(spec)});
    }
  }
  return out;
}

std::vector<SweepPoint> plan_points(const Scenario& base, const PlanGrid& grid) {
  std::vector<SweepPoint> points;
  for (const PlanNetwork& net : grid.networks) {
    const TopologySpec& spec = net.spec ? *net.spec : base.cluster.topology;
    std::optional<std::size_t> file_gpus;
    if (spec.kind == "file") {
      Scenario probe = base;
      probe.cluster.topology = spec;
      file_gpus = scenario_topology(probe)->gpu_count();  // the base's own topology is not built again
    }
    for (const std::string& gpu : grid.gpu_types) {
      if (base.model.step_time && gpu != base.cluster.gpu.name.value) {
        // The measurement is of the scenario's GPU: fitting another GPU's roofline to it would predict that GPU
        // as fast as the measured one.
        throw base.model.step_time->error(fmt::format(
            "a step time measured on {} cannot stand for {}: plan one GPU type, or give model.efficiency instead",
            base.cluster.gpu.name.value, gpu));
      }
      if (base.model.profile && gpu != base.cluster.gpu.name.value) {
        throw base.model.profile->error(
            fmt::format("a profile taken on {} cannot stand for {}: plan one GPU type, or leave model.profile out",
                        base.cluster.gpu.name.value, gpu));
      }
      // Each point's GPU brings its own node rates where the fabric leaves them out, as every run resolves them
      // (run/gpu_node.hpp): the plan and `syncsim run` of the same point simulate the same machine.
      const bool catalog = !base.cluster.gpu.inline_spec || gpu != base.cluster.gpu.name.value;
      for (const std::int64_t n : grid.gpu_counts) {
        SweepPoint p;
        p.index = points.size();
        p.labels = {gpu, net.label, std::to_string(n)};
        // An inline GPU stays as the file defines it; a catalog GPU is replaced by name.
        if (catalog) p.overrides.push_back("cluster.gpu=" + gpu);
        if (net.spec) p.overrides.push_back(topology_override(spec));
        for (std::string& o : size_overrides(spec.kind, spec.params, n, file_gpus, net.label)) {
          p.overrides.push_back(std::move(o));
        }
        p.overrides.push_back(fmt::format("cluster.workers={}", n));
        points.push_back(std::move(p));
      }
    }
  }
  return points;
}

std::vector<std::string> node_warnings(const Scenario& base, const PlanGrid& grid) {
  std::vector<std::string> out;
  for (const PlanNetwork& net : grid.networks) {
    const TopologySpec& spec = net.spec ? *net.spec : base.cluster.topology;
    for (const std::string& gpu : grid.gpu_types) {
      if (base.cluster.gpu.inline_spec && gpu == base.cluster.gpu.name.value) continue;
      for (std::string& w : run::node_contradictions(spec, net.label, find_gpu(gpu))) out.push_back(std::move(w));
    }
  }
  return out;
}

PlanPoint plan_point(const SweepPoint& point, const TrainingReport& r) {
  PlanPoint p;
  p.gpu = point.labels[0];
  p.network = point.labels[1];
  p.gpus = r.workers;
  p.samples_per_s = r.samples_per_second;
  if (const auto& band = r.calibration_band) {
    p.samples_per_s_band = std::pair{band->samples_per_second_low, band->samples_per_second_high};
  }
  p.single_gpu_samples_per_s = r.single_gpu_samples_per_second;
  p.scaling_efficiency = r.scaling_efficiency;
  p.fits = r.memory.fits;
  p.memory_bytes = static_cast<double>(r.memory.total.value);
  p.memory_capacity_bytes = static_cast<double>(r.memory.capacity.value);
  const BottleneckReport& b = r.bottleneck;
  const bool named = b.bound == "communication" || b.bound == "parameter_server";
  p.bottleneck = named ? b.bound + ": " + b.resource : b.bound;
  p.bottleneck_share = b.bound_share;
  p.bottleneck_summary = b.summary;
  p.bottleneck_cause = b.bound;
  p.layout = layout_label(r);  // --layouts auto names its searched layout itself (layout_search.hpp)
  p.model_flops_utilization = r.utilization.model_flops_utilization;
  p.time_shares = time_shares(r);
  if (r.utilization.tokens_per_second_per_gpu > 0) p.tokens_per_s_per_gpu = r.utilization.tokens_per_second_per_gpu;
  if (r.convergence) {
    if (r.convergence->time_to_target) p.time_to_target_s = r.convergence->time_to_target->seconds();
    p.best_loss = r.convergence->best_loss;
  }
  return p;
}

}  // namespace syncsim::planner
