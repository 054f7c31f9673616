// One DDP (or ZeRO, or HSDP) iteration to a rank's execution trace (ddp_workload.hpp has the graph).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/chakra/process_groups.hpp"
#include "trace_graph.hpp"

namespace syncsim::chakra {

namespace {

// `n` with the work ASTRA-sim's roofline mode times it by, when the workload has it.
ExecutionNode with_work(ExecutionNode n, const std::vector<NodeWork>& work, std::size_t layer) {
  if (layer >= work.size()) return n;
  n.num_ops = work[layer].ops;
  n.tensor_size = work[layer].bytes;
  return n;
}

}  // namespace

namespace {

// One rank's file, written in node order: ids count up from 0 (the METADATA_NODE), every dependency earlier.
class DdpWriter {
 public:
  DdpWriter(const DdpWorkload& w, ExecutionTrace& trace, std::vector<ProcessGroup> groups,
            std::map<GroupRole, std::string> roles)
      : w_(w), trace_(trace), groups_(std::move(groups)), roles_(std::move(roles)) {
    unit_of_.assign(w.layers.size(), std::nullopt);
    for (std::size_t u = 0; u < w.buckets.buckets.size(); ++u) {
      for (const std::size_t l : w.buckets.buckets[u].layers) {
        if (l < unit_of_.size()) unit_of_[l] = u;
      }
    }
  }

  std::uint64_t add(ExecutionNode n) {
    n.id = next_++;
    trace_.nodes.push_back(std::move(n));
    return next_ - 1;
  }

  // A bucket's collective on the one communication stream, after `deps` and the stream's previous one, on the
  // shard group (HSDP) or every rank. Under HSDP a reduce-scatter is followed by the AllReduce of the rank's shard
  // across the replicas, on a stream of its own; its id is returned then (what the step waits for).
  std::uint64_t collective(CollectiveKind op, std::size_t unit, std::vector<std::uint64_t> deps,
                           std::optional<std::int64_t> micro_batch) {
    ExecutionNode n;
    n.name = fmt::format("bucket {} {}", unit, op == CollectiveKind::all_reduce ? "all_reduce" : to_string(op));
    n.kind = NodeKind::collective;
    n.data_deps = std::move(deps);
    if (stream_) n.data_deps.push_back(*stream_);
    n.collective = op;
    const std::int64_t bytes = w_.buckets.buckets[unit].bytes.value;
    n.comm_size = op == CollectiveKind::all_gather && !w_.gather_bytes.empty() ? w_.gather_bytes[unit].value : bytes;
    // The rank's data-parallel group (FSDP + TP), its shard group (HSDP), or the default one.
    n.pg_name = w_.layout ? roles_.at(GroupRole::data) : groups_.back().name;
    n.micro_batch = micro_batch;
    stream_ = add(std::move(n));
    if (op != CollectiveKind::reduce_scatter || w_.layout || groups_.size() < 3) return *stream_;
    ExecutionNode across;
    across.name = fmt::format("bucket {} shard all_reduce across replicas", unit);
    across.kind = NodeKind::collective;
    across.data_deps = {*stream_};
    if (replica_stream_) across.data_deps.push_back(*replica_stream_);
    across.collective = CollectiveKind::all_reduce;
    across.comm_size = (bytes + w_.shard_group - 1) / w_.shard_group;
    across.pg_name = groups_[1].name;
    across.micro_batch = micro_batch;
    replica_stream_ = add(std::move(across));
    return *replica_stream_;
  }

