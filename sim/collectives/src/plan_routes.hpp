#pragma once
// Where a plan's participants run and the routes they send on. The executor and the load bound read a plan's
// transfers through it.
#include <array>
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/core/strong_id.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

// Every participant's node: rank r on gpus[r]; a second stream on its rank's GPU; a switch (an in-network
// reduction) on itself. Throws InputError when the plan has another rank count than `gpus`.
std::vector<NodeId> participant_nodes(const CollectivePlan& plan, std::vector<NodeId> gpus);

// A route a participant sends on, with its link class (transfer_cost.hpp).
struct PeerRoute {
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::uint32_t dst = kNone;
  const Route* route = nullptr;
  LinkKind route_class = LinkKind::nvlink;
};

// The routes of one plan's participants, each looked up once: a plan sends each rank's data to the same few peers
// step after step, so the router's table and the link classification are read once per peer instead of once per
// transfer. Up to four peers per sender (a ring rank has one peer, a tree rank at most three), searched in turn:
// direct-mapped slots would let a parent and a child with equal indices mod 4 evict each other every step. The
// table is made on the first lookup, so a collective that never asks (one that runs in bulk) pays nothing.
class PlanRoutes {
 public:
  PlanRoutes(Router& router, std::vector<NodeId> nodes) : router_(router), nodes_(std::move(nodes)) {}
  const std::vector<NodeId>& nodes() const { return nodes_; }
  const PeerRoute& route(Rank src, Rank dst);

 private:
  static constexpr std::size_t kPeersPerSender = 4;
  Router& router_;
  std::vector<NodeId> nodes_;  // by participant
  std::vector<std::array<PeerRoute, kPeersPerSender>> peers_;
};

}  // namespace syncsim
