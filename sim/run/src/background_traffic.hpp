#pragma once
// Background traffic on the jobs' fabric (docs/jobs.md, "Background traffic"): flows that are not a training job.
//
// A background flow must not take more than its rate, and the flow model has no per-flow cap, so each flow gets a
// private link of its own at its rate, appended to a copy of the topology (two extra nodes joined by one simplex
// link per flow, which no route between real nodes can cross): max-min sharing then gives it at most that rate,
// and less where the fabric is full. The router keeps the original topology, whose link ids the copy keeps.
//
//   constant  one flow after another, 1 s of bytes at the rate each, for as long as the simulation runs
//   bursty    seeded on and off periods, each exponential with mean `burst`; while on, the bytes of the period at
//             twice the rate (so the mean is the rate), and the next off period starts when they have left
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/core/rng.hpp"
#include "syncsim/core/simulator.hpp"
#include "syncsim/network/flow_model.hpp"
#include "syncsim/scenario/jobs_config.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"

#include "job_placement.hpp"

namespace syncsim::run {

struct BackgroundFlow {
  Route route;     // its private link first, then the links it loads
  Bandwidth rate;  // the private link's rate: the entry's rate per flow (twice that when bursty)
  std::optional<SimTime> burst;
};

// The flows of scenario's background entries (between: one per node pair, first GPU to first GPU, the entry's rate
// split evenly over the pairs; link_class: one per directed link of the class, at the rate), their private links
// numbered from `first_private_link`. InputError at an entry's key for a node that does not exist, a pair within
// one node, a class with no link in the topology, or more than kMaxBackgroundFlows flows in all.
std::vector<BackgroundFlow> background_flows(const JobsConfig& config, const Topology& topology, Router& router,
                                             const ClusterNodes& nodes);

// `topology` with one private link per flow appended; the flows' routes then start with their link.
Topology with_private_links(const Topology& topology, std::vector<BackgroundFlow>& flows);

// Runs the flows on `flows_model` from now until the simulation stops (it never runs out of work on its own).
class BackgroundTraffic final : public EventHandler, public FlowObserver {
 public:
  BackgroundTraffic(Simulator& sim, FlowModel& model, const std::vector<BackgroundFlow>& flows, std::uint64_t seed);
  void start();
  void on_event(Simulator& sim, std::uint64_t flow) override;  // an off period ended
  void on_flow_finished(FlowId id, std::uint64_t flow) override;

 private:
  void send(std::size_t flow);

  Simulator& sim_;
  FlowModel& model_;
  const std::vector<BackgroundFlow>& flows_;
  Rng rng_;
};

}  // namespace syncsim::run
