// The traces of a model-parallel layout read back (layout_workload.hpp): one rank per stage, each walked
// dependencies first, its passes, collectives, transfers, buckets and step gathered into the stage's workload.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "syncsim/chakra/layout_workload.hpp"
#include "syncsim/chakra/process_groups.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/pipeline_schedule.hpp"
#include "trace_graph.hpp"

namespace syncsim::chakra {

namespace {

// One stage's trace as read: its workload, the order of its passes, and what the whole layout must agree on.
struct StageReading {
  LayoutStage stage;
  std::vector<PipelinePass> order;
  std::int64_t micro_batches = 0;
  std::int64_t chunks = 0;
  std::optional<std::int64_t> transfer_bytes;
  std::optional<ShardingLevel> sharding;
  std::size_t gathers = 0;
  std::vector<std::int64_t> gather_bytes;  // each ALL_GATHER's, in the trace's order
};

class StageReader {
 public:
  StageReader(const ExecutionTrace& trace, const std::string& source, const RankLayout& layout, std::int64_t expert)
      : trace_(trace),
        graph_(trace, source),
        groups_(process_groups(trace, source)),
        source_(source),
        layout_(layout),
        expert_(expert) {}

  StageReading read() {
    segment_of_.assign(trace_.nodes.size(), std::nullopt);
    overlap_of_.assign(trace_.nodes.size(), std::nullopt);
    for (const std::size_t i : graph_.order()) {
      const ExecutionNode& n = trace_.nodes[i];
      if (n.kind == NodeKind::compute && n.is_cpu_op) continue;
      const bool tagged = n.micro_batch && n.chunk && n.backward;
      if (!tagged && (n.micro_batch || n.chunk || n.backward)) {
        throw graph_.error(n, "syncsim_micro_batch, syncsim_chunk and syncsim_backward go together");
      }
      if (tagged) {
        pass_node(i, n);
      } else if (n.kind == NodeKind::compute) {
        out_.stage.step += graph_.time_of(n);
        stepped_ = true;
        if (n.num_ops) out_.stage.step_work = {*n.num_ops, n.tensor_size.value_or(0)};
      } else if (n.kind == NodeKind::collective) {
        data_parallel(i, n);
      } else {
        throw graph_.error(n, "a layout's trace holds compute, collectives, sends and receives only");
      }
    }
    check_micro_batches();
    collect_buckets();
    if (!out_.sharding) out_.sharding = ShardingLevel::none;
    return std::move(out_);
  }

 private:
  using PassKey = std::tuple<std::int64_t, std::int64_t, bool>;  // micro-batch, chunk, backward

  // A pass's collective, or (`bucket`) one outside the passes, whose data-parallel kinds are tried first: with expert
  // parallelism over the whole data-parallel group an expert group is a data-parallel group too.
  LayoutCollective collective_of(const ExecutionNode& n, bool bucket = false) const {
    if (!n.collective) throw graph_.error(n, "a collective without a comm_type attribute");
    if (!n.comm_size || *n.comm_size <= 0) throw graph_.error(n, "a collective needs a comm_size above zero");
    std::vector<std::int64_t> ranks = group_ranks(n, groups_, trace_.ranks, source_);
    // In a pass, a stage-wide group is the FP8 amaxes' before it is a data-parallel one (with neither tensor nor
    // context parallelism they are the same ranks).
    const std::array<GroupRole, 6> in_pass = {GroupRole::tensor, GroupRole::context, GroupRole::expert,
                                              GroupRole::amax,   GroupRole::data,    GroupRole::expert_data};
    const std::array<GroupRole, 6> outside = {GroupRole::data,    GroupRole::expert_data, GroupRole::tensor,
                                              GroupRole::context, GroupRole::expert,      GroupRole::amax};
    for (const GroupRole role : bucket ? outside : in_pass) {
      for (const auto& group : role_groups(layout_, role, expert_)) {
        if (std::equal(group.begin(), group.end(), ranks.begin(), ranks.end(),
                       [](std::size_t a, std::int64_t b) { return static_cast<std::int64_t>(a) == b; })) {
          return {.op = *n.collective, .bytes = *n.comm_size, .role = role, .ranks = std::move(ranks)};
        }
      }
    }
    throw graph_.error(n, fmt::format("its process group '{}' ({} ranks from {}) is none of the scenario's layout's "
                                      "tensor, context, expert, data-parallel or FP8 amax groups",
                                      n.pg_name.value_or("0"), ranks.size(), ranks.empty() ? -1 : ranks.front()));
  }

