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

ExecutionTrace execution_trace(const DdpWorkload& w, std::int64_t rank) {
  ExecutionTrace trace;
  trace.version = std::string(kSchemaVersion);
  trace.workload = w.name;
  trace.rank = rank;
  trace.ranks = w.ranks;
  // Id 0 describes the process groups (the feeder issues the lowest ids first): the default one, every rank.
  std::vector<std::int64_t> all(static_cast<std::size_t>(w.ranks));
  for (std::size_t r = 0; r < all.size(); ++r) all[r] = static_cast<std::int64_t>(r);
  trace.nodes.push_back(process_group_node(0, {{std::string(kDefaultProcessGroup), "default_pg", std::move(all)}}));
  const std::size_t layers = w.layers.size();
  const auto k = static_cast<std::size_t>(std::max<std::int64_t>(1, w.micro_batches));
  // Micro-batch j's forward of layer i, and its backward (ids count up through each micro-batch's 2L nodes).
  const auto forward_id = [&](std::size_t j, std::size_t i) {
    return static_cast<std::uint64_t>(1 + j * 2 * layers + i);
  };
  const auto backward_id = [&](std::size_t j, std::size_t i) {
    return static_cast<std::uint64_t>(1 + j * 2 * layers + 2 * layers - 1 - i);
  };
  const auto tagged = [&](ExecutionNode n, std::size_t j) {
    if (k > 1) n.micro_batch = static_cast<std::int64_t>(j);
    return n;
  };
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t i = 0; i < layers; ++i) {
      std::vector<std::uint64_t> deps;
      if (i > 0) deps.push_back(forward_id(j, i - 1));
      if (i == 0 && j > 0) deps.push_back(backward_id(j - 1, 0));  // after the previous micro-batch's backward
      trace.nodes.push_back(tagged(with_work(compute_node(forward_id(j, i), w.layers[i] + std::string(kForward),
                                                          w.times.forward[i], std::move(deps)),
                                             w.forward_work, i),
                                   j));
    }
    for (std::size_t i = layers; i-- > 0;) {
      trace.nodes.push_back(tagged(with_work(compute_node(backward_id(j, i), w.layers[i] + std::string(kBackward),
                                                          w.times.backward[i], {backward_id(j, i) - 1}),
                                             w.backward_work, i),
                                   j));
    }
  }
  // Gradients are reduced once, in the last micro-batch's backward (DDP's no_sync for the others).
  const auto last_backward = [&](std::size_t i) { return backward_id(k - 1, i); };
  std::vector<std::uint64_t> optimizer_deps = {last_backward(0)};
  for (std::size_t j = 0; j < w.buckets.buckets.size(); ++j) {
    const GradientBucket& bucket = w.buckets.buckets[j];
    ExecutionNode n;
    n.id = 2 * layers * k + 1 + j;
    n.name = fmt::format("bucket {} all_reduce", j);
    n.kind = NodeKind::collective;
    n.data_deps = {last_backward(bucket.ready_after_layer)};
    if (j > 0) n.data_deps.push_back(n.id - 1);  // one communication stream: in plan order, one at a time
    n.collective = CollectiveKind::all_reduce;
    n.comm_size = bucket.bytes.value;
    n.pg_name = std::string(kDefaultProcessGroup);
    optimizer_deps.push_back(n.id);
    trace.nodes.push_back(std::move(n));
  }
  ExecutionNode optimizer = compute_node(2 * layers * k + 1 + w.buckets.buckets.size(), "optimizer step", w.optimizer,
                                         std::move(optimizer_deps));
  if (w.optimizer_work) {
    optimizer.num_ops = w.optimizer_work->ops;
    optimizer.tensor_size = w.optimizer_work->bytes;
  }
  trace.nodes.push_back(std::move(optimizer));
  return trace;
}

namespace {

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
        const bool collective = trace_.nodes[d].kind == NodeKind::collective;
        facts.after_collective = facts.after_collective || dep.after_collective || collective;
        facts.latest_stream = std::max(facts.latest_stream, dep.stream ? dep.stream : dep.latest_stream);
      }
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
    if (*n.collective != CollectiveKind::all_reduce) {
      throw error(n,
                  fmt::format("collective {} is not supported in a data-parallel import (ALL_REDUCE only; a layout's "
                              "collectives are imported with its parallelism)",
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
    if (trace.nodes[i].kind == NodeKind::collective && latest > 0) first = std::min(first, latest - 1);
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
  for (const std::size_t i : graph.walk()) {
    const ExecutionNode& n = trace.nodes[i];
    if (n.kind != NodeKind::collective) continue;
    const std::size_t latest = graph.facts()[i].latest_stream;  // 1-based
    const std::size_t ready = latest > begin ? layers.layer_of[latest - 1] : first_backward;
    w.buckets.buckets.push_back({.bytes = Bytes{*n.comm_size}, .layers = {ready}, .ready_after_layer = ready});
  }
  w.layers = std::move(layers.names);
  w.times = std::move(layers.times);
  return w;
}

}  // namespace syncsim::chakra