  // Micro-batch j's forward and backward; returns the backward's ids per layer.
  std::vector<std::uint64_t> micro_batch(std::size_t j, bool tag, std::optional<std::uint64_t> after) {
    const bool full = w_.sharding == ShardingLevel::full;
    const std::size_t units = w_.buckets.buckets.size();
    const std::optional<std::int64_t> mb = tag ? std::optional(static_cast<std::int64_t>(j)) : std::nullopt;
    std::vector<std::uint64_t> gathered(units);
    for (std::size_t u = units; full && u-- > 0;) gathered[u] = collective(CollectiveKind::all_gather, u, {}, mb);
    std::optional<std::uint64_t> previous = after;
    for (std::size_t i = 0; i < w_.layers.size(); ++i) {
      std::vector<std::uint64_t> deps = previous ? std::vector{*previous} : std::vector<std::uint64_t>{};
      if (full && unit_of_[i]) deps.push_back(gathered[*unit_of_[i]]);
      ExecutionNode n = with_work(
          compute_node(0, w_.layers[i] + std::string(kForwardSuffix), w_.times.forward[i], deps), w_.forward_work, i);
      n.micro_batch = mb;
      if (w_.sharding != ShardingLevel::none && unit_of_[i]) n.bucket = static_cast<std::int64_t>(*unit_of_[i]);
      previous = inline_after(add(std::move(n)), w_.forward_inline, i, mb, "forward");
    }
    std::vector<std::uint64_t> backward(w_.layers.size());
    // Full sharding gathers each unit again for backward, one unit ahead of the one computing (FSDP's prefetch).
    std::vector<bool> again(units, false);
    const auto gather_again = [&](std::size_t u) {
      if (u >= units || again[u]) return;
      again[u] = true;
      gathered[u] = collective(CollectiveKind::all_gather, u, {}, mb);
    };
    for (std::size_t i = w_.layers.size(); i-- > 0;) {
      std::vector<std::uint64_t> deps = {*previous};
      if (full && unit_of_[i]) {
        gather_again(*unit_of_[i]);
        gather_again(*unit_of_[i] + 1);
        deps.push_back(gathered[*unit_of_[i]]);
      }
      ExecutionNode n =
          with_work(compute_node(0, w_.layers[i] + std::string(kBackwardSuffix), w_.times.backward[i], deps),
                    w_.backward_work, i);
      n.micro_batch = mb;
      backward[i] = add(std::move(n));
      previous = inline_after(backward[i], w_.backward_inline, i, mb, "backward");
    }
    return backward;
  }

  // Layer i's collectives on the compute stream after `node`, one after another; returns the last one (`node`
  // when none).
  std::uint64_t inline_after(std::uint64_t node, const std::vector<std::vector<LayoutCollective>>& lists, std::size_t i,
                             std::optional<std::int64_t> mb, const char* direction) {
    if (i >= lists.size()) return node;
    for (const LayoutCollective& c : lists[i]) {
      ExecutionNode n;
      n.name = fmt::format("{} {} {} {}", w_.layers[i], direction, to_string(c.role), to_string(c.op));
      n.kind = NodeKind::collective;
      n.data_deps = {node};
      n.collective = c.op;
      n.comm_size = c.bytes;
      n.pg_name = roles_.at(c.role);
      n.micro_batch = mb;
      node = add(std::move(n));
    }
    return node;
  }

  const std::optional<std::uint64_t>& stream() const { return stream_; }