  LayoutPass& pass_of(std::int64_t chunk, bool backward) {
    if (out_.stage.chunks.size() <= static_cast<std::size_t>(chunk)) {
      out_.stage.chunks.resize(static_cast<std::size_t>(chunk) + 1);
    }
    LayoutChunk& c = out_.stage.chunks[static_cast<std::size_t>(chunk)];
    return backward ? c.backward : c.forward;
  }

  void pass_node(std::size_t i, const ExecutionNode& n) {
    if (*n.micro_batch < 0 || *n.chunk < 0 || *n.micro_batch >= (1 << 20) || *n.chunk >= (1 << 10)) {
      throw graph_.error(n, fmt::format("micro-batch {} or chunk {} out of range", *n.micro_batch, *n.chunk));
    }
    const PassKey key{*n.micro_batch, *n.chunk, *n.backward};
    if (seen_.emplace(key, Totals{}).second) {
      out_.order.push_back({.backward = *n.backward, .micro_batch = *n.micro_batch, .chunk = *n.chunk});
    }
    out_.micro_batches = std::max(out_.micro_batches, *n.micro_batch + 1);
    out_.chunks = std::max(out_.chunks, *n.chunk + 1);
    Totals& totals = seen_[key];
    const bool first = *n.micro_batch == 0;
    LayoutPass& pass = pass_of(*n.chunk, *n.backward);
    if (n.kind == NodeKind::compute) {
      const SimTime t = graph_.time_of(n);
      totals.compute += t;
      if (n.recompute_ps) totals.recompute += SimTime::from_ps(*n.recompute_ps);
      segment_of_[i] = totals.segments++;
      if (!first) return;
      pass.segments.push_back(t);
      if (n.recompute_ps) pass.recompute += SimTime::from_ps(*n.recompute_ps);
      if (n.num_ops) pass.work = {*n.num_ops, n.tensor_size.value_or(0)};
    } else if (n.kind == NodeKind::collective) {
      const LayoutCollective c = collective_of(n);
      if (c.op != CollectiveKind::all_reduce && c.op != CollectiveKind::all_gather &&
          c.op != CollectiveKind::reduce_scatter && c.op != CollectiveKind::all_to_all) {
        throw graph_.error(n, fmt::format("a pass's {} is not simulated (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER and "
                                          "ALL_TO_ALL are)",
                                          to_string(c.op)));
      }
      totals.collectives.push_back({c.op, c.bytes});
      if (!first) return;
      if (overlapped(i, n, c, pass)) return;
      pass.collectives.push_back(c);
    } else if (n.kind == NodeKind::send || n.kind == NodeKind::recv) {
      if (!n.comm_size || *n.comm_size <= 0) throw graph_.error(n, "a transfer needs a comm_size above zero");
      if (out_.transfer_bytes && *out_.transfer_bytes != *n.comm_size) {
        throw graph_.error(n, fmt::format("moves {} bytes where the pipeline's other transfers move {}: syncsim "
                                          "runs one activation size between stages",
                                          *n.comm_size, *out_.transfer_bytes));
      }
      out_.transfer_bytes = *n.comm_size;
    } else {
      throw graph_.error(n, "a pass holds compute, collectives, sends and receives only");
    }
  }

