#pragma once
// RankLayout: which ranks form each tensor, context, data-parallel and pipeline group of a parallel layout, in
// Megatron-LM's order (megatron/core/parallel_state.py, order "tp-cp-ep-dp-pp" without expert groups): the tensor
// coordinate varies fastest, then context, then data, then the pipeline stage,
//
//   rank = t + T x (c + C x (d + D x p))          T, C, D, P: the group sizes; T x C x D x P = the GPUs
//
// and rank r runs on the topology's GPU r. The topologies number a node's GPUs consecutively, so with T = the GPUs
// per node every tensor group is one node (its NVLink), and the T data-parallel groups of one stage's nodes are
// formed by the nodes' local GPU k, k = 0 .. T-1: on a rail-optimized fabric each leaves through rail k, so the
// T groups run side by side on T different rails.
#include <cstdint>
#include <string_view>
#include <vector>

namespace syncsim {

enum class GroupKind { tensor, context, data, pipeline };

std::string_view to_string(GroupKind kind);

struct LayoutSizes {
  std::int64_t tensor = 1;
  std::int64_t context = 1;
  std::int64_t data = 1;
  std::int64_t pipeline = 1;

  // The ranks a dense gradient is reduced over, and ZeRO and FSDP shard over (RankLayout::gradient_groups).
  std::int64_t gradient_ranks() const { return data * context; }
};

struct RankCoordinates {
  std::int64_t tensor = 0;
  std::int64_t context = 0;
  std::int64_t data = 0;
  std::int64_t pipeline = 0;
};

class RankLayout {
 public:
  // Throws InputError for a size below 1 or a product beyond 2^31 ranks.
  explicit RankLayout(LayoutSizes sizes);

  const LayoutSizes& sizes() const { return sizes_; }
  std::int64_t ranks() const;
  std::int64_t size(GroupKind kind) const;

  RankCoordinates coordinates(std::int64_t rank) const;
  std::int64_t rank(const RankCoordinates& c) const;

  // Every group of `kind`, each listing its ranks by increasing coordinate of that kind (a pipeline group: stage 0
  // first); the groups in increasing order of their first rank. Groups of size 1 are listed too.
  std::vector<std::vector<std::size_t>> groups(GroupKind kind) const;
  // The groups a dense gradient is reduced over, and ZeRO and FSDP shard over: the data-parallel groups with context
  // parallelism (Megatron's DATA_PARALLEL_GROUP_WITH_CP, whose gradient buffers reduce over dp x cp; torchtitan's
  // dp_shard_cp mesh): the ranks of one tensor index and stage, context fastest, then data. The context ranks of a
  // replica compute the same weights' gradients on different tokens, so theirs are summed too. Without context
  // parallelism these are groups(GroupKind::data).
  std::vector<std::vector<std::size_t>> gradient_groups() const;
  // The rail-aligned groups such a reduction is timed on (LayoutCommunication::gradient_collective): the data groups,
  // or without data parallelism the context groups (each then gradient_groups itself when the other size is 1).
  std::vector<std::vector<std::size_t>> gradient_timing_groups() const;
  // Expert parallelism of e (dividing the data-parallel size) inside each data-parallel group: the expert groups of
  // e consecutive members (Megatron's expert ranks next to one another), and the expert data-parallel groups of the
  // members with the same index in their expert group, which hold the same experts. Throws InputError when e does
  // not divide the data-parallel size.
  std::vector<std::vector<std::size_t>> expert_groups(std::int64_t e) const;
  std::vector<std::vector<std::size_t>> expert_data_groups(std::int64_t e) const;
  // Transformer Engine's FP8 amax reduction groups under Megatron (get_amax_reduction_group): each stage's tensor x
  // data x context ranks, or with `tp_only` (Megatron's tp_only_amax_red) each tensor x context group; none when they
  // are single ranks.
  std::vector<std::vector<std::size_t>> amax_groups(bool tp_only) const;
  // The groups of `kind` of pipeline stage `stage` only (tensor, context and data groups lie inside one stage).
  std::vector<std::vector<std::size_t>> stage_groups(GroupKind kind, std::int64_t stage) const;

 private:
  LayoutSizes sizes_;
};

}  // namespace syncsim
