#pragma once
// The process groups of a model-parallel layout (tensor x context x data x pipeline, Megatron's rank order,
// rank_layout.hpp; expert parallelism inside the data-parallel groups) as a rank's Chakra trace names them: "0"
// (every rank), then each kind's groups numbered in Megatron's order (tensor, context, expert, data, expert data),
// the same names in every rank's file, pg_desc Megatron's names (TENSOR_MODEL_PARALLEL_GROUP, ...).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/chakra/process_groups.hpp"
#include "syncsim/training/rank_layout.hpp"

namespace syncsim::chakra {

// The kinds of process group a layout's collectives run on.
// amax: Transformer Engine's FP8 amax reductions under Megatron, each pipeline stage's tensor x data x context ranks
// (Megatron's TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP, RankLayout::amax_groups).
enum class GroupRole { tensor, context, expert, data, expert_data, amax };
std::string to_string(GroupRole role);

// Every group of `role` in `layout` with expert parallelism `expert`, in Megatron's order, the data role's over data
// x context (RankLayout::gradient_groups); none when the role's size is 1 (no collective runs on it), except the
// data-parallel groups of a layout without data or context parallelism and the
// expert data-parallel groups of expert parallelism over whole data-parallel groups: one rank each, as Megatron
// keeps them, the buckets reduced over them.
std::vector<std::vector<std::size_t>> role_groups(const RankLayout& layout, GroupRole role, std::int64_t expert);

// A collective inside a pass, or a data-parallel one. `ranks`: the group's members (the import's; the export's
// come from the layout).
struct LayoutCollective {
  CollectiveKind op = CollectiveKind::all_reduce;
  std::int64_t bytes = 0;
  GroupRole role = GroupRole::tensor;
  std::vector<std::int64_t> ranks = {};
};

// Rank `rank`'s groups in `layout` (expert parallelism `expert`): "0", then the rank's group of each role that has
// groups, the amax role's only with `amax` (a trace that reduces FP8 amaxes); `names` (when given) gets each role's
// group name.
std::vector<ProcessGroup> layout_process_groups(const RankLayout& layout, std::int64_t expert, std::int64_t rank,
                                                std::map<GroupRole, std::string>* names = nullptr, bool amax = false);

}  // namespace syncsim::chakra
