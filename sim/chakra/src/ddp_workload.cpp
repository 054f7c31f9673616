// One DDP iteration to a rank's execution trace and back (ddp_workload.hpp has the graph and the mapping).
#include "syncsim/chakra/ddp_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "syncsim/chakra/process_groups.hpp"
#include "syncsim/core/input_error.hpp"
#include "trace_graph.hpp"

namespace syncsim::chakra {

namespace {

constexpr std::string_view kForward = " forward";
constexpr std::string_view kBackward = " backward";

// `n` with the work ASTRA-sim's roofline mode times it by, when the workload has it.
ExecutionNode with_work(ExecutionNode n, const std::vector<NodeWork>& work, std::size_t layer) {
  if (layer >= work.size()) return n;
  n.num_ops = work[layer].ops;
  n.tensor_size = work[layer].bytes;
  return n;
}

bool ends_with(std::string_view text, std::string_view end) {
  return text.ends_with(end);
}

}  // namespace

namespace {

// One rank's file, written in node order: ids count up from 0 (the METADATA_NODE), every dependency earlier.
class DdpWriter {
 public:
  DdpWriter(const DdpWorkload& w, ExecutionTrace& trace) : w_(w), trace_(trace) {
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

  // A bucket's collective on the one communication stream, after `deps` and the stream's previous one.
  std::uint64_t collective(CollectiveKind op, std::size_t unit, std::vector<std::uint64_t> deps,
                           std::optional<std::int64_t> micro_batch) {
    ExecutionNode n;
    n.name = fmt::format("bucket {} {}", unit, op == CollectiveKind::all_reduce ? "all_reduce" : to_string(op));
    n.kind = NodeKind::collective;
    n.data_deps = std::move(deps);
    if (stream_) n.data_deps.push_back(*stream_);
    n.collective = op;
    n.comm_size = w_.buckets.buckets[unit].bytes.value;
    n.pg_name = std::string(kDefaultProcessGroup);
    n.micro_batch = micro_batch;
    stream_ = add(std::move(n));
    return *stream_;
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
      ExecutionNode n = with_work(compute_node(0, w_.layers[i] + std::string(kForward), w_.times.forward[i], deps),
                                  w_.forward_work, i);
      n.micro_batch = mb;
      if (w_.sharding != ShardingLevel::none && unit_of_[i]) n.bucket = static_cast<std::int64_t>(*unit_of_[i]);
      previous = add(std::move(n));
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
      ExecutionNode n = with_work(compute_node(0, w_.layers[i] + std::string(kBackward), w_.times.backward[i], deps),
                                  w_.backward_work, i);
      n.micro_batch = mb;
      previous = backward[i] = add(std::move(n));
    }
    return backward;
  }

  const std::optional<std::uint64_t>& stream() const { return stream_; }

