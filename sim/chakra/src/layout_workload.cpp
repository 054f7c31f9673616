// A model-parallel layout's iteration to one rank's execution trace (layout_workload.hpp has the graph).
#include "syncsim/chakra/layout_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "syncsim/chakra/process_groups.hpp"
#include "syncsim/training/pipeline_schedule.hpp"
#include "trace_graph.hpp"

namespace syncsim::chakra {

namespace {

constexpr std::array<GroupRole, 5> kRoles = {GroupRole::tensor, GroupRole::context, GroupRole::expert, GroupRole::data,
                                             GroupRole::expert_data};

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
  }
  return "";
}

}  // namespace

std::vector<std::vector<std::size_t>> role_groups(const RankLayout& layout, GroupRole role, std::int64_t expert) {
  const LayoutSizes& n = layout.sizes();
  if (role == GroupRole::tensor && n.tensor > 1) return layout.groups(GroupKind::tensor);
  if (role == GroupRole::context && n.context > 1) return layout.groups(GroupKind::context);
  if (role == GroupRole::data && n.data > 1) return layout.groups(GroupKind::data);
  if (role == GroupRole::expert && expert > 1) return layout.expert_groups(expert);
  if (role == GroupRole::expert_data && expert > 1 && n.data / expert > 1) return layout.expert_data_groups(expert);
  return {};
}

namespace {

// One rank's file, written in node order: ids count up from 0 (the METADATA_NODE), every dependency earlier.
class RankWriter {
 public:
  RankWriter(const LayoutWorkload& w, std::int64_t rank)
      : w_(w), layout_(w.sizes), rank_(rank), at_(layout_.coordinates(rank)) {}

  ExecutionTrace write() {
    trace_.version = std::string(kSchemaVersion);
    trace_.workload = w_.name;
    trace_.rank = rank_;
    trace_.ranks = layout_.ranks();
    describe_groups();
    const auto d = static_cast<std::size_t>(at_.pipeline);
    const LayoutStage& stage = w_.stages[d];
    const bool full = w_.sharding == ShardingLevel::full;
    std::vector<std::optional<std::uint64_t>> gathered(stage.chunks.size());
    if (full) {
      for (std::size_t c = 0; c < stage.chunks.size(); ++c) gathered[c] = gathers(stage.chunks[c]);
    }
    std::vector<std::vector<std::uint64_t>> segments(stage.chunks.size());  // of each chunk's latest backward
    std::vector<std::size_t> completed;                                     // chunks, as their last backward ends
    for (const PipelinePass& pass :
         pipeline_order(w_.schedule, at_.pipeline, w_.sizes.pipeline, w_.micro_batches, w_.chunks)) {
      const auto c = static_cast<std::size_t>(pass.chunk);
      std::vector<std::uint64_t> deps = chain_ ? std::vector{*chain_} : std::vector<std::uint64_t>{};
      if (!pass.backward && gathered[c]) deps.push_back(*std::exchange(gathered[c], std::nullopt));
      segments[c] = run_pass(pass, pass.backward ? stage.chunks[c].backward : stage.chunks[c].forward, deps);
      if (pass.backward && pass.micro_batch + 1 == w_.micro_batches) completed.push_back(c);
    }
    std::vector<std::uint64_t> step_deps = {*chain_};
    for (const std::size_t c : completed) {
      for (const LayoutUnit& u : stage.chunks[c].units) {
        stream_ = add(collective(fmt::format("chunk {} bucket {}", c, to_string(u.collective.op)), u.collective),
                      {segments[c].at(u.segment)}, stream_);
        step_deps.push_back(*stream_);
      }
    }
    ExecutionNode step = compute_node(0, "optimizer step", stage.step, {});
    step.num_ops = stage.step_work.ops;
    step.tensor_size = stage.step_work.bytes;
    stream_ = add(std::move(step), step_deps, stream_);
    if (w_.sharding != ShardingLevel::none && !full) {
      for (const LayoutChunk& chunk : stage.chunks) gathers(chunk);
    }
    return std::move(trace_);
  }

 private:
  void describe_groups() {
    std::vector<std::int64_t> all(static_cast<std::size_t>(layout_.ranks()));
    std::iota(all.begin(), all.end(), std::int64_t{0});
    std::vector<ProcessGroup> mine = {{"0", "default_pg", all}};
    int next = 1;
    for (const GroupRole role : kRoles) {
      for (const auto& group : role_groups(layout_, role, w_.expert)) {
        const std::string name = std::to_string(next++);
        if (std::find(group.begin(), group.end(), static_cast<std::size_t>(rank_)) == group.end()) continue;
        mine.push_back({name, role_desc(role), std::vector<std::int64_t>(group.begin(), group.end())});
        names_[role] = name;
      }
    }
    trace_.nodes.push_back(process_group_node(next_++, mine));
  }

  std::uint64_t add(ExecutionNode n, std::vector<std::uint64_t> deps, std::optional<std::uint64_t> after) {
    n.id = next_++;
    n.data_deps = std::move(deps);
    if (after) n.data_deps.push_back(*after);
    trace_.nodes.push_back(std::move(n));
    return next_ - 1;
  }

