// A layout's process groups as a rank's trace names them (layout_groups.hpp).
#include "syncsim/chakra/layout_groups.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace syncsim::chakra {

namespace {

constexpr std::array<GroupRole, 6> kRoles = {GroupRole::tensor, GroupRole::context,     GroupRole::expert,
                                             GroupRole::data,   GroupRole::expert_data, GroupRole::amax};

// Megatron's names for its groups, PyTorch's pg_desc.
const char* role_desc(GroupRole role) {
  switch (role) {
    case GroupRole::tensor:
      return "TENSOR_MODEL_PARALLEL_GROUP";
    case GroupRole::context:
      return "CONTEXT_PARALLEL_GROUP";
    case GroupRole::expert:
      return "EXPERT_MODEL_PARALLEL_GROUP";
    case GroupRole::data:
      return "DATA_PARALLEL_GROUP";
    case GroupRole::expert_data:
      return "EXPERT_DATA_PARALLEL_GROUP";
    case GroupRole::amax:
      return "TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP";
  }
  return "";
}

}  // namespace

std::vector<std::vector<std::size_t>> role_groups(const RankLayout& layout, GroupRole role, std::int64_t expert) {
  const LayoutSizes& n = layout.sizes();
  if (role == GroupRole::tensor && n.tensor > 1) return layout.groups(GroupKind::tensor);
  if (role == GroupRole::context && n.context > 1) return layout.groups(GroupKind::context);
  // The gradients' groups, data x context (Megatron's DATA_PARALLEL_GROUP_WITH_CP under context parallelism). A
  // layout without either keeps groups of one rank each, as Megatron does (DATA_PARALLEL_GROUP of size 1): its
  // buckets are reduced over them, moving nothing.
  if (role == GroupRole::data) return layout.gradient_groups();
  if (role == GroupRole::expert && expert > 1) return layout.expert_groups(expert);
  // Expert parallelism over whole data-parallel groups leaves expert data-parallel groups of one rank each: Megatron
  // keeps them (its EXPERT_DATA_PARALLEL_GROUP), and its buckets of routed experts' gradients are reduced over them,
  // moving nothing.
  if (role == GroupRole::expert_data && expert > 1) return layout.expert_data_groups(expert);
  if (role == GroupRole::amax) return layout.amax_groups(false);
  return {};
}

std::vector<ProcessGroup> layout_process_groups(const RankLayout& layout, std::int64_t expert, std::int64_t rank,
                                                std::map<GroupRole, std::string>* names, bool amax) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(layout.ranks()));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  std::vector<ProcessGroup> mine = {{"0", "default_pg", all}};
  int next = 1;
  for (const GroupRole role : kRoles) {
    if (role == GroupRole::amax && !amax) continue;
    for (const auto& group : role_groups(layout, role, expert)) {
      const std::string name = std::to_string(next++);
      if (std::find(group.begin(), group.end(), static_cast<std::size_t>(rank)) == group.end()) continue;
      const bool with_context = role == GroupRole::data && layout.sizes().context > 1;
      mine.push_back({name, with_context ? "DATA_PARALLEL_GROUP_WITH_CP" : role_desc(role),
                      std::vector<std::int64_t>(group.begin(), group.end())});
      if (names != nullptr) (*names)[role] = name;
    }
  }
  return mine;
}

std::string to_string(GroupRole role) {
  switch (role) {
    case GroupRole::tensor:
      return "tensor";
    case GroupRole::context:
      return "context";
    case GroupRole::expert:
      return "expert";
    case GroupRole::data:
      return "data";
    case GroupRole::expert_data:
      return "expert_data";
    case GroupRole::amax:
      return "amax";
  }
  return "unknown";
}

}  // namespace syncsim::chakra
