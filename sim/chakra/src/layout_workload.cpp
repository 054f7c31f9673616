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
    std::vector<std::uint64_t> last_reductions;  // the buckets' reductions after the last micro-batch
    // The chunk's buckets reduced after its latest backward, on the data-parallel stream.
    const auto reduce = [&](std::size_t c, bool last) {
      for (const LayoutUnit& u : stage.chunks[c].units) {
        stream_ = add(collective(fmt::format("chunk {} bucket {}", c, to_string(u.collective.op)), u.collective),
                      {segments[c].at(u.segment)}, stream_);
        if (last) last_reductions.push_back(*stream_);
      }
    };
    // ZeRO-2 keeps only its shard of the gradients: every backward pass's buckets are reduce-scattered.
    const bool every_backward = w_.sharding == ShardingLevel::gradients;
    for (const PipelinePass& pass :
         pipeline_order(w_.schedule, at_.pipeline, w_.sizes.pipeline, w_.micro_batches, w_.chunks)) {
      const auto c = static_cast<std::size_t>(pass.chunk);
      std::vector<std::uint64_t> deps = chain_;
      if (!pass.backward && gathered[c]) deps.push_back(*std::exchange(gathered[c], std::nullopt));
      segments[c] = run_pass(pass, pass.backward ? stage.chunks[c].backward : stage.chunks[c].forward, deps);
      if (!pass.backward) continue;
      const bool last = pass.micro_batch + 1 == w_.micro_batches;
      if (every_backward) {
        reduce(c, last);
      } else if (last) {
        completed.push_back(c);
      }
    }
    for (const std::size_t c : completed) reduce(c, true);
    std::vector<std::uint64_t> step_deps = chain_;
    step_deps.insert(step_deps.end(), last_reductions.begin(), last_reductions.end());
    ExecutionNode step = compute_node(0, "optimizer step", stage.step, {});
    step.num_ops = stage.step_work.ops;
    step.tensor_size = stage.step_work.bytes;
    // After the last bucket (already among step_deps when there is one): no dependency listed twice, which a feeder
    // that counts a node's parents would wait on forever.
    if (stream_ && std::find(step_deps.begin(), step_deps.end(), *stream_) == step_deps.end()) {
      step_deps.push_back(*stream_);
    }
    stream_ = add(std::move(step), step_deps, std::nullopt);
    if (w_.sharding != ShardingLevel::none && !full) {
      for (const LayoutChunk& chunk : stage.chunks) gathers(chunk);
    }
    return std::move(trace_);
  }

 private:
  void describe_groups() {
    trace_.nodes.push_back(
        process_group_node(next_++, layout_process_groups(layout_, w_.expert, rank_, &names_, w_.amax)));
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
      if (u->gather_bytes > 0) gather.bytes = u->gather_bytes;
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
    std::optional<std::uint64_t> beside;  // the last chunk of the overlapped collective whose GEMM is computing
    for (std::size_t k = 0; k < work.segments.size(); ++k) {
      for (const LayoutOverlap& o : work.overlaps) {
        if (o.gemm.empty() || o.gemm.front() != k) continue;
        beside = overlap_chunks(o, tag, direction, deps);
        // The GEMM waits for chunk 0 only; beside a bulk collective or a ring exchange (whose GEMM starts on the
        // rank's own shard), for nothing more than the collective does.
        if (o.method != OverlapMethod::bulk && o.method != OverlapMethod::ring_exchange) {
          deps = {*beside - static_cast<std::uint64_t>(o.chunks - 1)};
        }
      }
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
      ids.push_back(add(tag(std::move(n)), std::move(deps), std::nullopt));
      deps = {ids.back()};
      for (const LayoutOverlap& o : work.overlaps) {
        if (!o.gemm.empty() && o.gemm.back() == k && beside) deps.push_back(*std::exchange(beside, std::nullopt));
      }
    }
    chain_ = std::move(deps);
    for (const LayoutCollective& c : work.collectives) {
      chain_ = {add(tag(collective(fmt::format("{} {} {}", direction, to_string(c.role), to_string(c.op)), c)),
                    std::move(chain_), std::nullopt)};
    }
    if (to >= 0 && to <= last) add(tag(transfer(NodeKind::send, to % p, std::min(to, g), pass)), chain_, std::nullopt);
    return ids;
  }

  // An overlapped collective's chunks on the tensor group, chunk 0 after `deps`, each next one after the one before
  // (ids consecutive); returns the last one's id.
  template <typename Tag>
  std::uint64_t overlap_chunks(const LayoutOverlap& o, const Tag& tag, const char* direction,
                               const std::vector<std::uint64_t>& deps) {
    std::optional<std::uint64_t> previous;
    for (std::int64_t j = 0; j < o.chunks; ++j) {
      LayoutCollective part{
          .op = o.op, .bytes = o.bytes / o.chunks + (j < o.bytes % o.chunks ? 1 : 0), .role = GroupRole::tensor};
      ExecutionNode n =
          collective(fmt::format("{} tensor {} chunk {} of {}", direction, to_string(o.op), j, o.chunks), part);
      if (j == 0) {
        n.overlap_ps = o.beside.ps();
        n.overlap_method = static_cast<std::int64_t>(o.method);
        n.overlap_sms = o.sms;
      }
      previous = add(tag(std::move(n)), previous ? std::vector{*previous} : deps, std::nullopt);
    }
    return *previous;
  }

  const LayoutWorkload& w_;
  RankLayout layout_;
  std::int64_t rank_;
  RankCoordinates at_;
  ExecutionTrace trace_;
  std::uint64_t next_ = 0;
  std::vector<std::uint64_t> chain_;     // the device's last compute or inline collective (and overlapped chunks)
  std::optional<std::uint64_t> stream_;  // the data-parallel stream's last collective
  std::map<GroupRole, std::string> names_;
};

}  // namespace

SimTime LayoutPass::compute() const {
  SimTime total;
  for (const SimTime t : segments) total += t;
  return total;
}

ExecutionTrace execution_trace(const LayoutWorkload& workload, std::int64_t rank) {
  return RankWriter(workload, rank).write();
}

}  // namespace syncsim::chakra