  ExecutionNode collective(std::string name, const LayoutCollective& c) const {
    ExecutionNode n;
    n.name = std::move(name);
    n.kind = NodeKind::collective;
    n.collective = c.op;
    n.comm_size = c.bytes;
    n.pg_name = names_.at(c.role);
    return n;
  }

  // The chunk's units gathered (all-gather of each bucket's parameters, first layers first) on the data-parallel
  // stream; returns the last one's id.
  std::uint64_t gathers(const LayoutChunk& chunk) {
    for (auto u = chunk.units.rbegin(); u != chunk.units.rend(); ++u) {
      LayoutCollective gather = u->collective;
      gather.op = CollectiveKind::all_gather;
      stream_ = add(collective("bucket all_gather", gather), {}, stream_);
    }
    return *stream_;
  }

  // A point-to-point transfer between this rank and its peer of stage `peer` (global chunk boundary `boundary`).
  ExecutionNode transfer(NodeKind kind, std::int64_t peer_stage, std::int64_t boundary, const PipelinePass& pass) {
    RankCoordinates peer = at_;
    peer.pipeline = peer_stage;
    ExecutionNode n;
    n.kind = kind;
    const bool sending = kind == NodeKind::send;
    n.name = fmt::format("{} {} mb {}", sending ? "send" : "recv", pass.backward ? "gradient" : "activation",
                         pass.micro_batch);
    n.comm_src = sending ? rank_ : layout_.rank(peer);
    n.comm_dst = sending ? layout_.rank(peer) : rank_;
    n.comm_tag = 2 * (pass.micro_batch * w_.sizes.pipeline * w_.chunks + boundary) + (pass.backward ? 1 : 0);
    n.comm_size = w_.transfer_bytes;
    return n;
  }

  // The pass's nodes; returns its compute segments' ids. The device's chain continues from its last compute or
  // collective (a send does not hold the device).
  std::vector<std::uint64_t> run_pass(const PipelinePass& pass, const LayoutPass& work,
                                      std::vector<std::uint64_t> deps) {
    const std::int64_t p = w_.sizes.pipeline;
    const std::int64_t g = pass.chunk * p + at_.pipeline;
    const std::int64_t last = p * w_.chunks - 1;
    const auto tag = [&](ExecutionNode n) {
      n.micro_batch = pass.micro_batch;
      n.chunk = pass.chunk;
      n.backward = pass.backward;
      return n;
    };
    const std::int64_t from = pass.backward ? g + 1 : g - 1;  // the chunk the input comes from
    const std::int64_t to = pass.backward ? g - 1 : g + 1;
    if (from >= 0 && from <= last) {
      const std::uint64_t recv =
          add(tag(transfer(NodeKind::recv, from % p, std::min(from, g), pass)), std::move(deps), std::nullopt);
      deps = {recv};
    }
    std::vector<std::uint64_t> ids;
    const char* direction = pass.backward ? "backward" : "forward";
    for (std::size_t k = 0; k < work.segments.size(); ++k) {
      ExecutionNode n =
          compute_node(0,
                       work.segments.size() > 1
                           ? fmt::format("{} mb {} chunk {} segment {}", direction, pass.micro_batch, pass.chunk, k)
                           : fmt::format("{} mb {} chunk {}", direction, pass.micro_batch, pass.chunk),
                       work.segments[k], {});
      if (k == 0) {
        n.num_ops = work.work.ops;
        n.tensor_size = work.work.bytes;
        if (pass.backward) n.recompute_ps = work.recompute.ps();
      }
      ids.push_back(add(tag(std::move(n)), ids.empty() ? std::move(deps) : std::vector{ids.back()}, std::nullopt));
    }
    chain_ = ids.back();
    for (const LayoutCollective& c : work.collectives) {
      chain_ =
          add(tag(collective(fmt::format("{} {} {}", direction, to_string(c.role), to_string(c.op)), c)), {}, chain_);
    }
    if (to >= 0 && to <= last) add(tag(transfer(NodeKind::send, to % p, std::min(to, g), pass)), {}, chain_);
    return ids;
  }

  const LayoutWorkload& w_;
  RankLayout layout_;
  std::int64_t rank_;
  RankCoordinates at_;
  ExecutionTrace trace_;
  std::uint64_t next_ = 0;
  std::optional<std::uint64_t> chain_;   // the device's last compute or inline collective
  std::optional<std::uint64_t> stream_;  // the data-parallel stream's last collective
  std::map<GroupRole, std::string> names_;
};

}  // namespace

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
  }
  return "unknown";
}

SimTime LayoutPass::compute() const {
  SimTime total;
  for (const SimTime t : segments) total += t;
  return total;
}

ExecutionTrace execution_trace(const LayoutWorkload& workload, std::int64_t rank) {
  return RankWriter(workload, rank).write();
}

}  // namespace syncsim::chakra
