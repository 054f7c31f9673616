#pragma once
// Collective algorithms by name, and the factory that builds a plan for one (what `--algo` and a scenario's
// `training.algorithm` select).
#include <array>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

enum class Algorithm {
  ring,
  tree,
  halving_doubling,
  hierarchical,
  direct,
  pat,
  nvls,
  nvls_tree,
  collnet_direct,
  collnet_chain
};

// The algorithms' names, the one table: to_string, parse_algorithm, the scenario file and the GUI read them here.
inline constexpr std::array<std::pair<std::string_view, Algorithm>, 10> kAlgorithmNames{{
    {"ring", Algorithm::ring},
    {"tree", Algorithm::tree},
    {"halving_doubling", Algorithm::halving_doubling},
    {"hierarchical", Algorithm::hierarchical},
    {"direct", Algorithm::direct},
    {"pat", Algorithm::pat},
    {"nvls", Algorithm::nvls},
    {"nvls_tree", Algorithm::nvls_tree},
    {"collnet_direct", Algorithm::collnet_direct},
    {"collnet_chain", Algorithm::collnet_chain},
}};

std::string_view to_string(Algorithm algorithm);
// nullopt when the text names no algorithm.
std::optional<Algorithm> find_algorithm(std::string_view text);
// Throws InputError listing the accepted names ("auto" is handled by the caller: see algorithm_selection.hpp).
Algorithm parse_algorithm(std::string_view text);

// Ranks on one NVSwitch that reduces (NVLink SHARP), and that switch: what NVLS and NVLSTree run on (nvls_plan.hpp).
struct NvlinkDomain {
  NodeId nvswitch;
  std::vector<Rank> ranks;
};

// One rail's SHARP aggregation tree (InfiniBand switches that reduce): what CollNet runs on (collnet_plan.hpp).
struct SharpTree {
  std::vector<Rank> heads;             // per node: its GPU on this rail
  std::vector<NodeId> leaves;          // the switches the heads' NICs hang off
  std::vector<std::uint32_t> leaf_of;  // per node: its leaf, an index into leaves
  std::optional<NodeId> root;          // the switch above the leaves, when there are several
};

// What a plan may need to know beyond the operation and its size.
struct PlanContext {
  // Ranks grouped by host (server), each group in rank order; empty when the topology has no host structure.
  // Hierarchical algorithms need it; rings use it to order channels.
  std::vector<std::vector<Rank>> hosts;
  // Ring order for this plan (a channel's ring); empty means rank order.
  std::vector<Rank> ring_order;
  Rank root{0};
  std::uint32_t pipeline_slices = 1;
  // Which channel this plan is (0..channels-1). A collective split over C channels runs C plans at once, each on
  // S/C bytes; trees alternate between NCCL's two trees by channel parity, each pair on one chain.
  std::uint32_t channel = 0;
  // NVLS and NVLSTree: the NVLink domains whose switches reduce (reducing_nvlink_domains in nvls_plan.hpp).
  std::vector<NvlinkDomain> nvlink_domains;
  // CollNetDirect and CollNetChain: each rail's SHARP tree (sharp_trees in collnet_plan.hpp).
  std::vector<SharpTree> sharp_trees;
  std::uint32_t channels = 1;  // how many channels the collective runs (trees spread their chains over them)
};

// Throws InputError when the algorithm cannot run the operation (e.g. hierarchical without host structure).
std::unique_ptr<CollectivePlan> make_plan(Algorithm algorithm, CollectiveOp op, std::size_t ranks, Bytes size,
                                          const PlanContext& context);

}  // namespace syncsim
