#include "syncsim/collectives/algorithm.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "syncsim/collectives/collnet_plan.hpp"
#include "syncsim/collectives/direct_plan.hpp"
#include "syncsim/collectives/halving_doubling_plan.hpp"
#include "syncsim/collectives/hierarchical_alltoall_plan.hpp"
#include "syncsim/collectives/hierarchical_plan.hpp"
#include "syncsim/collectives/nvls_plan.hpp"
#include "syncsim/collectives/pat_plan.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/collectives/tree_plan.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
// Only chains and trees stream in slices; the other algorithms already move every piece once per step.
void require_no_slices(Algorithm algorithm, CollectiveOp op, const PlanContext& context) {
  if (context.pipeline_slices == 1) return;
  throw InputError(fmt::format("pipelining applies to ring broadcast/reduce and tree; {} {} takes no slices",
                               to_string(algorithm), to_string(op)));
}
}  // namespace

std::string_view to_string(Algorithm algorithm) {
  for (const auto& [name, candidate] : kAlgorithmNames) {
    if (candidate == algorithm) return name;
  }
  return "?";
}

std::optional<Algorithm> find_algorithm(std::string_view text) {
  for (const auto& [name, algorithm] : kAlgorithmNames) {
    if (name == text) return algorithm;
  }
  return std::nullopt;
}

Algorithm parse_algorithm(std::string_view text) {
  if (const std::optional<Algorithm> algorithm = find_algorithm(text)) return *algorithm;
  std::string expected;
  for (const auto& [name, algorithm] : kAlgorithmNames) expected += fmt::format("{}, ", name);
  throw InputError(fmt::format("unknown algorithm '{}': expected {}auto or best", text, expected));
}

std::unique_ptr<CollectivePlan> make_plan(Algorithm algorithm, CollectiveOp op, std::size_t ranks, Bytes size,
                                          const PlanContext& context) {
  if (op == CollectiveOp::alltoall && algorithm != Algorithm::direct && algorithm != Algorithm::hierarchical) {
    throw InputError(fmt::format(
        "{} cannot run alltoall: every rank sends a different block to every other rank, which direct (NCCL's way) "
        "and hierarchical do",
        to_string(algorithm)));
  }
  switch (algorithm) {
    case Algorithm::ring: {
      RingOptions options;
      options.order = context.ring_order;
      options.root = context.root;
      options.pipeline_slices = context.pipeline_slices;
      return std::make_unique<RingPlan>(op, ranks, size, options);
    }
    case Algorithm::tree: {
      TreeOptions options;
      options.root = context.root;
      options.pipeline_slices = context.pipeline_slices;
      options.tree = context.channel % 2;  // NCCL's double binary tree: a channel pair runs both trees on one chain
      options.hosts = context.hosts;
      options.chain = context.channel / 2;
      options.chains = (context.channels + 1) / 2;
      return std::make_unique<TreePlan>(op, ranks, size, options);
    }
    case Algorithm::halving_doubling:
      require_no_slices(algorithm, op, context);
      return std::make_unique<HalvingDoublingPlan>(op, ranks, size);
    case Algorithm::hierarchical:
      require_no_slices(algorithm, op, context);
      if (op == CollectiveOp::alltoall) return std::make_unique<HierarchicalAllToAllPlan>(ranks, size, context.hosts);
      return std::make_unique<HierarchicalPlan>(op, ranks, size, context.hosts);
    case Algorithm::direct:
      require_no_slices(algorithm, op, context);
      return std::make_unique<DirectPlan>(op, ranks, size, context.root);
    case Algorithm::pat:
      require_no_slices(algorithm, op, context);
      return std::make_unique<PatPlan>(op, ranks, size, PatOptions{PatPlan::nccl_chunk_bytes(op, size)});
    case Algorithm::nvls:
    case Algorithm::nvls_tree: {
      const std::size_t domains = context.nvlink_domains.size();
      if (domains == 0) {
        throw InputError(
            fmt::format("{} needs NVSwitches that reduce (NVLink SHARP): every GPU on an nvswitch with "
                        "nvls=on, or nvls=auto and a Hopper or newer GPU",
                        to_string(algorithm)));
      }
      if (algorithm == Algorithm::nvls && domains > 1) {
        throw InputError(
            fmt::format("nvls runs inside one NVLink domain; these ranks span {}: use nvls_tree", domains));
      }
      if (algorithm == Algorithm::nvls_tree && domains == 1) {
        throw InputError("nvls_tree needs several NVLink domains (NCCL runs nvls inside one)");
      }
      return std::make_unique<NvlsPlan>(op, ranks, size, context.nvlink_domains, context.pipeline_slices);
    }
    case Algorithm::collnet_direct:
    case Algorithm::collnet_chain:
      if (context.sharp_trees.empty()) {
        throw InputError(fmt::format(
            "{} needs network switches that reduce (InfiniBand SHARP): sharp=on, and at least 2 nodes of as many GPUs "
            "each",
            to_string(algorithm)));
      }
      return std::make_unique<CollNetPlan>(algorithm, op, ranks, size, context.hosts, context.sharp_trees,
                                           context.channel, context.channels, context.pipeline_slices);
  }
  throw InputError(fmt::format("unknown algorithm {}", static_cast<int>(algorithm)));
}

}  // namespace syncsim
