// Engine invariants, each broken on purpose (docs/reliability.md §4). The system and the broken rule come first,
// then the message the check must give: a check that no longer fires, or fires with a vaguer message, fails here.
#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "deadlock_report.hpp"
#include "flow_model_impl.hpp"
#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;
using Catch::Matchers::Contains;

namespace {

// A plan written out step by step: steps[rank][step]. Each case below breaks it in one way.
class TablePlan final : public CollectivePlan {
 public:
  explicit TablePlan(std::vector<std::vector<PlanStep>> steps) : steps_(std::move(steps)) {}
  std::string_view algorithm() const override { return "table"; }
  CollectiveOp op() const override { return CollectiveOp::allreduce; }
  std::size_t rank_count() const override { return steps_.size(); }
  Bytes size() const override { return Bytes{1'000'000}; }
  std::uint32_t step_count(Rank rank) const override { return static_cast<std::uint32_t>(steps_[rank.value()].size()); }
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override { out = steps_[rank.value()][step]; }

 private:
  std::vector<std::vector<PlanStep>> steps_;
};

PlanStep send_to(std::uint32_t dst, std::uint32_t dst_step, std::uint32_t recvs = 0) {
  PlanStep step;
  step.sends.push_back(PlanSend{Rank{dst}, 1e6, dst_step, 0});
  step.recv_count = recvs;
  return step;
}

PlanStep receive(std::uint32_t recvs) {
  PlanStep step;
  step.recv_count = recvs;
  return step;
}

std::string failure_of(const CollectivePlan& plan, bool bulk = false) {
  const Topology topology = build_topology("switch:n=4,bw=100Gbps,lat=5us");
  Router router(topology);
  ExecutorOptions options;
  options.bulk = bulk;
  try {
    (void)time_collective(router, plan, options);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "no failure";
}

}  // namespace

TEST_CASE("event times: an event scheduled before now fails", "[invariants]") {
  // At t = 10 us a handler schedules an event at t = 5 us: time would run backwards.
  struct Backwards : EventHandler {
    void on_event(Simulator& sim, std::uint64_t payload) override {
      if (payload == 0) sim.schedule_at(SimTime::from_us(5), *this, 1);
    }
  } handler;
  Simulator sim;
  sim.schedule_at(SimTime::from_us(10), handler, 0);
  CHECK_THROWS_WITH(sim.run(), Contains("event scheduled in the past"));
}

TEST_CASE("link capacity: the audit rejects a link whose flows push more than it carries", "[invariants]") {
  // One 1 GB/s link with two pushing flows at 0.6 GB/s each: 1.2 GB/s on a 1 GB/s link.
  std::vector<LinkState> links(1);
  links[0].capacity = 1e9;
  links[0].load = 1.2e9;
  std::vector<FlowState> flows(2);
  for (std::uint32_t f = 0; f < 2; ++f) {
    flows[f].phase = FlowPhase::pushing;
    flows[f].rate = 0.6e9;
    flows[f].drain_end = SimTime::max();
    links[0].flows.push_back({f, 0});
  }
  CHECK_THROWS_WITH(audit_link_loads(links, flows, SimTime::zero()), Contains("more than its capacity"));
  // At 0.5 GB/s each the link is exactly full, which is allowed.
  for (FlowState& f : flows) f.rate = 0.5e9;
  links[0].load = 1e9;
  CHECK_NOTHROW(audit_link_loads(links, flows, SimTime::zero()));
  // A recorded load that forgot a flow hides the next over-subscription: the audit catches that too.
  links[0].load = 0.5e9;
  CHECK_THROWS_WITH(audit_link_loads(links, flows, SimTime::zero()), Contains("misses rates"));
}

TEST_CASE("every started flow finishes: a flow still active is reported", "[invariants]") {
  // A 1 MB flow on a 100 Gb/s link, checked before the simulation ran: it is still pushing.
  const Topology topology = build_topology("ring:n=2,bw=100Gbps,lat=1us");
  Simulator sim;
  FlowModel model(sim, topology);
  Router router(topology);
  struct Ignore : FlowObserver {
    void on_flow_finished(FlowId, std::uint64_t) override {}
  } observer;
  model.start(router.route(topology.gpu(0), topology.gpu(1)), Bytes{1'000'000}, observer, 0);
  CHECK_THROWS_WITH(model.check_finished(), Contains("1 flow(s) still active") && Contains("pushing"));
  CHECK(unfinished_flows_report(0, nullptr) == std::nullopt);
  // Run to the end: the simulator checks at quiescence, and the flow has finished.
  CHECK_NOTHROW(sim.run());
  CHECK_NOTHROW(model.check_finished());
}

TEST_CASE("deadlock: a missing send is reported naming the rank that waits", "[invariants]") {
  // Rank 0 does nothing; rank 1 waits at its step 0 for one transfer that no rank's plan sends.
  const TablePlan plan({{receive(0)}, {receive(1)}});
  const std::string message = failure_of(plan);
  CHECK_THAT(message, Contains("deadlock in the table collective"));
  CHECK_THAT(message, Contains("1 of 2 ranks waiting"));
  CHECK_THAT(message,
             Contains("rank 1 waits at step 0 of 1 for 1 of 1 transfer(s), which no rank sends to its step 0"));
}

TEST_CASE("deadlock: a cycle of waits names who waits for whom", "[invariants]") {
  // Each rank waits at step 0 for what the other sends only at its step 1: neither ever gets there.
  const TablePlan plan({{receive(1), send_to(1, 0)}, {receive(1), send_to(0, 0)}});
  const std::string message = failure_of(plan);
  CHECK_THAT(message, Contains("2 of 2 ranks waiting"));
  CHECK_THAT(message, Contains("rank 0 waits at step 0 of 2 for 1 of 1 transfer(s) from rank 1 (sends it at its "
                               "step 1, but waits at step 0)"));
  CHECK_THAT(message, Contains("rank 1 waits at step 0 of 2 for 1 of 1 transfer(s) from rank 0"));
}

TEST_CASE("deadlock report: ranks, steps and peers as the executor saw them", "[invariants]") {
  // Rank 2 of a 3-rank table waits at step 1 for rank 0's step-2 send; rank 0 stands at step 1.
  const TablePlan plan({{receive(0), receive(1), send_to(2, 1)}, {receive(0)}, {receive(0), receive(1)}});
  std::vector<RankProgress> ranks(3);
  ranks[0] = {1, 3, 0, 1, 0, false, false};
  ranks[1] = {1, 1, 0, 0, 0, false, true};
  ranks[2] = {1, 2, 0, 1, 0, false, false};
  const std::string report = deadlock_report(plan, ranks);
  CHECK_THAT(report, Contains("2 of 3 ranks waiting"));
  CHECK_THAT(report, Contains("rank 2 waits at step 1 of 2 for 1 of 1 transfer(s) from rank 0 (sends it at its step "
                              "2, but waits at step 1)"));
  CHECK_THAT(report, Contains("rank 0 waits at step 1 of 3 for 1 of 1 transfer(s), which no rank sends"));
}

TEST_CASE("bytes conserved: a send to a step its receiver never waits in fails at the end", "[invariants]") {
  // Rank 0 sends 1 MB to rank 1's step 0, but rank 1's step 0 expects nothing: it finishes at once, and the
  // transfer is still on its way when the collective says it is done.
  const TablePlan plan({{send_to(1, 0)}, {receive(0)}});
  CHECK_THAT(failure_of(plan), Contains("bytes not conserved"));
}

TEST_CASE("bytes conserved: a correct ring delivers what its plan holds, in bulk and per flow", "[invariants]") {
  // 4 ranks x 2 x 3 steps x 1 MB: the executor's count, its deliveries and (with audits) the plan agree.
  const RingPlan plan(CollectiveOp::allreduce, 4, Bytes{4'000'000});
  CHECK(plan_bytes(plan) == Approx(4.0 * 6 * 1'000'000));
  for (const bool bulk : {true, false}) CHECK(failure_of(plan, bulk) == "no failure");
}