  // Whether node i is a chunk of a tensor collective beside GEMMs (tp_comm_overlap): its first chunk carries
  // syncsim_overlap_ps, each next one depends on the one before. Adds it to the pass's overlaps.
  bool overlapped(std::size_t i, const ExecutionNode& n, const LayoutCollective& c, LayoutPass& pass) {
    if (!n.overlap_ps && (n.overlap_method || n.overlap_sms)) {
      throw graph_.error(n,
                         "syncsim_overlap_method or syncsim_overlap_sms without syncsim_overlap_ps: only the first "
                         "chunk of an overlapped tensor collective says how it runs");
    }
    if (n.overlap_ps) {
      if (c.role != GroupRole::tensor ||
          (c.op != CollectiveKind::all_gather && c.op != CollectiveKind::reduce_scatter)) {
        throw graph_.error(n, "syncsim_overlap_ps on a collective that is no tensor ALL_GATHER or REDUCE_SCATTER");
      }
      overlap_of_[i] = pass.overlaps.size();
      const std::int64_t method = n.overlap_method.value_or(0);
      if (method < 0 || method > static_cast<std::int64_t>(OverlapMethod::ring_exchange_pairs)) {
        throw graph_.error(n, fmt::format("syncsim_overlap_method {} is none of 0 (chunked), 1 (on the SMs it leaves), "
                                          "2 (bulk), 3 (ring exchange) and 4 (ring exchange in pairs)",
                                          method));
      }
      if (n.overlap_sms && *n.overlap_sms < 0) {
        throw graph_.error(n, fmt::format("syncsim_overlap_sms {} is negative", *n.overlap_sms));
      }
      pass.overlaps.push_back({.op = c.op,
                               .bytes = c.bytes,
                               .chunks = 1,
                               .beside = SimTime::from_ps(*n.overlap_ps),
                               .method = static_cast<OverlapMethod>(method),
                               .sms = n.overlap_sms});
      return true;
    }
    for (const std::size_t d : graph_.deps(i)) {
      if (!overlap_of_[d] || *overlap_of_[d] >= pass.overlaps.size()) continue;
      LayoutOverlap& o = pass.overlaps[*overlap_of_[d]];
      const ExecutionNode& before = trace_.nodes[d];
      const bool same_pass =
          before.micro_batch == n.micro_batch && before.chunk == n.chunk && before.backward == n.backward;
      if (c.role != GroupRole::tensor || c.op != o.op || before.kind != NodeKind::collective || !same_pass) continue;
      o.bytes += c.bytes;
      ++o.chunks;
      overlap_of_[i] = overlap_of_[d];
      return true;
    }
    return false;
  }

  // A collective outside the passes: a bucket's reduction, or (sharded) its parameters' gather.
  void data_parallel(std::size_t i, const ExecutionNode& n) {
    LayoutCollective c = collective_of(n, true);
    if (c.op == CollectiveKind::all_gather) {
      // Before the step: the fully sharded parameters gathered for the forwards; after it, for the next iteration.
      const ShardingLevel level = stepped_ ? ShardingLevel::optimizer : ShardingLevel::full;
      if (out_.sharding && *out_.sharding != ShardingLevel::none && *out_.sharding != level && gathers_ > 0) {
        throw graph_.error(n, "gathers both before and after the optimizer step");
      }
      out_.sharding = level;
      ++out_.gathers;
      ++gathers_;
      out_.gather_bytes.push_back(c.bytes);
      return;
    }
    if (c.op != CollectiveKind::all_reduce && c.op != CollectiveKind::reduce_scatter) {
      throw graph_.error(n, fmt::format("a data-parallel {} outside the passes: buckets are reduced by ALL_REDUCE "
                                        "or REDUCE_SCATTER and gathered by ALL_GATHER",
                                        to_string(c.op)));
    }
    const bool scatter = c.op == CollectiveKind::reduce_scatter;
    if (scatter && !out_.sharding) out_.sharding = ShardingLevel::optimizer;
    // The bucket is complete after the latest backward segment it depends on.
    std::optional<std::size_t> from;
    for (const std::size_t d : graph_.deps(i)) {
      if (segment_of_[d] && (!from || d > *from)) from = d;
    }
    if (!from) throw graph_.error(n, "a bucket's reduction that depends on no backward compute");
    const ExecutionNode& segment = trace_.nodes[*from];
    const bool expert = c.role == GroupRole::expert_data;
    if (c.role != GroupRole::data && !expert) {
      throw graph_.error(n,
                         fmt::format("a bucket's reduction on a {} group, not a data-parallel one", to_string(c.role)));
    }
    reductions_[{*segment.chunk, *segment.micro_batch}].push_back(
        {.collective = std::move(c), .segment = *segment_of_[*from], .expert = expert});
  }

