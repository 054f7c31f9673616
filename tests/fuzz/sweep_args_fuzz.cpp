// The sweep and plan flags (`syncsim sweep --vary ... --zip`, `syncsim plan --gpus --gpu-types --networks`): the
// value parsers in sim/planner (sweep_point.cpp, plan_grid.cpp) and the points they expand to.
//
// One flag a line, as the shell passes it; a line without a known flag is a `--vary` value:
//
//   --vary cluster.workers=8,16        --gpus 8:1024                --zip
//   model.batch_per_gpu=32,64          --gpu-types A100-SXM4-80GB   --networks ib=dgx:gpus=8;eth=dgx:gpus=4
//
// Points are expanded only up to kMaxFuzzPoints: a million valid points (the CLI's limit) is legitimate work
// that says nothing about parsing; the count itself, with its limit and overflow checks, is always computed.
#include <string>
#include <vector>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/planner/sweep_point.hpp"

namespace syncsim::fuzz {
namespace {

constexpr std::size_t kMaxFuzzPoints = 4096;

struct Flags {
  std::vector<std::string> vary;
  bool zip = false;
  std::vector<std::string> gpus;
  std::vector<std::string> gpu_types;
  std::vector<std::string> networks;
};

Flags read_flags(std::string_view text) {
  Flags flags;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    auto take = [&](std::string_view flag, std::vector<std::string>& into) {
      if (!line.starts_with(flag)) return false;
      into.emplace_back(line.substr(flag.size()));
      return true;
    };
    if (line == "--zip") {
      flags.zip = true;
    } else if (!take("--vary ", flags.vary) && !take("--gpus ", flags.gpus) && !take("--gpu-types ", flags.gpu_types) &&
               !take("--networks ", flags.networks)) {
      flags.vary.emplace_back(line);
    }
  }
  return flags;
}

// What plan_points needs of a scenario: its GPU and topology (a DGX node, as the planner examples have).
Scenario plan_base() {
  Scenario base;
  base.cluster.gpu.name.value = "A100-SXM4-80GB";
  base.cluster.topology = parse_topology_spec("dgx:nodes=1,gpus=8", "fuzz.yaml");
  return base;
}

void plan(const Flags& flags) {
  planner::PlanGrid grid;
  for (const std::string& g : flags.gpus) grid.gpu_counts = planner::parse_gpu_counts(g);
  grid.gpu_types =
      flags.gpu_types.empty() ? std::vector<std::string>{"A100-SXM4-80GB"} : planner::parse_gpu_types(flags.gpu_types);
  grid.networks = planner::parse_networks(flags.networks);
  if (grid.networks.empty()) grid.networks.push_back({"scenario", std::nullopt});
  std::size_t points = grid.gpu_counts.size() * grid.gpu_types.size();
  for (const planner::PlanNetwork& net : grid.networks) {
    // `file:` names a path on the fuzzing machine; the DOT and XML readers have their own targets.
    if (net.spec && net.spec->kind == "file") return;
  }
  points *= grid.networks.size();  // each factor is below the input's length: no overflow
  static const Scenario base = plan_base();
  if (points <= kMaxFuzzPoints) (void)planner::plan_points(base, grid);
}

}  // namespace

int fuzz_sweep_args(const std::uint8_t* data, std::size_t size) {
  const Flags flags = read_flags(as_text(data, size));
  try {
    std::vector<planner::VaryAxis> axes;
    for (const std::string& v : flags.vary) axes.push_back(planner::parse_vary(v));
    if (planner::count_points(axes, flags.zip) <= kMaxFuzzPoints) (void)planner::expand_points(axes, flags.zip);
  } catch (const InputError&) {
    // The contract: bad input is an InputError.
  }
  try {
    plan(flags);
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
