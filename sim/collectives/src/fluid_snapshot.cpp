#include "fluid_snapshot.hpp"

#include "syncsim/core/simulator.hpp"

namespace syncsim::collectives_detail {

namespace {

// Starts each transfer at its offset and records when it drained and arrived.
class SnapshotDriver final : public FlowObserver, public EventHandler {
 public:
  SnapshotDriver(Simulator& sim, FlowModel& flows, std::span<const SnapshotTransfer> transfers, SnapshotTiming& timing)
      : sim_(sim), flows_(flows), transfers_(transfers), timing_(timing) {}

  void on_event(Simulator&, std::uint64_t i) override {
    const SnapshotTransfer& transfer = transfers_[i];
    flows_.start(*transfer.route, transfer.wire_bytes, *this, i, transfer.latency);
  }
  void on_flow_finished(FlowId, std::uint64_t i) override {
    timing_.arrived[i] = sim_.now() - transfers_[i].offset;
    timing_.drained[i] = timing_.arrived[i] - transfers_[i].latency;
  }

 private:
  Simulator& sim_;
  FlowModel& flows_;
  std::span<const SnapshotTransfer> transfers_;
  SnapshotTiming& timing_;
};

}  // namespace

SnapshotTiming simulate_snapshot(const Topology& topology, std::span<const SnapshotTransfer> transfers) {
  Simulator sim;
  FlowModel flows(sim, topology);
  SnapshotTiming timing;
  timing.drained.assign(transfers.size(), SimTime::zero());
  timing.arrived.assign(transfers.size(), SimTime::zero());
  SnapshotDriver driver(sim, flows, transfers, timing);
  for (std::size_t i = 0; i < transfers.size(); ++i) sim.schedule_at(transfers[i].offset, driver, i);
  sim.run();
  timing.links = flows.traffic();
  return timing;
}

}  // namespace syncsim::collectives_detail
