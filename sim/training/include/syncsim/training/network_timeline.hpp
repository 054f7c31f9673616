#pragma once
// NetworkTimeline: the network as it changes during a run — degraded links over their windows, and links that
// failed for good under an elastic recovery — and the AllReduce time on it.
//
// A collective takes the network state at its start for its whole duration: a degradation that begins or ends
// while it runs does not change its time. Collectives are short next to degradation windows (milliseconds against
// seconds), so the error stays within one collective per window edge; simulating the change inside a collective
// would mean restarting its flows mid-way for little gain.
//
// Each distinct state (which links, which factors) gets its own Topology copy (link_changes.hpp) and Router,
// built once; collective times are cached per (state, op, size, ranks). The intact network's collectives are
// the caller's (a run's cache of them).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/topology/link_changes.hpp"
#include "syncsim/topology/router.hpp"

namespace syncsim {

// Links at `factor` of their bandwidth (0: gone) from `from` until `until` (nullopt: the end of the run).
struct LinkChange {
  std::vector<LinkId> links;
  double factor = 1;
  SimTime from;
  std::optional<SimTime> until;
};

class NetworkTimeline {
 public:
  // `op` of `size` over the first `ranks` GPUs of the intact network; the reference stays valid while the
  // timeline lives.
  using IntactCollective = std::function<const CollectiveOutcome&(CollectiveOp op, Bytes size, std::size_t ranks)>;
  // The same collective simulated over `changed` (a changed network's router), starting at `start`.
  using ChangedCollective =
      std::function<CollectiveOutcome(Router& changed, CollectiveOp op, Bytes size, std::size_t ranks, SimTime start)>;

  NetworkTimeline(const Topology& intact, std::vector<LinkChange> changes, IntactCollective intact_collective,
                  ChangedCollective changed_collective);
  NetworkTimeline(const NetworkTimeline&) = delete;
  NetworkTimeline& operator=(const NetworkTimeline&) = delete;
  ~NetworkTimeline();

  // The links are gone from `from` to the end of the run (routes avoid them).
  void fail_links(const std::vector<LinkId>& links, SimTime from);
  // The link's mean bandwidth factor over [0, total]: 1 for a link never degraded, less for one that was
  // (overlapping degradations are counted one by one, a simplification that can only lower it; never below 0).
  double mean_factor(LinkId link, SimTime total) const;
  // Bandwidth factor per directed link at `time` (0: gone); empty when the network is intact.
  std::map<LinkId, double> state_at(SimTime time) const;
  // `op` of `size` over the first `ranks` GPUs, starting at `start`.
  SimTime collective(CollectiveOp op, Bytes size, std::int64_t ranks, SimTime start);
  // The same collective's whole outcome (its per-link traffic) and the topology its link ids refer to (a changed
  // network is a copy whose ids may differ). Valid while the timeline lives.
  struct Outcome {
    const CollectiveOutcome* outcome;
    const Topology* topology;
  };
  Outcome collective_outcome(CollectiveOp op, Bytes size, std::int64_t ranks, SimTime start);

 private:
  struct Variant;  // a changed topology and its router

  const Topology* intact_;
  std::vector<LinkChange> changes_;
  IntactCollective intact_collective_;
  ChangedCollective changed_collective_;
  std::map<std::map<LinkId, double>, std::unique_ptr<Variant>> variants_;
};

}  // namespace syncsim
