// Background traffic: the flows of `background:` and their private links (background_traffic.hpp).
#include "background_traffic.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace syncsim::run {

namespace {

// A constant flow sends this long a chunk of bytes at its rate, then the next: few events, and no chunk near the
// clock's limit.
constexpr SimTime kConstantChunk = SimTime::from_seconds(1);

NodeId first_gpu(const Topology& topology, const ClusterNodes& nodes, const Located<std::int64_t>& node) {
  if (node.value >= static_cast<std::int64_t>(nodes.gpus.size())) {
    throw node.error(
        fmt::format("node {} does not exist: the cluster has nodes 0..{}", node.value, nodes.gpus.size() - 1));
  }
  return topology.gpu(nodes.gpus[static_cast<std::size_t>(node.value)].front());
}

bool in_class(const Topology& topology, const Link& link, std::string_view link_class) {
  if (link_class == "spine") {
    return topology.node(link.src).kind == NodeKind::network_switch &&
           topology.node(link.dst).kind == NodeKind::network_switch;
  }
  return to_string(link.kind) == link_class;
}

void add_between(const BackgroundConfig& entry, const Topology& topology, Router& router, const ClusterNodes& nodes,
                 std::vector<BackgroundFlow>& out) {
  const double pairs = static_cast<double>(entry.from.size() * entry.to.size());
  for (const Located<std::int64_t>& a : entry.from) {
    for (const Located<std::int64_t>& b : entry.to) {
      const NodeId src = first_gpu(topology, nodes, a);
      const NodeId dst = first_gpu(topology, nodes, b);
      if (a.value == b.value) throw b.error(fmt::format("node {} is on both sides: a flow needs two nodes", b.value));
      BackgroundFlow flow;
      flow.route.links = router.route(src, dst).links;
      flow.rate = Bandwidth{entry.rate.value.bytes_per_second / pairs};
      flow.burst = entry.burst ? std::optional<SimTime>(entry.burst->value) : std::nullopt;
      out.push_back(std::move(flow));
    }
  }
}

void add_link_class(const BackgroundConfig& entry, const Topology& topology, std::vector<BackgroundFlow>& out) {
  const std::size_t before = out.size();
  for (std::size_t l = 0; l < topology.link_count(); ++l) {
    const LinkId id{static_cast<std::uint32_t>(l)};
    if (!in_class(topology, topology.link(id), entry.link_class->value)) continue;
    if (static_cast<std::int64_t>(out.size()) >= kMaxBackgroundFlows) {
      throw entry.link_class->error(fmt::format("more than {} background flows in all", kMaxBackgroundFlows));
    }
    BackgroundFlow flow;
    flow.route.links = {id};
    flow.rate = entry.rate.value;
    flow.burst = entry.burst ? std::optional<SimTime>(entry.burst->value) : std::nullopt;
    out.push_back(std::move(flow));
  }
  if (out.size() == before) {
    throw entry.link_class->error(fmt::format("the topology has no {} link", entry.link_class->value));
  }
}

}  // namespace

std::vector<BackgroundFlow> background_flows(const JobsConfig& config, const Topology& topology, Router& router,
                                             const ClusterNodes& nodes) {
  std::vector<BackgroundFlow> out;
  for (const BackgroundConfig& entry : config.background) {
    if (entry.link_class) {
      add_link_class(entry, topology, out);
    } else {
      add_between(entry, topology, router, nodes, out);
    }
    if (static_cast<std::int64_t>(out.size()) > kMaxBackgroundFlows) {
      throw InputError(fmt::format("more than {} background flows in all", kMaxBackgroundFlows), entry.where,
                       entry.key);
    }
  }
  for (BackgroundFlow& flow : out) {
    if (flow.burst) flow.rate = Bandwidth{2 * flow.rate.bytes_per_second};  // on half the time, on average
  }
  return out;
}

Topology with_private_links(const Topology& topology, std::vector<BackgroundFlow>& flows) {
  Topology out = topology;
  if (flows.empty()) return out;
  const NodeId in = out.add_node(Node{"background-in", NodeKind::cpu, SimTime::zero(), std::nullopt});
  const NodeId to = out.add_node(Node{"background-out", NodeKind::cpu, SimTime::zero(), std::nullopt});
  for (BackgroundFlow& flow : flows) {
    const LinkId own = out.add_simplex_link(in, to, flow.rate, SimTime::zero(), LinkKind::network);
    flow.route.links.insert(flow.route.links.begin(), own);
    Bandwidth narrowest = flow.rate;
    for (const LinkId l : flow.route.links) {
      narrowest = Bandwidth{std::min(narrowest.bytes_per_second, out.link(l).bandwidth.bytes_per_second)};
    }
    flow.route.bottleneck = narrowest;
    flow.route.latency = SimTime::zero();
  }
  return out;
}

BackgroundTraffic::BackgroundTraffic(Simulator& sim, FlowModel& model, const std::vector<BackgroundFlow>& flows,
                                     std::uint64_t seed)
    : sim_(sim), model_(model), flows_(flows), rng_(seed) {}

void BackgroundTraffic::start() {
  for (std::size_t f = 0; f < flows_.size(); ++f) {
    // A bursty flow starts on or off at random, so that the flows are not in phase.
    if (flows_[f].burst && rng_.below(2) == 0) {
      sim_.schedule_in(SimTime::from_seconds(rng_.exponential(flows_[f].burst->seconds())), *this, f);
    } else {
      send(f);
    }
  }
}

void BackgroundTraffic::send(std::size_t f) {
  const BackgroundFlow& flow = flows_[f];
  const SimTime on = flow.burst ? SimTime::from_seconds(rng_.exponential(flow.burst->seconds())) : kConstantChunk;
  model_.start(flow.route, flow.rate.bytes_per_second * on.seconds(), *this, f, SimTime::zero());
}

void BackgroundTraffic::on_event(Simulator&, std::uint64_t flow) {
  send(static_cast<std::size_t>(flow));
}

void BackgroundTraffic::on_flow_finished(FlowId, std::uint64_t flow) {
  const BackgroundFlow& f = flows_[static_cast<std::size_t>(flow)];
  if (!f.burst) {
    send(static_cast<std::size_t>(flow));
    return;
  }
  sim_.schedule_in(SimTime::from_seconds(rng_.exponential(f.burst->seconds())), *this, flow);
}

}  // namespace syncsim::run
