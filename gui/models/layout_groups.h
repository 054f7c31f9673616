#pragma once
// LayoutGroups: the groups a model-parallel layout runs (report.json's `layout`: tensor x context x data x pipeline,
// experts inside the data-parallel ranks), in Megatron's rank order (rank_layout.hpp: rank r on the machine's GPU r),
// and the collective each kind runs in the simulator (layout_communication.hpp) — what the ring view animates for a
// chosen group, on the machine's own topology:
//
//   tensor    an AllReduce of the activations, per block (within a stage)
//   context   an AllGather of K and V, per block
//   pipeline  the stage-to-stage transfer of one micro-batch's activation: a 2-rank broadcast between the ranks of
//             adjacent stages with the same coordinates (so its groups are those pairs, stage by stage)
//   data      an AllReduce of the gradient buckets (under sharding a ReduceScatter and an AllGather: the ring
//             AllReduce's two halves)
//   expert    the all-to-alls of the routed tokens, in groups of `expert` consecutive data-parallel ranks
//
// Kinds of size 1 run nothing and are not listed.
#include <QString>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"

enum class LayoutGroupKind { Tensor, Context, Pipeline, Data, Expert };

struct LayoutGroupSizes {
  int tensor = 1;
  int context = 1;
  int pipeline = 1;
  int data = 1;
  int expert = 1;  // expert parallelism, dividing data
  bool operator==(const LayoutGroupSizes&) const = default;
};

class LayoutGroups {
 public:
  // Throws syncsim::InputError for sizes the layout refuses (below 1, expert not dividing data).
  explicit LayoutGroups(LayoutGroupSizes sizes);

  const LayoutGroupSizes& sizes() const { return m_sizes; }
  int rankCount() const;
  // The kinds of size above 1, in the order above.
  std::vector<LayoutGroupKind> kinds() const;
  int groupCount(LayoutGroupKind kind) const;
  // Group `index` of `kind`: its ranks (the machine's GPUs), in the collective's order (a pipeline pair: the earlier
  // stage first). Groups are numbered by their first rank.
  std::vector<int> members(LayoutGroupKind kind, int index) const;
  // The collective the simulator runs in such a group.
  static syncsim::CollectiveOp collective(LayoutGroupKind kind);
  static QString kindName(LayoutGroupKind kind);        // "Tensor", translated
  static QString collectiveText(LayoutGroupKind kind);  // "AllReduce of the activations per block", translated

 private:
  std::vector<std::vector<int>> groupsOf(LayoutGroupKind kind) const;

  LayoutGroupSizes m_sizes;
};
