#pragma once
// CollectiveTraffic: what one AllReduce puts on each link of the machine, channel by channel, as the simulator ran
// it — the ring view's rates.
//
// The simulator splits a buffer of S bytes over C channels (collective_runner.hpp: channel c moves S_c = S / C, the
// last one the remainder), each channel a plan of its own (collective_schedule.h: a ring per rail, a tree per chain
// and parity). Over the whole AllReduce, directed link l carries
//
//   bytes(l) = sum over channels c, rounds s, transfers t of channel c at s whose route crosses l of
//              wire(S_c x pieces(t) / P)
//
// where P is the number of pieces of the buffer and wire() the protocol's bytes on the wire (payload / efficiency,
// transfer_cost.hpp's wire_bytes). That is what the simulator's CollectiveOutcome::links records, and over the
// AllReduce's duration d the link's rate is
//
//   rate(l) = bytes(l) / d
//
// — the bytes the link carried while the collective ran, whatever the pipelining. The flow model never pushes a link
// past its capacity, so rate(l) <= capacity(l) (tst_gui_link_rates.cpp checks both against simulate_collective).
//
// One channel's share of that is its own sum; stepUses() says which directed links a round of one or all channels
// lights, for the drawing.
//
// A layout's group (layout_groups.h) runs its collective on its own GPUs: Spec::members puts the schedule's rank r
// on GPU members[r], grouped into nodes and channels as the simulator groups a collective on those GPUs
// (nccl_node_groups and default_channels on the GPU list), and its op is the group's (AllReduce, AllGather, a
// stage-to-stage broadcast).
#include <QString>
#include <QtGlobal>
#include <memory>
#include <optional>
#include <vector>

#include "models/collective_schedule.h"

class TopologyLayout;

// What the simulator ran for one bucket's AllReduce (report.json's buckets[]: TrainingReport::buckets).
struct BucketRun {
  QString algorithm;  // the simulator's name: ring, tree, nvls, ...
  int channels = 1;
  QString protocol;  // ll, ll128 or simple with the nccl latency model; else empty
};

// A rate in GB/s as the view prints it: three significant digits, no trailing zeros (12.5, 25, 172, 0.0417), whole
// numbers from 100 up (300, 1250).
QString formatRateGbps(double bytesPerSecond);

class CollectiveTraffic {
 public:
  struct Spec {
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
    int ranks = 2;
    int channels = 1;
    QString protocol;                      // empty: no protocol (the physical latency model)
    std::optional<int> computeCapability;  // the GPUs' (LL and LL128 reach NCCL's NVLink figure, not the datasheet)
    std::vector<int> members;              // the GPU of each rank; empty: rank r on GPU r
    syncsim::CollectiveOp op = syncsim::CollectiveOp::allreduce;
    bool operator==(const Spec&) const = default;
  };

  // The channels of `spec` on the first spec.ranks GPUs of `layout`'s machine, grouped into nodes as the simulator
  // groups them. Without a layout (a trace: its machine is unknown), the channels run in rank order and carry no
  // link traffic.
  CollectiveTraffic(std::shared_ptr<const TopologyLayout> layout, Spec spec);

  // The simulator's channel count for an algorithm it was not asked to run (default_channels): one per rail; on
  // `members` (the GPUs of a group) when given.
  static int defaultChannels(const TopologyLayout* layout, CollectiveAlgorithm algorithm, int ranks,
                             const std::vector<int>& members = {});
  // Channel c's share of an AllReduce of `bytes` (the simulator's split).
  static double channelBytes(qint64 bytes, int channel, int channels);

  const Spec& spec() const { return m_spec; }
  int gpuOf(int rank) const;  // the machine's GPU that rank `rank` of the schedule runs on
  const TopologyLayout* layout() const { return m_layout.get(); }
  int channelCount() const { return static_cast<int>(m_schedules.size()); }
  const CollectiveSchedule& schedule(int channel) const { return m_schedules[static_cast<std::size_t>(channel)]; }
  int stepCount() const;  // the longest channel's

  // Wire bytes per directed edge (EdgeUse::directed()) over the whole AllReduce of `bytes`: of one channel, or of
  // all of them (nullopt). Empty without a layout.
  std::vector<double> edgeBytes(qint64 bytes, std::optional<int> channel) const;

  // A directed edge lit by a round: how many transfers cross it, and the first one's piece and channel (its colour).
  struct StepUse {
    int directed = 0;
    int transfers = 0;
    int chunk = 0;
    int channel = 0;
  };
  // The directed edges the transfers of round `step` cross, of one channel or all (nullopt), by directed edge.
  std::vector<StepUse> stepUses(int step, std::optional<int> channel) const;

 private:
  std::shared_ptr<const TopologyLayout> m_layout;
  Spec m_spec;
  std::vector<CollectiveSchedule> m_schedules;
  std::vector<std::vector<double>> m_wirePerByte;  // [channel][directed edge]: wire bytes per byte of the channel
};
