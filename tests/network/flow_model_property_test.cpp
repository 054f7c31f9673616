// FlowModel invariants on random flow sets over random small topologies (fixed seeds):
//  - capacity: the rates on a link never sum above its bandwidth;
//  - max-min: every pushing flow has a saturated link on which its rate is the largest (the certificate), and the
//    incrementally maintained rates equal a from-scratch solve of all pushing flows;
//  - completion: every flow finishes, no earlier than its closed form alone on the network;
//  - conservation: each link carried exactly the bytes of the flows that crossed it;
//  - determinism: the same seed gives the same finish times.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "named_nodes.hpp"
#include "syncsim/network/flow_model.hpp"
#include "syncsim/network/max_min_solver.hpp"

namespace syncsim {
using namespace named_nodes;
namespace {

struct Scenario : FlowObserver, EventHandler {
  static constexpr std::uint64_t kCheck = ~std::uint64_t{0};

  Topology topology;
  std::deque<Route> routes;  // stable addresses, one per flow
  std::vector<Bytes> bytes;
  std::vector<SimTime> start_at;
  std::vector<SimTime> finished_at;
  std::map<std::uint64_t, FlowId> active;  // token (flow index) -> id, while started and unfinished
  Simulator sim;
  std::unique_ptr<FlowModel> model;
  int checks = 0;

  explicit Scenario(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution(lo, hi)(rng); };
    // A ring of 6 nodes plus a few random chords, bandwidths 1..10 GB/s, latencies 0..2 us.
    constexpr std::uint32_t n = 6;
    for (std::uint32_t i = 0; i < n; ++i) add_named_node(topology, std::to_string(i));
    auto add_link = [&](std::uint32_t a, std::uint32_t b) {
      topology.add_duplex_link(NodeId{a}, NodeId{b}, Bandwidth::from_gb_per_s(static_cast<double>(uniform(1, 10))),
                               SimTime::from_ps(uniform(0, 2'000'000)), LinkKind::network);
    };
    for (std::uint32_t i = 0; i < n; ++i) add_link(i, (i + 1) % n);
    for (int c = 0; c < 3; ++c) {
      const auto a = static_cast<std::uint32_t>(uniform(0, n - 1));
      const auto b = static_cast<std::uint32_t>(uniform(0, n - 1));
      if (a != b) add_link(a, b);
    }
    // 60 flows: random simple paths of 1..4 hops, 0..2 MB (some empty), starting within 300 us.
    for (int f = 0; f < 60; ++f) {
      Route route;
      std::vector<bool> visited(n, false);
      auto node = static_cast<std::uint32_t>(uniform(0, n - 1));
      visited[node] = true;
      const auto hops = uniform(1, 4);
      double bottleneck = 1e300;
      for (std::int64_t h = 0; h < hops; ++h) {
        std::vector<LinkId> next;
        for (const LinkId l : topology.out_links(NodeId{node})) {
          if (!visited[topology.link(l).dst.value()]) next.push_back(l);
        }
        if (next.empty()) break;
        const LinkId l = next[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(next.size()) - 1))];
        route.links.push_back(l);
        route.latency += topology.link(l).latency;
        bottleneck = std::min(bottleneck, topology.link(l).bandwidth.bytes_per_second);
        node = topology.link(l).dst.value();
        visited[node] = true;
      }
      route.bottleneck = Bandwidth{bottleneck};
      routes.push_back(route);
      bytes.push_back(Bytes{uniform(0, 9) == 0 ? 0 : uniform(1, 2'000'000)});
      start_at.push_back(SimTime::from_ps(uniform(0, 300'000'000)));
    }
    finished_at.assign(routes.size(), SimTime::max());
    model = std::make_unique<FlowModel>(sim, topology);
    for (std::uint64_t f = 0; f < routes.size(); ++f) sim.schedule_at(start_at[f], *this, f);
    // Checks at odd instants, after everything else that happens at the same instant.
    for (std::int64_t t = 3; t < 2'000'000'000; t += 7'000'001)
      sim.schedule_at(SimTime::from_ps(t), *this, kCheck, EventPriority::last);
  }

