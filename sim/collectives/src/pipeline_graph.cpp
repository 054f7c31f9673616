#include "pipeline_graph.hpp"

#include <algorithm>
#include <numeric>

#include "plan_routes.hpp"
#include "syncsim/collectives/transfer_cost.hpp"

namespace syncsim::collectives_detail {

bool read_peers(Router& router, std::span<const CollectivePlan* const> channels,
                const std::vector<std::vector<NodeId>>& gpus, const ExecutorOptions& options, Graph& graph) {
  PlanStep scratch;
  graph.peer_begin.push_back(0);
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const CollectivePlan& plan = *channels[c];
    const auto base = static_cast<std::uint32_t>(graph.plan_of.size());
    graph.channel_begin.push_back(base);
    const auto count = static_cast<std::uint32_t>(plan.participant_count());
    PlanRoutes routes(router, participant_nodes(plan, gpus[c]));
    for (std::uint32_t p = 0; p < count; ++p) {
      const std::uint32_t steps = plan.step_count(Rank{p});
      const auto first = static_cast<std::uint32_t>(graph.peers.size());
      for (const std::uint32_t s : {0U, 1U, steps - 1}) {
        if (s >= steps) continue;
        plan.step(Rank{p}, s, scratch);
        for (const PlanSend& send : scratch.sends) {
          if (send.dst.value() >= count) return false;
          const std::uint32_t dst = base + send.dst.value();
          const auto known = std::find_if(graph.peers.begin() + first, graph.peers.end(),
                                          [&](const Peer& peer) { return peer.dst == dst; });
          if (known != graph.peers.end()) continue;
          if (graph.peers.size() - first == kMaxPeers) return false;
          const PeerRoute& peer = routes.route(Rank{p}, send.dst);
          Peer& added = graph.peers.emplace_back();
          added.dst = dst;
          added.route = peer.route;
          added.route_class = peer.route_class;
          added.latency = step_latency(options.cost, peer.route_class, *peer.route);
          added.snapshot_route = peer.route;
        }
      }
      graph.plan_of.push_back(&plan);
      graph.channel_of.push_back(static_cast<std::uint32_t>(c));
      graph.local.push_back(p);
      graph.steps.push_back(steps);
      graph.peer_begin.push_back(static_cast<std::uint32_t>(graph.peers.size()));
    }
  }
  graph.channel_begin.push_back(static_cast<std::uint32_t>(graph.plan_of.size()));
  graph.timed_as.resize(channels.size());
  std::iota(graph.timed_as.begin(), graph.timed_as.end(), std::uint32_t{0});
  return true;
}

bool order_participants(Graph& graph) {
  const std::size_t n = graph.steps.size();
  std::vector<std::uint32_t> sender_begin(n + 1, 0);
  for (const Peer& peer : graph.peers) ++sender_begin[peer.dst + 1];
  for (std::size_t p = 0; p < n; ++p) sender_begin[p + 1] += sender_begin[p];
  std::vector<std::uint32_t> senders(graph.peers.size());
  std::vector<std::uint32_t> fill(sender_begin.begin(), sender_begin.end() - 1);
  for (std::uint32_t p = 0; p < n; ++p) {
    for (std::uint32_t k = graph.peer_begin[p]; k < graph.peer_begin[p + 1]; ++k) {
      senders[fill[graph.peers[k].dst]++] = p;
    }
  }
  enum : std::uint8_t { kUnseen, kOpen, kDone };
  std::vector<std::uint8_t> state(n, kUnseen);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // participant, next sender to visit
  graph.order.reserve(n);
  for (std::uint32_t start = 0; start < n; ++start) {
    if (state[start] != kUnseen) continue;
    state[start] = kOpen;
    stack.emplace_back(start, sender_begin[start]);
    while (!stack.empty()) {
      auto& [p, next] = stack.back();
      if (next == sender_begin[p + 1]) {
        state[p] = kDone;
        graph.order.push_back(p);
        stack.pop_back();
        continue;
      }
      const std::uint32_t q = senders[next++];
      if (state[q] == kOpen) return false;
      if (state[q] == kUnseen) {
        state[q] = kOpen;
        stack.emplace_back(q, sender_begin[q]);
      }
    }
  }
  return true;
}

}  // namespace syncsim::collectives_detail