 private:
  const DdpWorkload& w_;
  ExecutionTrace& trace_;
  std::uint64_t next_ = 0;
  std::vector<ProcessGroup> groups_;  // the rank's: the default one; under HSDP its replica group, then its shard group
  std::map<GroupRole, std::string> roles_;  // with a layout: the rank's group of each role
  std::optional<std::uint64_t> stream_;
  std::optional<std::uint64_t> replica_stream_;      // HSDP: the replicas' AllReduces
  std::vector<std::optional<std::size_t>> unit_of_;  // per layer: its bucket (none for a layer without gradients)
};

}  // namespace

std::vector<ProcessGroup> ddp_process_groups(const DdpWorkload& w, std::int64_t rank,
                                             std::map<GroupRole, std::string>* roles) {
  if (w.layout) return layout_process_groups(RankLayout(*w.layout), 1, rank, roles);
  std::vector<std::int64_t> all(static_cast<std::size_t>(w.ranks));
  for (std::size_t r = 0; r < all.size(); ++r) all[r] = static_cast<std::int64_t>(r);
  std::vector<ProcessGroup> out = {{std::string(kDefaultProcessGroup), "default_pg", std::move(all)}};
  const std::int64_t s = w.shard_group;
  if (s < 2 || s >= w.ranks) return out;
  // PyTorch's DeviceMesh of shape (replicas, s), dims named as torchtitan names them: the groups of dim 0 (replicate:
  // the ranks s apart) are created first, then those of dim 1 (shard: s consecutive ranks).
  const std::int64_t replicas = w.ranks / s;
  ProcessGroup& across = out.emplace_back();
  across.name = std::to_string(1 + rank % s);
  across.desc = "mesh_dp_replicate";
  for (std::int64_t i = 0; i < replicas; ++i) across.ranks.push_back(rank % s + i * s);
  ProcessGroup& shard = out.emplace_back();
  shard.name = std::to_string(1 + s + rank / s);
  shard.desc = "mesh_dp_shard";
  for (std::int64_t i = 0; i < s; ++i) shard.ranks.push_back(rank / s * s + i);
  return out;
}

ExecutionTrace execution_trace(const DdpWorkload& w, std::int64_t rank) {
  ExecutionTrace trace;
  trace.version = std::string(kSchemaVersion);
  trace.workload = w.name;
  trace.rank = rank;
  trace.ranks = w.ranks;
  std::map<GroupRole, std::string> roles;
  const std::vector<ProcessGroup> groups = ddp_process_groups(w, rank, &roles);
  DdpWriter out(w, trace, groups, std::move(roles));
  // Id 0 describes the process groups (the feeder issues the lowest ids first).
  out.add(process_group_node(0, groups));
  const auto k = static_cast<std::size_t>(std::max<std::int64_t>(1, w.micro_batches));
  const bool sharded = w.sharding != ShardingLevel::none;
  const CollectiveKind reduce = sharded ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
  std::vector<std::uint64_t> step_deps;
  std::optional<std::uint64_t> after;
  for (std::size_t j = 0; j < k; ++j) {
    const std::vector<std::uint64_t> backward = out.micro_batch(j, k > 1, after);
    after = backward.front();
    // DDP and ZeRO-1 reduce in the last micro-batch only (no_sync for the others); ZeRO-2 and -3 in every one.
    const bool reducing = j + 1 == k || w.sharding == ShardingLevel::gradients || w.sharding == ShardingLevel::full;
    for (std::size_t u = 0; reducing && u < w.buckets.buckets.size(); ++u) {
      const std::optional<std::int64_t> mb = k > 1 ? std::optional(static_cast<std::int64_t>(j)) : std::nullopt;
      step_deps.push_back(out.collective(reduce, u, {backward[w.buckets.buckets[u].ready_after_layer]}, mb));
    }
  }
  step_deps.insert(step_deps.begin(), *after);
  // The rank's step: its shard's when sharded (the engine's ceil(step / s), s the shard group: d without HSDP).
  const std::int64_t s = w.layout ? w.layout->data : w.shard_group > 1 ? w.shard_group : w.ranks;
  const SimTime step = sharded ? SimTime::from_ps((w.optimizer.ps() + s - 1) / s) : w.optimizer;
  ExecutionNode optimizer = compute_node(0, "optimizer step", step, std::move(step_deps));
  if (w.optimizer_work) {
    optimizer.num_ops = w.optimizer_work->ops;
    optimizer.tensor_size = w.optimizer_work->bytes;
  }
  const std::uint64_t stepped = out.add(std::move(optimizer));
  if (sharded && w.sharding != ShardingLevel::full) {
    // The updated parameters gathered for the next forward, first layers first.
    for (std::size_t u = w.buckets.buckets.size(); u-- > 0;) {
      out.collective(CollectiveKind::all_gather, u, {stepped}, std::nullopt);
    }
  }
  return trace;
}

}  // namespace syncsim::chakra
