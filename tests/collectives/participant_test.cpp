// Plans with participants beyond their ranks (collective_plan.hpp, Participant): a switch that reduces and a rank's
// second stream, each run by the executor on its own node.
#include <catch2/catch.hpp>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

// Every rank sends its whole buffer to the switch (participant n), which adds them up and sends the sum back to
// every rank: an in-switch AllReduce with no pipelining. On switch:n=N,bw=B,lat=L each route crosses one link of
// latency L, so it takes 2 (L + S/B).
class SwitchReducePlan final : public CollectivePlan {
 public:
  SwitchReducePlan(std::size_t ranks, Bytes size, NodeId reducer) : n_(ranks), size_(size), reducer_(reducer) {}
  std::string_view algorithm() const override { return "switch reduce"; }
  CollectiveOp op() const override { return CollectiveOp::allreduce; }
  std::size_t rank_count() const override { return n_; }
  Bytes size() const override { return size_; }
  std::size_t participant_count() const override { return n_ + 1; }
  Participant participant(std::uint32_t index) const override {
    if (index == n_) return {Rank{0}, reducer_};
    return {Rank{index}, std::nullopt};
  }
  std::uint32_t step_count(Rank) const override { return 2; }
  void step(Rank who, std::uint32_t step, PlanStep& out) const override {
    out.clear();
    const auto bytes = static_cast<double>(size_.value);
    const bool is_switch = who.value() == n_;
    if (is_switch && step == 0) {
      out.recv_count = static_cast<std::uint32_t>(n_);
    } else if (is_switch) {
      for (std::uint32_t r = 0; r < n_; ++r) out.sends.push_back({Rank{r}, bytes, 1, 0});
    } else if (step == 0) {
      out.sends.push_back({Rank{static_cast<std::uint32_t>(n_)}, bytes, 0, 0});
    } else {
      out.recv_count = 1;
    }
  }

 private:
  std::size_t n_;
  Bytes size_;
  NodeId reducer_;
};

// Rank 0 sends to rank 1 on its main stream, and rank 1's second stream (participant 2, on rank 1's GPU) sends to
// rank 0 at the same time: both directions of the link busy at once, each taking L + S/B.
class TwoStreamPlan final : public CollectivePlan {
 public:
  explicit TwoStreamPlan(Bytes size) : size_(size) {}
  std::string_view algorithm() const override { return "two streams"; }
  CollectiveOp op() const override { return CollectiveOp::broadcast; }
  std::size_t rank_count() const override { return 2; }
  Bytes size() const override { return size_; }
  std::size_t participant_count() const override { return 3; }
  Participant participant(std::uint32_t index) const override { return {Rank{index == 2 ? 1U : index}, {}}; }
  std::uint32_t step_count(Rank) const override { return 1; }
  void step(Rank who, std::uint32_t, PlanStep& out) const override {
    out.clear();
    const auto bytes = static_cast<double>(size_.value);
    if (who.value() == 0) {
      out.sends.push_back({Rank{1}, bytes, 0, 0});
      out.recv_count = 1;
    } else if (who.value() == 1) {
      out.recv_count = 1;
    } else {
      out.sends.push_back({Rank{0}, bytes, 0, 0});
    }
  }

 private:
  Bytes size_;
};

NodeId switch_node(const Topology& topology) {
  for (std::uint32_t v = 0; v < topology.node_count(); ++v) {
    if (topology.node(NodeId{v}).kind != NodeKind::gpu) return NodeId{v};
  }
  FAIL("the topology has no switch");
  return NodeId{0};
}

}  // namespace

TEST_CASE("a switch participant receives on its own links and reduces in the network: 2 (L + S/B)", "[participant]") {
  // ring_mesh_switch's star: every GPU on one link to the switch, 1 GB/s and 1 us.
  const Topology topology = build_topology("switch:n=4,bw=1GB/s,lat=1us");
  Router router(topology);
  const SwitchReducePlan plan(4, Bytes{1'000'000}, switch_node(topology));
  const CollectiveTiming timing = time_collective(router, plan);
  // Every uplink carries S once and every downlink S once, whatever N: 2 (1 us + 1 ms).
  CHECK(timing.time == SimTime::from_us(2 * (1 + 1000)));
  CHECK(timing.stats.transfers == 8);
  CHECK(timing.stats.bytes_sent == 8e6);
}

TEST_CASE("a rank's second stream runs beside its first on the same GPU", "[participant]") {
  const Topology topology = build_topology("ring:n=2,bw=1GB/s,lat=1us");
  Router router(topology);
  const TwoStreamPlan plan(Bytes{1'000'000});
  // The two directions do not share a link: one transfer's time, not two.
  CHECK(time_collective(router, plan).time == SimTime::from_us(1 + 1000));
}
