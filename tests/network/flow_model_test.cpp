// FlowModel through the Simulator: closed-form finish times, claims, idle links and usage counters.
//
// Unless a test says otherwise: links of C = 10 GB/s (1 byte = 100 ps), flows of B = 1 MB (B / C = 100 us),
// route latency 1 us.
#include "syncsim/network/flow_model.hpp"
#include "named_nodes.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace syncsim {
using namespace named_nodes;
namespace {

constexpr Bandwidth kC = Bandwidth::from_gb_per_s(10);
constexpr Bytes kB{1'000'000};
constexpr std::int64_t kBoverC = 100'000'000;  // ps
constexpr std::int64_t kLat = 1'000'000;       // ps

SimTime ps(std::int64_t n) {
  return SimTime::from_ps(n);
}

struct Recorder : FlowObserver {
  explicit Recorder(Simulator& s) : sim(s) {}
  void on_flow_finished(FlowId, std::uint64_t token) override { finished[token] = sim.now(); }
  Simulator& sim;
  std::map<std::uint64_t, SimTime> finished;
};

// Runs a function at a given time.
struct At : EventHandler {
  explicit At(std::function<void()> f) : fn(std::move(f)) {}
  void on_event(Simulator&, std::uint64_t) override { fn(); }
  std::function<void()> fn;
};

// a --C--> b, one directed link (id 0) with its reverse (id 1).
struct TwoNodes {
  Topology topology;
  LinkId ab;
  Route route;
  TwoNodes() {
    const NodeId a = add_named_node(topology, "a");
    const NodeId b = add_named_node(topology, "b");
    ab = topology.add_duplex_link(a, b, kC, ps(kLat), LinkKind::network);
    route = Route{{ab}, ps(kLat), kC};
  }
};

TEST_CASE("flow model: a lone flow finishes at latency + B / C with one event", "[flow_model]") {
  // Expected: 1 us + 100 us = 101 us exactly, and one scheduled event (its completion).
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  const FlowId f = model.start(net.route, kB, rec, 7);
  CHECK(model.rate(f).bytes_per_second == kC.bytes_per_second);
  CHECK(model.link_load(net.ab).bytes_per_second == kC.bytes_per_second);
  CHECK(model.active_flows() == 1);
  sim.run();
  CHECK(rec.finished.at(7) == ps(kBoverC + kLat));
  CHECK(rec.finished.at(7) == transfer_time(kB, kC) + ps(kLat));
  CHECK(sim.events_dispatched() == 1);
  CHECK(model.active_flows() == 0);
  CHECK(model.flows_started() == 1);
}

TEST_CASE("flow model: drain_time is the lone flow's rounding, to the picosecond", "[flow_model]") {
  // 777,777 bytes over 3.3 GB/s = 235.690 us, not a whole picosecond. Expected: the lone flow finishes at exactly
  // latency + drain_time(), and drain_time() agrees with transfer_time().
  const Bytes bytes{777'777};
  const Bandwidth bw = Bandwidth::from_gb_per_s(3.3);
  CHECK(FlowModel::drain_time(kB, kC) == ps(kBoverC));
  CHECK(FlowModel::drain_time(bytes, bw) == transfer_time(bytes, bw));
  Topology topo;
  const NodeId a = add_named_node(topo, "a");
  const NodeId b = add_named_node(topo, "b");
  const LinkId ab = topo.add_duplex_link(a, b, bw, ps(1234567), LinkKind::nvlink);
  const Route route{{ab}, ps(1234567), bw};
  Simulator sim;
  FlowModel model(sim, topo);
  Recorder rec(sim);
  model.start(route, bytes, rec, 1);
  sim.run();
  CHECK(rec.finished.at(1) == FlowModel::drain_time(bytes, bw) + ps(1234567));
}

TEST_CASE("flow model: fluid sizes", "[flow_model]") {
  // A chunk of S/n bytes need not be whole: S = 1 MB over n = 3 ranks is 333,333.33 bytes, 33.33 us at C.
  // Expected: a lone flow finishes at latency + drain_time(S/3), i.e. 33,333,333 ps + 1 us; a 1 MB flow sharing
  // with it from 0 gets C/2 until the small one drains at 2 * 33.33 us, then C: finishes at (1 MB + S/3) / C.
  const double third = 1e6 / 3;
  CHECK(FlowModel::drain_time(third, kC) == ps(33'333'333));
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  model.start(net.route, third, rec, 1);
  model.start(net.route, kB, rec, 2);
  sim.run();
  CHECK(std::abs((rec.finished.at(1) - ps(66'666'667 + kLat)).ps()) <= 1);
  CHECK(std::abs((rec.finished.at(2) - ps(133'333'333 + kLat)).ps()) <= 1);
  CHECK(model.link_usage(net.ab).bytes_carried == Approx(1e6 + third));
}

TEST_CASE("flow model: flows that start and drain in one instant are solved once", "[flow_model]") {
  // k = 16 flows of B start at t = 0 on one link: each gets C/k and all finish at k*B/C + latency = 1601 us.
  // Efficiency: one solve for the k starts and one for the k drains, so about two events per flow (drain and
  // completion) plus a handful, not the k^2/2 reschedules of solving after every start.
  constexpr int k = 16;
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  for (int i = 0; i < k; ++i) model.start(net.route, kB, rec, static_cast<std::uint64_t>(i));
  CHECK(model.link_load(net.ab).bytes_per_second == Approx(kC.bytes_per_second));
  sim.run();
  for (int i = 0; i < k; ++i) CHECK(rec.finished.at(static_cast<std::uint64_t>(i)) == ps(k * kBoverC + kLat));
  CHECK(sim.events_dispatched() <= 2 * k + 4);
}

TEST_CASE("flow model: two flows started together share the link", "[flow_model]") {
  // Both get C/2 and drain together at 2B/C. Expected: both finish at 200 us + 1 us.
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  const FlowId f1 = model.start(net.route, kB, rec, 1);
  const FlowId f2 = model.start(net.route, kB, rec, 2);
  CHECK(model.rate(f1).bytes_per_second == kC.bytes_per_second / 2);
  CHECK(model.rate(f2).bytes_per_second == kC.bytes_per_second / 2);
  sim.run();
  CHECK(rec.finished.at(1) == ps(2 * kBoverC + kLat));
  CHECK(rec.finished.at(2) == ps(2 * kBoverC + kLat));
}

TEST_CASE("flow model: a flow joining mid-way", "[flow_model]") {
  // f1 starts at 0; f2 joins at t1 = B/(2C) = 50 us, when f1 has B/2 left. Both run at C/2: f1 drains after
  // (B/2)/(C/2) = 100 us more, at 150 us; f2 then has B/2 left and runs alone at C: drains at 150 + 50 = 200 us.
  // Expected: f1 at 151 us, f2 at 201 us (1 ps of rounding allowed).
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  model.start(net.route, kB, rec, 1);
  At join([&] { model.start(net.route, kB, rec, 2); });
  sim.schedule_at(ps(kBoverC / 2), join);
  sim.run();
  CHECK(std::abs((rec.finished.at(1) - ps(3 * kBoverC / 2 + kLat)).ps()) <= 1);
  CHECK(std::abs((rec.finished.at(2) - ps(2 * kBoverC + kLat)).ps()) <= 1);
}

TEST_CASE("flow model: a flow limited elsewhere leaves the rest to the other", "[flow_model]") {
  // a -> s (10 GB/s), c -> s (2 GB/s), s -> b (10 GB/s); 1 us per link. x: c->s->b, y: a->s->b, 1 MB each.
  // Expected rates: x = 2 GB/s (its own first link), y = 10 - 2 = 8 GB/s.
  // y drains at 1 MB / 8 GB/s = 125 us, finishes at 127 us; x keeps 2 GB/s: drains at 500 us, finishes at 502 us.
  Topology topo;
  const NodeId a = add_named_node(topo, "a");
  const NodeId c = add_named_node(topo, "c");
  const NodeId s = add_named_node(topo, "s", NodeKind::network_switch);
  const NodeId b = add_named_node(topo, "b");
  const LinkId as = topo.add_duplex_link(a, s, kC, ps(kLat), LinkKind::network);
  const LinkId cs = topo.add_duplex_link(c, s, Bandwidth::from_gb_per_s(2), ps(kLat), LinkKind::network);
  const LinkId sb = topo.add_duplex_link(s, b, kC, ps(kLat), LinkKind::network);
  const Route x_route{{cs, sb}, ps(2 * kLat), Bandwidth::from_gb_per_s(2)};
  const Route y_route{{as, sb}, ps(2 * kLat), kC};
  Simulator sim;
  FlowModel model(sim, topo);
  Recorder rec(sim);
  const FlowId x = model.start(x_route, kB, rec, 1);
  const FlowId y = model.start(y_route, kB, rec, 2);
  CHECK(model.rate(x).bytes_per_second == Approx(2e9));
  CHECK(model.rate(y).bytes_per_second == Approx(8e9));
  CHECK(model.link_load(sb).bytes_per_second == Approx(10e9));
  sim.run();
  CHECK(std::abs((rec.finished.at(2) - ps(125'000'000 + 2 * kLat)).ps()) <= 1);
  CHECK(std::abs((rec.finished.at(1) - ps(500'000'000 + 2 * kLat)).ps()) <= 1);
}

TEST_CASE("flow model: explicit latency and zero-byte flows", "[flow_model]") {
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  SECTION("a resumed flow completes its own latency after its last byte") {
    // Expected: 100 us + 3 us.
    model.start(net.route, kB, rec, 1, SimTime::from_us(3));
    sim.run();
    CHECK(rec.finished.at(1) == ps(kBoverC + 3'000'000));
  }
  SECTION("a zero-byte flow pays the latency only and holds no bandwidth") {
    // Expected: done at 1 us; the link stays idle meanwhile.
    const FlowId f = model.start(net.route, Bytes{0}, rec, 1);
    CHECK(model.active_flows() == 1);
    CHECK(model.rate(f).bytes_per_second == 0);
    CHECK(model.idle(net.ab));
    sim.run();
    CHECK(rec.finished.at(1) == ps(kLat));
    CHECK(model.link_usage(net.ab).busy_time == SimTime::zero());
  }
  SECTION("the tail of a transfer: zero bytes, explicit latency") {
    model.start(net.route, Bytes{0}, rec, 1, ps(250));
    sim.run();
    CHECK(rec.finished.at(1) == ps(250));
  }
}

TEST_CASE("flow model: a lazily drained flow pushes nothing during its latency tail", "[flow_model]") {
  // A lone flow drains at 100 us and completes at 101 us. At 100.5 us it is active but the link is idle.
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  const FlowId f = model.start(net.route, kB, rec, 1);
  CHECK_FALSE(model.idle(net.ab));
  sim.run_until(ps(kBoverC + kLat / 2));
  CHECK(model.active_flows() == 1);
  CHECK(model.idle(net.ab));
  CHECK(model.rate(f).bytes_per_second == 0);
  CHECK(model.link_load(net.ab).bytes_per_second == 0);
  const LinkUsage usage = model.link_usage(net.ab);
  CHECK(usage.bytes_carried == Approx(1e6));
  CHECK(usage.busy_time == ps(kBoverC));
  // A new flow on the link now runs alone at full rate: 100.5 + 100 + 1 us.
  model.start(net.route, kB, rec, 2);
  sim.run();
  CHECK(rec.finished.at(1) == ps(kBoverC + kLat));
  CHECK(rec.finished.at(2) == ps(2 * kBoverC + kLat / 2 + kLat));
}

TEST_CASE("flow model: chained flows reuse slots", "[flow_model]") {
  // Each finish starts the next flow on the same route: 1000 flows back to back. Expected: 1000 * 101 us, one
  // event per flow, and never more than one slot in use.
  struct Chain : FlowObserver {
    FlowModel* model = nullptr;
    const Route* route = nullptr;
    int left = 1000;
    std::uint32_t max_id = 0;
    void on_flow_finished(FlowId, std::uint64_t) override {
      if (--left > 0) max_id = std::max(max_id, model->start(*route, kB, *this, 0).value());
    }
  };
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Chain chain;
  chain.model = &model;
  chain.route = &net.route;
  model.start(net.route, kB, chain, 0);
  sim.run();
  CHECK(chain.left == 0);
  CHECK(sim.now() == ps(1000 * (kBoverC + kLat)));
  CHECK(sim.events_dispatched() == 1000);
  CHECK(chain.max_id == 0);
}

// Bulk work on a route: when its claim breaks it releases and starts a real flow for the bytes it owes.
struct BulkTransfer : LinkClaimant {
  BulkTransfer(FlowModel& m, const Route& r, FlowObserver& o) : model(m), route(r), observer(o) {}
  void claim_all() {
    for (const LinkId l : route.links) model.claim(l, *this);
  }
  void on_claim_broken() override {
    ++broken;
    for (const LinkId l : route.links) model.release(l);
    model.start(route, kB, observer, 99);
  }
  FlowModel& model;
  const Route& route;
  FlowObserver& observer;
  int broken = 0;
};

TEST_CASE("flow model: claims", "[flow_model][claims]") {
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  BulkTransfer bulk(model, net.route, rec);
  const LinkId ba = net.topology.link(net.ab).reverse;

  SECTION("a claimed link is not idle; release makes it idle again") {
    CHECK(model.idle(net.ab));
    bulk.claim_all();
    CHECK_FALSE(model.idle(net.ab));
    CHECK(model.idle(ba));
    model.release(net.ab);
    CHECK(model.idle(net.ab));
  }
  SECTION("a flow on a claimed link breaks the claim first, then shares exactly") {
    // The claimant restarts its 1 MB as a real flow before the new one registers; the two then share C.
    // Expected: on_claim_broken once; both finish at 2B/C + latency.
    bulk.claim_all();
    model.start(net.route, kB, rec, 1);
    CHECK(bulk.broken == 1);
    CHECK(model.active_flows() == 2);
    CHECK(model.link_load(net.ab).bytes_per_second == Approx(kC.bytes_per_second));
    sim.run();
    CHECK(rec.finished.at(99) == ps(2 * kBoverC + kLat));
    CHECK(rec.finished.at(1) == ps(2 * kBoverC + kLat));
  }
  SECTION("a claimant holding several links of the route is told once") {
    Topology topo;
    const NodeId a = add_named_node(topo, "a");
    const NodeId s = add_named_node(topo, "s");
    const NodeId b = add_named_node(topo, "b");
    const LinkId as = topo.add_duplex_link(a, s, kC, ps(kLat), LinkKind::network);
    const LinkId sb = topo.add_duplex_link(s, b, kC, ps(kLat), LinkKind::network);
    const Route route{{as, sb}, ps(2 * kLat), kC};
    FlowModel model2(sim, topo);
    BulkTransfer two_hop(model2, route, rec);
    two_hop.claim_all();
    model2.start(route, kB, rec, 1);
    CHECK(two_hop.broken == 1);
    CHECK(model2.active_flows() == 2);
  }
  SECTION("claims elsewhere are left alone; zero-byte flows break nothing") {
    const Route back{{ba}, ps(kLat), kC};
    BulkTransfer other(model, back, rec);
    other.claim_all();
    model.start(net.route, kB, rec, 1);
    model.start(back, Bytes{0}, rec, 2);
    CHECK(other.broken == 0);
    CHECK_FALSE(model.idle(ba));
  }
  SECTION("claiming a busy link is an engine bug") {
    model.start(net.route, kB, rec, 1);
    CHECK_THROWS_AS(model.claim(net.ab, bulk), std::logic_error);
  }
}

TEST_CASE("flow model: link usage", "[flow_model][usage]") {
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  SECTION("one flow: bytes and busy time grow with it, queried mid-way") {
    // Expected at 40 us: 400 kB carried, busy 40 us. At the end: 1 MB, busy 100 us (not the latency tail).
    model.start(net.route, kB, rec, 1);
    sim.run_until(SimTime::from_us(40));
    CHECK(model.link_usage(net.ab).bytes_carried == Approx(400'000));
    CHECK(model.link_usage(net.ab).busy_time == SimTime::from_us(40));
    sim.run();
    CHECK(model.link_usage(net.ab).bytes_carried == Approx(1e6));
    CHECK(model.link_usage(net.ab).busy_time == ps(kBoverC));
  }
  SECTION("overlapping flows: busy is the union of their pushing times") {
    // f1 at 0 (1 MB), f2 at 50 us (1 MB): the link pushes from 0 to 200 us without a gap. A third flow at 300 us
    // adds 100 us. Expected: 3 MB carried, busy 300 us.
    model.start(net.route, kB, rec, 1);
    At second([&] { model.start(net.route, kB, rec, 2); });
    At third([&] { model.start(net.route, kB, rec, 3); });
    sim.schedule_at(SimTime::from_us(50), second);
    sim.schedule_at(SimTime::from_us(300), third);
    sim.run();
    CHECK(model.link_usage(net.ab).bytes_carried == Approx(3e6));
    CHECK(std::abs((model.link_usage(net.ab).busy_time - SimTime::from_us(300)).ps()) <= 2);
  }
  SECTION("bulk work is credited by record_usage") {
    model.record_usage(net.route, Bytes{5000}, SimTime::from_us(2));
    model.record_usage(net.route, 0.5, SimTime::from_us(1));
    CHECK(model.link_usage(net.ab).bytes_carried == 5000.5);
    CHECK(model.link_usage(net.ab).busy_time == SimTime::from_us(3));
  }
}

TEST_CASE("flow model: traffic() lists the links that carried bytes, by link id, with bulk credit", "[flow_model]") {
  // Links: ab (and its reverse ba, id ab+1). A flow of B on ab, then B/2 credited in bulk on ba for 50 us.
  // Expected: both links listed in id order; ab with B over 100 us, ba with B/2 over 50 us.
  TwoNodes net;
  Simulator sim;
  FlowModel model(sim, net.topology);
  Recorder rec(sim);
  CHECK(model.traffic().empty());
  model.start(net.route, kB, rec, 1);
  sim.run();
  const LinkId ba = net.topology.link(net.ab).reverse;
  model.record_usage(Route{{ba}, ps(kLat), kC}, 0.5e6, ps(kBoverC / 2));
  const std::vector<LinkTraffic> traffic = model.traffic();
  REQUIRE(traffic.size() == 2);
  CHECK(traffic[0].link.value() < traffic[1].link.value());
  const LinkTraffic& on_ab = traffic[0].link == net.ab ? traffic[0] : traffic[1];
  const LinkTraffic& on_ba = traffic[0].link == net.ab ? traffic[1] : traffic[0];
  CHECK(on_ab.bytes_carried == Approx(1e6));
  CHECK(on_ab.busy_time == ps(kBoverC));
  CHECK(on_ba.link == ba);
  CHECK(on_ba.bytes_carried == Approx(0.5e6));
  CHECK(on_ba.busy_time == ps(kBoverC / 2));
}

}  // namespace
}  // namespace syncsim
