#include "syncsim/collectives/algorithm.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::array<std::pair<Algorithm, std::string_view>, 5> kNames{{
    {Algorithm::ring, "ring"},
    {Algorithm::tree, "tree"},
    {Algorithm::halving_doubling, "halving_doubling"},
    {Algorithm::hierarchical, "hierarchical"},
    {Algorithm::direct, "direct"},
}};
}  // namespace

std::string_view to_string(Algorithm algorithm) {
  for (const auto& [candidate, name] : kNames) {
    if (candidate == algorithm) return name;
  }
  return "?";
}

Algorithm parse_algorithm(std::string_view text) {
  for (const auto& [algorithm, name] : kNames) {
    if (name == text) return algorithm;
  }
  throw InputError(
      fmt::format("unknown algorithm '{}': expected ring, tree, halving_doubling, hierarchical, direct or auto", text));
}

std::unique_ptr<CollectivePlan> make_plan(Algorithm algorithm, CollectiveOp op, std::size_t ranks, Bytes size,
                                          const PlanContext& context) {
  switch (algorithm) {
    case Algorithm::ring: {
      RingOptions options;
      options.order = context.ring_order;
      options.root = context.root;
      options.pipeline_slices = context.pipeline_slices;
      return std::make_unique<RingPlan>(op, ranks, size, options);
    }
    case Algorithm::tree:
    case Algorithm::halving_doubling:
    case Algorithm::hierarchical:
    case Algorithm::direct:
      break;
  }
  throw InputError(fmt::format("algorithm {} is not available yet", to_string(algorithm)));
}

}  // namespace syncsim
