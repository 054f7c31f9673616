// A rank's execution trace read back as one DDP iteration (ddp_workload.hpp has the mapping; ddp_trace_writer.cpp
// the way out).
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

constexpr std::string_view kForward = kForwardSuffix;
constexpr std::string_view kBackward = kBackwardSuffix;

bool ends_with(std::string_view text, std::string_view end) {
  return text.ends_with(end);
}

}  // namespace

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
  GraphReading(const ExecutionTrace& trace, const std::string& source, const std::optional<LayoutSizes>& layout)
      : trace_(trace), source_(source), graph_(trace, source), groups_(process_groups(trace, source)) {
    if (layout) layout_.emplace(*layout);
  }

  [[nodiscard]] InputError error(const ExecutionNode& n, const std::string& what) const {
    return graph_.error(n, what);
  }

  void read() {
    facts_.resize(trace_.nodes.size());
    inline_.assign(trace_.nodes.size(), std::nullopt);
    for (const std::size_t i : graph_.order()) {
      const ExecutionNode& n = trace_.nodes[i];
      if (layout_ && n.kind == NodeKind::collective) inline_[i] = stream_role(n);
      Facts facts;
      for (const std::size_t d : graph_.deps(i)) facts.iteration = std::max(facts.iteration, facts_[d].iteration);
      for (const std::size_t d : graph_.deps(i)) {
        const Facts& dep = facts_[d];
        if (dep.iteration != facts.iteration) continue;
        // A gather before a forward is not the step's, nor a layer's collective on the compute stream.
        const bool collective = reduces(trace_.nodes[d]) && !inline_[d];
        facts.after_collective = facts.after_collective || dep.after_collective || collective;
        // What a collective waited for is not what a node after it waits for (the stream's order is not data), but
        // for a layer's own collectives, which are the compute stream's.
        if (trace_.nodes[d].kind != NodeKind::collective || inline_[d]) {
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
  // HSDP's shard group: the ranks of the subgroups the buckets' collectives run on (none: every rank).
  std::optional<std::int64_t> shard_group() const { return shard_group_; }
  const ExecutionNode* first_subgroup() const { return first_subgroup_; }
  // With a layout: the role of node i's group when it is a tensor or context group (a layer's collective on the
  // compute stream), else none.
  std::optional<GroupRole> inline_role(std::size_t i) const { return inline_[i]; }
  // A bucket's reduction: an ALL_REDUCE or REDUCE_SCATTER not on the compute stream.
  bool bucket_reduction(std::size_t i) const { return reduces(trace_.nodes[i]) && !inline_[i]; }
  // Whether `n` is HSDP's AllReduce of a shard across the replicas (an ALL_REDUCE on a subgroup).
  bool across_replicas(const ExecutionNode& n) const {
    return !layout_ && n.collective == CollectiveKind::all_reduce &&
           static_cast<std::int64_t>(group_ranks(n, groups_, world(), source_).size()) != world();
  }
  std::int64_t world() const { return world_size(trace_, groups_); }
  const std::vector<std::size_t>& deps(std::size_t node) const { return graph_.deps(node); }
  std::int64_t data_ranks() const { return layout_ ? layout_->sizes().data : world(); }

  SimTime time_of(const ExecutionNode& n) const { return graph_.time_of(n); }
  // A collective on a subgroup that is not HSDP's.
  [[nodiscard]] InputError subgroup_error(const ExecutionNode& n) const {
    return error(n, fmt::format("runs on process group '{}', {} of the trace's {} ranks: a data-parallel import "
                                "reduces over every rank, or over HSDP's shard groups with a reduce-scatter and "
                                "across their replicas (a layout's subgroups are imported with its parallelism)",
                                n.pg_name.value_or("0"), group_ranks(n, groups_, world(), source_).size(), world()));
  }

 private:
  void check_kind(const ExecutionNode& n) {
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
    const auto ranks = static_cast<std::int64_t>(group_ranks(n, groups_, world, source_).size());
    if (layout_) {
      if (layout_->ranks() != world) {
        throw error(n, fmt::format("the trace holds {} ranks, the scenario's layout {}", world, layout_->ranks()));
      }
      if (stream_role(n) || layout_role(n) == GroupRole::data) return;
      throw error(n, fmt::format("its process group '{}' ({} ranks) is none of the scenario's layout's tensor, "
                                 "context or data-parallel groups",
                                 n.pg_name.value_or("0"), ranks));
    }
    if (ranks == world) return;
    // HSDP: the buckets' reduce-scatters and gathers on shard groups of s ranks, their shards' AllReduces on the
    // replica groups of d / s.
    const bool shard = *n.collective != CollectiveKind::all_reduce;
    const std::int64_t s = shard ? ranks : world / std::max<std::int64_t>(1, ranks);
    if (ranks < 2 || world % ranks != 0 || (shard_group_ && *shard_group_ != s)) throw subgroup_error(n);
    shard_group_ = s;
    if (!first_subgroup_) first_subgroup_ = &n;
  }

  // The role of `n`'s group in the layout (tensor, context or data), or none.
  std::optional<GroupRole> layout_role(const ExecutionNode& n) {
    const std::string name = n.pg_name.value_or("0");
    if (const auto known = roles_.find(name); known != roles_.end()) return known->second;
    const std::vector<std::int64_t> ranks = group_ranks(n, groups_, world(), source_);
    std::optional<GroupRole>& role = roles_[name];
    for (const GroupRole r : {GroupRole::tensor, GroupRole::context, GroupRole::data}) {
      for (const auto& group : role_groups(*layout_, r, 1)) {
        if (std::equal(group.begin(), group.end(), ranks.begin(), ranks.end(),
                       [](std::size_t a, std::int64_t b) { return static_cast<std::int64_t>(a) == b; })) {
          role = r;
        }
      }
    }
    return role;
  }
  std::optional<GroupRole> stream_role(const ExecutionNode& n) {
    const std::optional<GroupRole> role = layout_role(n);
    return role == GroupRole::data ? std::nullopt : role;
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
  std::optional<std::int64_t> shard_group_;
  std::optional<RankLayout> layout_;
  std::vector<std::optional<GroupRole>> inline_;  // per node: its role when a layer's collective (with a layout)
  std::map<std::string, std::optional<GroupRole>> roles_;  // per pg_name: its layout role
  const ExecutionNode* first_subgroup_ = nullptr;
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
    if (graph.bucket_reduction(i) && latest > 0) first = std::min(first, latest - 1);
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

DdpWorkload ddp_workload(const ExecutionTrace& trace, const std::string& source,
                         const std::optional<LayoutSizes>& layout) {
  GraphReading graph(trace, source, layout);
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
    if (graph.bucket_reduction(i)) last = std::max(last, trace.nodes[i].micro_batch.value_or(0));
  }
  std::size_t covered = layers.names.size();  // the layers the buckets so far hold: from here up
  for (const std::size_t i : graph.walk()) {
    const ExecutionNode& n = trace.nodes[i];
    if (!graph.bucket_reduction(i) || n.micro_batch.value_or(last) != last || graph.across_replicas(n)) continue;
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
  // Fully sharded parameters are gathered before the forwards that need them; a named bucket's gather moves what
  // its first ALL_GATHER says.
  std::vector<Bytes> gathers(w.buckets.buckets.size());
  for (const std::size_t k : stream) {
    for (const std::size_t d : graph.deps(k)) {
      const ExecutionNode& dep = trace.nodes[d];
      if (dep.kind != NodeKind::collective || dep.collective != CollectiveKind::all_gather || graph.inline_role(d)) {
        continue;
      }
      w.sharding = ShardingLevel::full;
      const std::optional<std::int64_t> b = trace.nodes[k].bucket;
      if (b && *b >= 0 && static_cast<std::size_t>(*b) < gathers.size()) {
        Bytes& gathered = gathers[static_cast<std::size_t>(*b)];
        if (gathered.value == 0) gathered = Bytes{*dep.comm_size};
      }
    }
  }
  bool resized = false;
  for (std::size_t b = 0; b < gathers.size(); ++b) {
    if (gathers[b].value == 0) gathers[b] = w.buckets.buckets[b].bytes;
    resized = resized || gathers[b] != w.buckets.buckets[b].bytes;
  }
  if (resized) w.gather_bytes = std::move(gathers);
  // A sharded trace's step is the rank's shard of it; the engines take the whole model's.
  if (const std::optional<std::int64_t> s = graph.shard_group()) {
    if (w.sharding == ShardingLevel::none) throw graph.subgroup_error(*graph.first_subgroup());
    w.shard_group = *s;
  }
  if (w.sharding != ShardingLevel::none) w.optimizer = w.optimizer * graph.shard_group().value_or(graph.data_ranks());
  if (layout) {
    // Each of the first micro-batch's collectives on the compute stream after the layer it follows.
    w.layout = layout;
    w.forward_inline.resize(layers.names.size());
    w.backward_inline.resize(layers.names.size());
    for (const std::size_t i : graph.walk()) {
      const std::optional<GroupRole> role = graph.inline_role(i);
      const std::size_t after = graph.facts()[i].latest_stream;  // 1-based
      if (!role || trace.nodes[i].micro_batch.value_or(0) != 0) continue;
      if (after == 0) throw graph.error(trace.nodes[i], "a tensor or context collective before any compute");
      const LayoutCollective c{.op = *trace.nodes[i].collective, .bytes = *trace.nodes[i].comm_size, .role = *role};
      (after > begin ? w.backward_inline : w.forward_inline)[layers.layer_of[after - 1]].push_back(c);
    }
  }
  w.layers = std::move(layers.names);
  w.times = std::move(layers.times);
  return w;
}

}  // namespace syncsim::chakra