 private:
  const DdpWorkload& w_;
  ExecutionTrace& trace_;
  std::uint64_t next_ = 0;
  std::optional<std::uint64_t> stream_;
  std::vector<std::optional<std::size_t>> unit_of_;  // per layer: its bucket (none for a layer without gradients)
};

}  // namespace

ExecutionTrace execution_trace(const DdpWorkload& w, std::int64_t rank) {
  ExecutionTrace trace;
  trace.version = std::string(kSchemaVersion);
  trace.workload = w.name;
  trace.rank = rank;
  trace.ranks = w.ranks;
  DdpWriter out(w, trace);
  // Id 0 describes the process groups (the feeder issues the lowest ids first): the default one, every rank.
  std::vector<std::int64_t> all(static_cast<std::size_t>(w.ranks));
  for (std::size_t r = 0; r < all.size(); ++r) all[r] = static_cast<std::int64_t>(r);
  out.add(process_group_node(0, {{std::string(kDefaultProcessGroup), "default_pg", std::move(all)}}));
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
  // The rank's step: its shard's when sharded (the engine's ceil(step / d)).
  const SimTime step = sharded ? SimTime::from_ps((w.optimizer.ps() + w.ranks - 1) / w.ranks) : w.optimizer;
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

namespace {

// A bucket's reduction: an ALL_REDUCE (DDP), or a REDUCE_SCATTER (ZeRO).
bool reduces(const ExecutionNode& n) {
  return n.kind == NodeKind::collective && n.collective &&
         (*n.collective == CollectiveKind::all_reduce || *n.collective == CollectiveKind::reduce_scatter);
}

// Whether `n` may begin a new iteration when it comes after a collective: a layer's forward (syncsim's "<layer>
// forward", Chakra's text converter's "COMP_NODE_<layer>_FWD"), or PyTorch's profiler step marker.
bool starts_iteration(const ExecutionNode& n) {
  return n.kind == NodeKind::compute &&
         (n.name.ends_with(kForward) || n.name.ends_with("_FWD") || n.name.starts_with("ProfilerStep#"));
}

// The import's reading of the graph: per node, what it depends on, found in one walk, dependencies first
// (TraceGraph: nodes in any order, indexed by id). CPU ops are not on the GPU's compute stream: what depends on one
// depends on what it depends on. A forward (or ProfilerStep#) after a collective begins the next iteration; only the
// first iteration is read.
class GraphReading {
 public:
  GraphReading(const ExecutionTrace& trace, const std::string& source)
      : trace_(trace), source_(source), graph_(trace, source), groups_(process_groups(trace, source)) {}

  [[nodiscard]] InputError error(const ExecutionNode& n, const std::string& what) const {
    return graph_.error(n, what);
  }

  void read() {
    facts_.resize(trace_.nodes.size());
    for (const std::size_t i : graph_.order()) {
      const ExecutionNode& n = trace_.nodes[i];
      Facts facts;
      for (const std::size_t d : graph_.deps(i)) facts.iteration = std::max(facts.iteration, facts_[d].iteration);
      for (const std::size_t d : graph_.deps(i)) {
        const Facts& dep = facts_[d];
        if (dep.iteration != facts.iteration) continue;
        const bool collective = reduces(trace_.nodes[d]);  // a gather before a forward is not the step's
        facts.after_collective = facts.after_collective || dep.after_collective || collective;
        // What a collective waited for is not what a node after it waits for (the stream's order is not data).
        if (trace_.nodes[d].kind != NodeKind::collective) {
          facts.latest_stream = std::max(facts.latest_stream, dep.stream ? dep.stream : dep.latest_stream);
        }
      }
      // A gather (ZeRO) feeds the forwards: what follows it is not the step's.
      if (n.kind == NodeKind::collective && n.collective == CollectiveKind::all_gather) facts.after_collective = false;
      if (facts.after_collective && starts_iteration(n)) facts = Facts{.iteration = facts.iteration + 1};
      iterations_ = std::max(iterations_, facts.iteration + 1);
      if (facts.iteration == 0) {
        check_kind(n);
        if (n.kind == NodeKind::compute && !n.is_cpu_op && !facts.after_collective) {
          // A later micro-batch's node stands for its counterpart in the first (syncsim's export: the same layers
          // in the same order); only the first micro-batch's nodes are the stream's.
          const auto mb = static_cast<std::size_t>(std::max<std::int64_t>(0, n.micro_batch.value_or(0)));
          if (mb >= later_.size()) later_.resize(mb + 1, 0);
          micro_batches_ = std::max(micro_batches_, mb + 1);
          facts.stream = mb == 0 ? ++stream_count_ : ++later_[mb];
          if (mb > 0) {
            if (facts.stream > stream_count_) throw error(n, "a later micro-batch with more compute than the first");
            facts_[i] = facts;
            continue;
          }
        }
        walk_.push_back(i);
      }
      facts_[i] = facts;
    }
  }

  // What a node depends on: 1-based stream positions (0: none), so that max() picks the latest.
  struct Facts {
    std::size_t iteration = 0;      // 0: the first, the one read
    bool after_collective = false;  // a compute node after it is optimizer work
    std::size_t stream = 0;         // its own position on the compute stream (GPU compute nodes only)
    std::size_t latest_stream = 0;  // the latest stream position it depends on, through any chain
  };
  const std::vector<Facts>& facts() const { return facts_; }
  std::size_t stream_count() const { return stream_count_; }
  // The first iteration's nodes, dependencies first; no METADATA_NODE.
  const std::vector<std::size_t>& walk() const { return walk_; }
  std::size_t iterations() const { return iterations_; }
  std::size_t micro_batches() const { return micro_batches_; }
  std::int64_t world() const { return world_size(trace_, groups_); }
  const std::vector<std::size_t>& deps(std::size_t node) const { return graph_.deps(node); }

  SimTime time_of(const ExecutionNode& n) const { return graph_.time_of(n); }

 private:
  void check_kind(const ExecutionNode& n) const {
    if (n.kind == NodeKind::compute) return;
    if (n.kind == NodeKind::send || n.kind == NodeKind::recv) {
      throw error(n,
                  "a point-to-point transfer: a data-parallel import has none (a pipeline's trace is imported with "
                  "its layout, parallelism.pipeline > 1)");
    }
    if (n.kind != NodeKind::collective) {
      throw error(n, "syncsim imports COMP_NODE and COMM_COLL_NODE (ALL_REDUCE) only");
    }
    if (!n.collective) throw error(n, "a collective without a comm_type attribute");
    if (!reduces(n) && *n.collective != CollectiveKind::all_gather) {
      throw error(n, fmt::format("collective {} is not supported in a data-parallel import (ALL_REDUCE, or ZeRO's "
                                 "REDUCE_SCATTER and ALL_GATHER; a layout's collectives are imported with its "
                                 "parallelism)",
                                 to_string(*n.collective)));
    }
    if (!n.comm_size || *n.comm_size <= 0) throw error(n, "an ALL_REDUCE needs a comm_size attribute above zero");
    const std::int64_t world = world_size(trace_, groups_);
    const std::size_t ranks = group_ranks(n, groups_, world, source_).size();
    if (static_cast<std::int64_t>(ranks) != world) {
      throw error(n, fmt::format("runs on process group '{}', {} of the trace's {} ranks: a data-parallel import "
                                 "reduces over every rank (a layout's subgroups are imported with its parallelism)",
                                 n.pg_name.value_or("0"), ranks, world));
    }
  }

  const ExecutionTrace& trace_;
  const std::string& source_;
  TraceGraph graph_;
  std::map<std::string, ProcessGroup> groups_;
  std::vector<Facts> facts_;
  std::vector<std::size_t> walk_;
  std::size_t stream_count_ = 0;
  std::size_t iterations_ = 0;
  std::size_t micro_batches_ = 1;
  std::vector<std::size_t> later_;  // per later micro-batch: its compute nodes so far
};

std::string_view without(std::string_view name, std::string_view end) {
  return ends_with(name, end) ? name.substr(0, name.size() - end.size()) : name;
}

}  // namespace

namespace {

// The compute stream's nodes as layers; layer_of[k] is the layer of stream node k.
struct StreamLayers {
  std::vector<std::string> names;
  LayerTimes times;
  std::vector<std::size_t> layer_of;
};

// Where backward begins on the stream: the first node named "... backward", else the first one a collective
// depends on, else nowhere (all forward).
std::size_t backward_begin(const ExecutionTrace& trace, const GraphReading& graph,
                           const std::vector<std::size_t>& stream) {
  for (std::size_t k = 0; k < stream.size(); ++k) {
    if (ends_with(trace.nodes[stream[k]].name, kBackward)) return k;
  }
  std::size_t first = stream.size();
  for (const std::size_t i : graph.walk()) {
    const std::size_t latest = graph.facts()[i].latest_stream;
    if (reduces(trace.nodes[i]) && latest > 0) first = std::min(first, latest - 1);
  }
  return first;
}

// Forward nodes as layers; each backward node "X backward" as the backward of layer "X", when all pair so in
// reverse layer order. False (and `out` to be discarded) when they do not.
bool paired_layers(const ExecutionTrace& trace, const GraphReading& graph, const std::vector<std::size_t>& stream,
                   std::size_t begin, StreamLayers& out) {
  std::map<std::string_view, std::size_t> forward_of;
  for (std::size_t k = 0; k < begin; ++k) {
    const ExecutionNode& n = trace.nodes[stream[k]];
    out.names.emplace_back(without(n.name, kForward));
    out.times.forward.push_back(graph.time_of(n));
    out.times.backward.push_back(SimTime::zero());
    out.layer_of.push_back(k);
    if (ends_with(n.name, kForward)) forward_of.emplace(without(n.name, kForward), k);
  }
  std::size_t previous = begin;
  for (std::size_t k = begin; k < stream.size(); ++k) {
    const ExecutionNode& n = trace.nodes[stream[k]];
    const auto found = forward_of.find(without(n.name, kBackward));
    if (!ends_with(n.name, kBackward) || found == forward_of.end() || found->second >= previous) return false;
    previous = found->second;
    out.times.backward[previous] = graph.time_of(n);
    out.layer_of.push_back(previous);
  }
  return true;
}

// Forward nodes as forward-only layers, then the backward nodes as backward-only layers in reverse, so that DDP's
// walk from the last layer down runs them in file order.
StreamLayers unpaired_layers(const ExecutionTrace& trace, const GraphReading& graph,
                             const std::vector<std::size_t>& stream, std::size_t begin) {
  StreamLayers out;
  out.layer_of.resize(stream.size());
  for (std::size_t k = 0; k < begin; ++k) {
    out.names.push_back(trace.nodes[stream[k]].name);
    out.times.forward.push_back(graph.time_of(trace.nodes[stream[k]]));
    out.times.backward.push_back(SimTime::zero());
    out.layer_of[k] = k;
  }
  for (std::size_t k = stream.size(); k-- > begin;) {
    out.layer_of[k] = out.names.size();
    out.names.push_back(trace.nodes[stream[k]].name);
    out.times.forward.push_back(SimTime::zero());
    out.times.backward.push_back(graph.time_of(trace.nodes[stream[k]]));
  }
  return out;
}

}  // namespace

DdpWorkload ddp_workload(const ExecutionTrace& trace, const std::string& source) {
  GraphReading graph(trace, source);
  graph.read();
  DdpWorkload w;
  w.name = trace.workload;
  w.ranks = trace.ranks;
  w.iterations_in_trace = static_cast<std::int64_t>(graph.iterations());
  w.micro_batches = static_cast<std::int64_t>(graph.micro_batches());
  std::vector<std::size_t> stream;  // node indices
  for (const std::size_t i : graph.walk()) {
    if (trace.nodes[i].kind != NodeKind::compute || trace.nodes[i].is_cpu_op) continue;
    if (graph.facts()[i].after_collective) {
      w.optimizer += graph.time_of(trace.nodes[i]);
    } else {
      stream.push_back(i);
    }
  }
  if (stream.empty()) {
    throw InputError("no COMP_NODE runs before the collectives: there is no compute to map to layers",
                     SourceLocation{source, 0, 0});
  }
  const std::size_t begin = backward_begin(trace, graph, stream);
  StreamLayers layers;
  if (!paired_layers(trace, graph, stream, begin, layers)) layers = unpaired_layers(trace, graph, stream, begin);
  // A collective that depends on no backward node is ready when backward begins: after the last layer's.
  const std::size_t first_backward = begin < stream.size() ? layers.layer_of[begin] : layers.names.size() - 1;
  // The buckets are the last micro-batch's reductions (DDP and ZeRO-1 reduce in it only, ZeRO-2 and -3 in each).
  std::int64_t last = 0;
  for (const std::size_t i : graph.walk()) {
    if (reduces(trace.nodes[i])) last = std::max(last, trace.nodes[i].micro_batch.value_or(0));
  }
  std::size_t covered = layers.names.size();  // the layers the buckets so far hold: from here up
  for (const std::size_t i : graph.walk()) {
    const ExecutionNode& n = trace.nodes[i];
    if (!reduces(n) || n.micro_batch.value_or(last) != last) continue;
    const bool scatter = *n.collective == CollectiveKind::reduce_scatter;
    if (!w.buckets.buckets.empty() && scatter != (w.sharding != ShardingLevel::none)) {
      throw graph.error(n, "reduces buckets both by ALL_REDUCE and by REDUCE_SCATTER");
    }
    if (scatter) w.sharding = ShardingLevel::optimizer;
    const std::size_t latest = graph.facts()[i].latest_stream;  // 1-based
    const std::size_t ready = latest > begin ? layers.layer_of[latest - 1] : first_backward;
    // A bucket holds the layers from its ready one up to the previous bucket's (contiguous, the last layers first).
    GradientBucket bucket{.bytes = Bytes{*n.comm_size}, .layers = {}, .ready_after_layer = ready};
    for (std::size_t l = covered; l-- > ready;) bucket.layers.push_back(l);
    if (bucket.layers.empty()) bucket.layers.push_back(ready);
    covered = std::min(covered, ready);
    w.buckets.buckets.push_back(std::move(bucket));
  }
  // A sharded trace names each layer's bucket (its unit): the buckets hold those layers, the last first.
  bool named = false;
  for (std::size_t k = 0; k < stream.size(); ++k) {
    const std::optional<std::int64_t> b = trace.nodes[stream[k]].bucket;
    if (!b || *b < 0 || static_cast<std::size_t>(*b) >= w.buckets.buckets.size()) continue;
    std::vector<std::size_t>& held = w.buckets.buckets[static_cast<std::size_t>(*b)].layers;
    if (!named) {
      for (GradientBucket& bucket : w.buckets.buckets) bucket.layers.clear();
      named = true;
    }
    if (std::find(held.begin(), held.end(), layers.layer_of[k]) == held.end()) held.push_back(layers.layer_of[k]);
  }
  for (GradientBucket& bucket : w.buckets.buckets) {
    std::sort(bucket.layers.rbegin(), bucket.layers.rend());
    if (bucket.layers.empty()) bucket.layers.push_back(bucket.ready_after_layer);
  }
  // Fully sharded parameters are gathered before the forwards that need them.
  for (const std::size_t k : stream) {
    for (const std::size_t d : graph.deps(k)) {
      const ExecutionNode& dep = trace.nodes[d];
      if (dep.kind == NodeKind::collective && dep.collective == CollectiveKind::all_gather) {
        w.sharding = ShardingLevel::full;
      }
    }
  }
  // A sharded trace's step is the rank's shard of it; the engines take the whole model's.
  if (w.sharding != ShardingLevel::none) w.optimizer = w.optimizer * graph.world();
  w.layers = std::move(layers.names);
  w.times = std::move(layers.times);
  return w;
}

}  // namespace syncsim::chakra