  // Each chunk's buckets: reduced after one micro-batch's backward (the last), or under ZeRO-2, which keeps only its
  // shard of the gradients, reduce-scattered alike after every one.
  void collect_buckets() {
    std::map<std::int64_t, std::int64_t> reduced_after;  // chunk: micro-batches whose backward its buckets follow
    for (const auto& [key, units] : reductions_) ++reduced_after[key.first];
    for (const auto& [key, units] : reductions_) {
      const auto& [chunk, micro_batch] = key;
      const std::int64_t times = reduced_after[chunk];
      const auto fail = [&](const std::string& what) {
        return InputError(fmt::format("chunk {}'s buckets after micro-batch {}: {}", chunk, micro_batch, what),
                          SourceLocation{source_, 0, 0});
      };
      if (times > 1) {
        if (times != out_.micro_batches) {
          throw fail(
              fmt::format("reduced after {} of the {} micro-batches: once, after the last, or after every one "
                          "(ZeRO-2)",
                          times, out_.micro_batches));
        }
        const bool scattered = std::all_of(units.begin(), units.end(), [](const LayoutUnit& u) {
          return u.collective.op == CollectiveKind::reduce_scatter;
        });
        if (!scattered || out_.sharding == ShardingLevel::full) {
          throw fail(
              "reduced after every micro-batch by other than ZeRO-2's REDUCE_SCATTERs with the parameters "
              "gathered after the step");
        }
        if (!same_units(units, reductions_.at({chunk, 0}))) throw fail("not micro-batch 0's buckets");
        out_.sharding = ShardingLevel::gradients;
      }
      if (micro_batch + 1 == out_.micro_batches || times == 1) {
        out_.stage.chunks.at(static_cast<std::size_t>(chunk)).units = units;
      }
    }
  }

  static bool same_units(const std::vector<LayoutUnit>& a, const std::vector<LayoutUnit>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const LayoutUnit& x, const LayoutUnit& y) {
      return x.segment == y.segment && x.expert == y.expert && x.collective.op == y.collective.op &&
             x.collective.bytes == y.collective.bytes && x.collective.role == y.collective.role;
    });
  }

  // Every micro-batch's pass must be the first one's: syncsim runs identical micro-batches.
  void check_micro_batches() const {
    for (const auto& [key, totals] : seen_) {
      const auto& [mb, chunk, backward] = key;
      const Totals& first = seen_.at({0, chunk, backward});
      if (totals.compute != first.compute || totals.recompute != first.recompute ||
          totals.collectives != first.collectives) {
        throw InputError(fmt::format("micro-batch {}'s {} pass through chunk {} differs from micro-batch 0's: "
                                     "syncsim runs identical micro-batches",
                                     mb, backward ? "backward" : "forward", chunk),
                         SourceLocation{source_, 0, 0});
      }
    }
  }

  struct Totals {
    SimTime compute;
    SimTime recompute;
    std::vector<std::pair<CollectiveKind, std::int64_t>> collectives;
    std::size_t segments = 0;
  };

  const ExecutionTrace& trace_;
  TraceGraph graph_;
  std::map<std::string, ProcessGroup> groups_;
  const std::string& source_;
  const RankLayout& layout_;
  std::int64_t expert_;
  StageReading out_;
  std::map<PassKey, Totals> seen_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<LayoutUnit>> reductions_;  // [chunk, micro-batch]
  std::vector<std::optional<std::size_t>> segment_of_;  // per node: its index among its backward pass's segments
  std::vector<std::optional<std::size_t>> overlap_of_;  // per chunk node: its index among its pass's overlaps
  bool stepped_ = false;
  std::size_t gathers_ = 0;
};

