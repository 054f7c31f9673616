// One DDP iteration to a rank's execution trace and back (ddp_workload.hpp has the graph and the mapping).
#include "syncsim/chakra/ddp_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "syncsim/core/input_error.hpp"

namespace syncsim::chakra {

namespace {

constexpr std::string_view kForward = " forward";
constexpr std::string_view kBackward = " backward";
constexpr std::int64_t kPsPerMicro = 1'000'000;

ExecutionNode compute_node(std::uint64_t id, std::string name, SimTime time, std::vector<std::uint64_t> deps) {
  ExecutionNode n;
  n.id = id;
  n.name = std::move(name);
  n.kind = NodeKind::compute;
  n.data_deps = std::move(deps);
  n.duration_ps = time.ps();
  // duration_micros is what ASTRA-sim replays: the nearest whole microsecond.
  n.duration_micros = static_cast<std::uint64_t>((time.ps() + kPsPerMicro / 2) / kPsPerMicro);
  return n;
}

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
  const std::size_t layers = w.layers.size();
  const auto backward_id = [&](std::size_t layer) { return static_cast<std::uint64_t>(2 * layers - 1 - layer); };
  for (std::size_t i = 0; i < layers; ++i) {
    std::vector<std::uint64_t> deps;
    if (i > 0) deps.push_back(i - 1);
    trace.nodes.push_back(with_work(
        compute_node(i, w.layers[i] + std::string(kForward), w.times.forward[i], std::move(deps)), w.forward_work, i));
  }
  for (std::size_t i = layers; i-- > 0;) {
    trace.nodes.push_back(with_work(
        compute_node(backward_id(i), w.layers[i] + std::string(kBackward), w.times.backward[i], {backward_id(i) - 1}),
        w.backward_work, i));
  }
  std::vector<std::uint64_t> optimizer_deps = {2 * layers - 1};
  for (std::size_t j = 0; j < w.buckets.buckets.size(); ++j) {
    const GradientBucket& bucket = w.buckets.buckets[j];
    ExecutionNode n;
    n.id = 2 * layers + j;
    n.name = fmt::format("bucket {} all_reduce", j);
    n.kind = NodeKind::collective;
    n.data_deps = {backward_id(bucket.ready_after_layer)};
    if (j > 0) n.data_deps.push_back(n.id - 1);  // one communication stream: in plan order, one at a time
    n.collective = CollectiveKind::all_reduce;
    n.comm_size = bucket.bytes.value;
    n.pg_name = std::string(kDefaultProcessGroup);
    optimizer_deps.push_back(n.id);
    trace.nodes.push_back(std::move(n));
  }
  ExecutionNode optimizer =
      compute_node(2 * layers + w.buckets.buckets.size(), "optimizer step", w.optimizer, std::move(optimizer_deps));
  if (w.optimizer_work) {
    optimizer.num_ops = w.optimizer_work->ops;
    optimizer.tensor_size = w.optimizer_work->bytes;
  }
  trace.nodes.push_back(std::move(optimizer));
  return trace;
}

namespace {

// The import's reading of the graph: per node, what it depends on, found in one pass in file order.
class GraphReading {
 public:
  GraphReading(const ExecutionTrace& trace, const std::string& source) : trace_(trace), source_(source) {}

  [[nodiscard]] InputError error(const ExecutionNode& n, const std::string& what) const {
    return InputError(fmt::format("node {} ('{}', {}): {}", n.id, n.name, to_string(n.kind), what),
                      SourceLocation{source_, 0, 0});
  }

  void read() {
    for (std::size_t i = 0; i < trace_.nodes.size(); ++i) {
      const ExecutionNode& n = trace_.nodes[i];
      check_kind(n);
      if (!index_.emplace(n.id, i).second) throw error(n, "its id is used by an earlier node too");
      Facts facts;
      for (const auto* deps : {&n.data_deps, &n.ctrl_deps}) {
        for (const std::uint64_t d : *deps) {
          const auto found = index_.find(d);
          if (found == index_.end() || found->second == i) {
            throw error(n, fmt::format("depends on node {}, which no node before it defines (nodes must come "
                                       "after what they depend on)",
                                       d));
          }
          const Facts& dep = facts_[found->second];
          const bool collective = trace_.nodes[found->second].kind == NodeKind::collective;
          facts.after_collective = facts.after_collective || dep.after_collective || collective;
          facts.latest_stream = std::max(facts.latest_stream, dep.stream ? dep.stream : dep.latest_stream);
        }
      }
      if (n.kind == NodeKind::compute && !facts.after_collective) facts.stream = ++stream_count_;
      facts_.push_back(facts);
    }
  }

  // What a node depends on: 1-based stream positions (0: none), so that max() picks the latest.
  struct Facts {
    bool after_collective = false;  // a compute node after it is optimizer work
    std::size_t stream = 0;         // its own position on the compute stream (compute nodes only)
    std::size_t latest_stream = 0;  // the latest stream position it depends on, through any chain
  };
  const std::vector<Facts>& facts() const { return facts_; }
  std::size_t stream_count() const { return stream_count_; }

  SimTime time_of(const ExecutionNode& n) const {
    if (n.duration_ps) {
      if (*n.duration_ps < 0) throw error(n, fmt::format("syncsim_duration_ps is negative ({})", *n.duration_ps));
      return SimTime::from_ps(*n.duration_ps);
    }
    if (n.duration_micros > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / kPsPerMicro)) {
      throw error(n, fmt::format("duration_micros {} is past the simulator's clock (106 days)", n.duration_micros));
    }
    return SimTime::from_ps(static_cast<std::int64_t>(n.duration_micros) * kPsPerMicro);
  }

 private:
  void check_kind(const ExecutionNode& n) const {
    if (n.kind == NodeKind::compute) return;
    if (n.kind != NodeKind::collective) {
      throw error(n, "syncsim imports COMP_NODE and COMM_COLL_NODE (ALL_REDUCE) only");
    }
    if (!n.collective) throw error(n, "a collective without a comm_type attribute");
    if (*n.collective != CollectiveKind::all_reduce) {
      throw error(n, fmt::format("collective {} is not supported: syncsim imports data-parallel ALL_REDUCE only",
                                 to_string(*n.collective)));
    }
    if (!n.comm_size || *n.comm_size <= 0) throw error(n, "an ALL_REDUCE needs a comm_size attribute above zero");
  }

  const ExecutionTrace& trace_;
  const std::string& source_;
  std::map<std::uint64_t, std::size_t> index_;
  std::vector<Facts> facts_;
  std::size_t stream_count_ = 0;
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
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
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
  std::vector<std::size_t> stream;  // node indices
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    if (trace.nodes[i].kind != NodeKind::compute) continue;
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
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
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
