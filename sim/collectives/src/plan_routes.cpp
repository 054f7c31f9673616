#include "plan_routes.hpp"

#include <fmt/format.h>

#include "syncsim/collectives/transfer_cost.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

std::vector<NodeId> participant_nodes(const CollectivePlan& plan, std::vector<NodeId> gpus) {
  if (gpus.size() != plan.rank_count()) {
    throw InputError(fmt::format("the {} collective has {} ranks but {} GPUs were given", plan.algorithm(),
                                 plan.rank_count(), gpus.size()));
  }
  std::vector<NodeId> nodes = gpus;
  for (auto p = static_cast<std::uint32_t>(gpus.size()); p < plan.participant_count(); ++p) {
    const Participant who = plan.participant(p);
    SYNCSIM_INVARIANT(who.node || who.rank.value() < gpus.size(), "a plan's stream runs on a rank that does not exist");
    nodes.push_back(who.node ? *who.node : gpus[who.rank.value()]);
  }
  return nodes;
}

const PeerRoute& PlanRoutes::route(Rank src, Rank dst) {
  if (peers_.empty()) peers_.assign(nodes_.size(), {});
  std::array<PeerRoute, kPeersPerSender>& known = peers_[src.value()];
  // The first free slot for a new peer; a sender with more peers than slots replaces one by the peer's index.
  PeerRoute* slot = nullptr;
  for (PeerRoute& peer : known) {
    if (peer.dst == dst.value()) return peer;
    if (peer.dst == PeerRoute::kNone && slot == nullptr) slot = &peer;
  }
  if (slot == nullptr) slot = &known[dst.value() % kPeersPerSender];
  const Route& route = router_.route(nodes_[src.value()], nodes_[dst.value()]);
  *slot = PeerRoute{dst.value(), &route, classify(router_.topology(), route)};
  return *slot;
}

}  // namespace syncsim
