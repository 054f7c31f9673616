#include "fluid_snapshot.hpp"

#include <algorithm>
#include <utility>

#include "syncsim/core/simulator.hpp"

namespace syncsim::collectives_detail {

namespace {

// Starts each transfer at its offset and records when it drained and arrived. The starts are chained, one pending
// event at a time in offset order, so the queue holds the running flows' events and not every transfer's start: a
// 100,000-GPU snapshot has millions of transfers, and with all their starts queued each pop missed the cache at
// every level of the heap.
class SnapshotDriver final : public FlowObserver, public EventHandler {
 public:
  SnapshotDriver(Simulator& sim, FlowModel& flows, std::span<const SnapshotTransfer> transfers, SnapshotTiming& timing)
      : sim_(sim), flows_(flows), transfers_(transfers), timing_(timing) {
    std::vector<std::pair<std::int64_t, std::uint32_t>> keys(transfers.size());  // (offset, index): all distinct
    for (std::uint32_t i = 0; i < keys.size(); ++i) keys[i] = {transfers[i].offset.ps(), i};
    std::sort(keys.begin(), keys.end());
    by_offset_.reserve(keys.size());
    for (const auto& key : keys) by_offset_.push_back(key.second);
    if (!by_offset_.empty()) sim_.schedule_at(transfers_[by_offset_.front()].offset, *this);
  }

  void on_event(Simulator&, std::uint64_t) override {
    while (next_ < by_offset_.size() && transfers_[by_offset_[next_]].offset == sim_.now()) {
      const std::uint32_t i = by_offset_[next_++];
      const SnapshotTransfer& transfer = transfers_[i];
      flows_.start(*transfer.route, transfer.wire_bytes, *this, i, transfer.latency);
    }
    if (next_ < by_offset_.size()) sim_.schedule_at(transfers_[by_offset_[next_]].offset, *this);
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
  std::vector<std::uint32_t> by_offset_;  // transfer indices, in start order
  std::size_t next_ = 0;                  // the next to start
};

}  // namespace

SnapshotTiming simulate_snapshot(const Topology& topology, std::span<const SnapshotTransfer> transfers) {
  Simulator sim;
  FlowModel flows(sim, topology);
  SnapshotTiming timing;
  timing.drained.assign(transfers.size(), SimTime::zero());
  timing.arrived.assign(transfers.size(), SimTime::zero());
  SnapshotDriver driver(sim, flows, transfers, timing);
  sim.run();
  timing.links = flows.traffic();
  return timing;
}

}  // namespace syncsim::collectives_detail