// The schedule whose order every stage's passes follow.
std::optional<PipelineSchedule> schedule_of(const std::vector<StageReading>& stages, std::int64_t m, std::int64_t v) {
  const auto p = static_cast<std::int64_t>(stages.size());
  for (const PipelineSchedule s :
       {PipelineSchedule::one_f_one_b, PipelineSchedule::gpipe, PipelineSchedule::interleaved}) {
    bool all = true;
    for (std::int64_t d = 0; d < p && all; ++d) {
      try {
        const std::vector<PipelinePass> order = pipeline_order(s, d, p, m, v);
        const std::vector<PipelinePass>& read = stages[static_cast<std::size_t>(d)].order;
        all = order.size() == read.size() &&
              std::equal(order.begin(), order.end(), read.begin(), [](const PipelinePass& a, const PipelinePass& b) {
                return a.backward == b.backward && a.micro_batch == b.micro_batch && a.chunk == b.chunk;
              });
      } catch (const InputError&) {
        all = false;
      }
    }
    if (all) return s;
  }
  return std::nullopt;
}

}  // namespace

LayoutWorkload layout_workload(const std::vector<ExecutionTrace>& traces, const std::vector<std::string>& sources,
                               const LayoutSizes& sizes, std::int64_t expert) {
  LayoutWorkload w;
  w.sizes = sizes;
  w.expert = expert;
  const RankLayout layout(sizes);
  std::vector<StageReading> stages;
  for (std::size_t d = 0; d < traces.size(); ++d) {
    stages.push_back(StageReader(traces[d], sources[d], layout, expert).read());
    const StageReading& s = stages.back();
    const auto fail = [&](const std::string& what) { return InputError(what, SourceLocation{sources[d], 0, 0}); };
    if (s.order.empty()) throw fail("no pass (nodes with syncsim_micro_batch, syncsim_chunk, syncsim_backward)");
    if (d == 0) {
      w.name = traces[d].workload;
      w.micro_batches = s.micro_batches;
      w.chunks = s.chunks;
      w.sharding = *s.sharding;
      w.transfer_bytes = s.transfer_bytes.value_or(0);
    } else if (s.micro_batches != w.micro_batches || s.chunks != w.chunks) {
      throw fail(fmt::format("{} micro-batches through {} chunks, where stage 0 runs {} through {}", s.micro_batches,
                             s.chunks, w.micro_batches, w.chunks));
    } else if (*s.sharding != w.sharding) {
      throw fail("its buckets are sharded otherwise than stage 0's");
    }
    if (static_cast<std::int64_t>(s.stage.chunks.size()) != w.chunks) throw fail("a chunk without passes");
    if (sizes.pipeline > 1 && !s.transfer_bytes) throw fail("a pipeline stage without sends or receives");
    std::size_t units = 0;
    for (const LayoutChunk& c : s.stage.chunks) units += c.units.size();
    if (w.sharding != ShardingLevel::none && s.gathers != units) {
      throw fail(
          fmt::format("{} bucket reductions but {} gathers: a sharded bucket is gathered once", units, s.gathers));
    }
    w.stages.push_back(s.stage);
    // The gathers run chunk by chunk, each chunk's first layers first (its units in reverse), as syncsim writes them.
    std::size_t k = 0;
    for (LayoutChunk& c : w.stages.back().chunks) {
      for (auto u = c.units.rbegin(); u != c.units.rend() && k < s.gather_bytes.size(); ++u, ++k) {
        if (s.gather_bytes[k] != u->collective.bytes) u->gather_bytes = s.gather_bytes[k];
      }
    }
  }
  const std::optional<PipelineSchedule> schedule = schedule_of(stages, w.micro_batches, w.chunks);
  if (!schedule) {
    throw InputError("the stages' passes follow none of the schedules syncsim runs (1f1b, gpipe, interleaved)",
                     SourceLocation{sources.front(), 0, 0});
  }
  w.schedule = *schedule;
  return w;
}

}  // namespace syncsim::chakra