  void on_event(Simulator&, std::uint64_t payload) override {
    if (payload == kCheck) {
      check_rates();
      return;
    }
    active[payload] = model->start(routes[payload], bytes[payload], *this, payload);
  }
  void on_flow_finished(FlowId, std::uint64_t token) override {
    finished_at[token] = sim.now();
    active.erase(token);
  }

  void check_rates() {
    ++checks;
    const std::size_t links = topology.link_count();
    std::vector<double> load(links, 0.0), max_rate(links, 0.0);
    MaxMinSolver reference;
    for (std::size_t l = 0; l < links; ++l) {
      reference.add_link(topology.link(LinkId{static_cast<std::uint32_t>(l)}).bandwidth.bytes_per_second);
    }
    std::vector<std::pair<std::uint64_t, double>> pushing;
    std::vector<std::uint32_t> hops;
    for (const auto& [token, id] : active) {
      const double rate = model->rate(id).bytes_per_second;
      if (rate == 0) continue;  // drained, in its latency tail
      pushing.emplace_back(token, rate);
      hops.clear();
      for (const LinkId l : routes[token].links) {
        load[l.value()] += rate;
        max_rate[l.value()] = std::max(max_rate[l.value()], rate);
        hops.push_back(l.value());
      }
      reference.add_flow(hops);
    }
    reference.solve();
    for (std::uint32_t l = 0; l < links; ++l) {
      const double capacity = topology.link(LinkId{l}).bandwidth.bytes_per_second;
      REQUIRE(load[l] <= capacity * (1 + 1e-9));
      REQUIRE(model->link_load(LinkId{l}).bytes_per_second == Approx(load[l]).margin(1e-3));
    }
    for (std::uint32_t i = 0; i < pushing.size(); ++i) {
      const auto [token, rate] = pushing[i];
      REQUIRE(rate == Approx(reference.rate(i)).epsilon(1e-9));
      bool has_bottleneck = false;
      for (const LinkId l : routes[token].links) {
        const double capacity = topology.link(l).bandwidth.bytes_per_second;
        const bool saturated = load[l.value()] >= capacity * (1 - 1e-9);
        has_bottleneck = has_bottleneck || (saturated && rate >= max_rate[l.value()] * (1 - 1e-9));
      }
      REQUIRE(has_bottleneck);
    }
  }
};

TEST_CASE("flow model: random flow sets keep the max-min invariants", "[flow_model][property]") {
  int slowed = 0;  // flows that met contention: the sets must exercise sharing, not only lone flows
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    CAPTURE(seed);
    Scenario s(seed);
    s.sim.run();
    REQUIRE(s.checks > 0);
    REQUIRE(s.model->active_flows() == 0);
    REQUIRE(s.model->flows_started() == s.routes.size());

    std::vector<double> expected_bytes(s.topology.link_count(), 0.0);
    for (std::size_t f = 0; f < s.routes.size(); ++f) {
      REQUIRE(s.finished_at[f] != SimTime::max());
      const Route& route = s.routes[f];
      // Never faster than alone on the network (1 ps of rounding allowed).
      const SimTime alone = s.start_at[f] + route.latency +
                            (s.bytes[f].value > 0 ? transfer_time(s.bytes[f], route.bottleneck) : SimTime::zero());
      REQUIRE(s.finished_at[f] >= alone - SimTime::from_ps(1));
      if (s.finished_at[f] > alone + SimTime::from_ps(1)) ++slowed;
      for (const LinkId l : route.links) expected_bytes[l.value()] += static_cast<double>(s.bytes[f].value);
    }
    for (std::uint32_t l = 0; l < s.topology.link_count(); ++l) {
      const LinkUsage usage = s.model->link_usage(LinkId{l});
      REQUIRE(usage.bytes_carried == Approx(expected_bytes[l]).epsilon(1e-9).margin(1e-3));
      REQUIRE(usage.busy_time <= s.sim.now());
      REQUIRE((usage.busy_time > SimTime::zero()) == (expected_bytes[l] > 0));
    }

    Scenario again(seed);
    again.sim.run();
    REQUIRE(again.finished_at == s.finished_at);
  }
  CHECK(slowed > 100);
}

}  // namespace
}  // namespace syncsim
