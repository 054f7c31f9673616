// CollectiveOutcome::links: the traffic every link carried, on every execution path (one channel in bulk, flow by
// flow, several channels in lockstep). Conservation laws hold whatever the timing:
//
// On switch:n=N a ring AllReduce of S bytes sends 2(N-1) chunks of S/N from every GPU, each over two links (its
// uplink to the switch, then the receiver's downlink). So every one of the 2N links carries 2(N-1)/N S bytes,
// and the links together carry 2 x (bytes sent).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {
double total_bytes(const std::vector<LinkTraffic>& links) {
  return std::accumulate(links.begin(), links.end(), 0.0,
                         [](double sum, const LinkTraffic& l) { return sum + l.bytes_carried; });
}

bool sorted_by_link(const std::vector<LinkTraffic>& links) {
  return std::is_sorted(links.begin(), links.end(),
                        [](const LinkTraffic& a, const LinkTraffic& b) { return a.link.value() < b.link.value(); });
}
}  // namespace

TEST_CASE("link traffic: a ring AllReduce on a switch loads every link with 2(N-1)/N S", "[link_traffic]") {
  constexpr std::size_t n = 8;
  const double size = 1e9;
  const Topology topology = build_topology(fmt::format("switch:n={},bw=100Gbps,lat=5us", n));
  Router router(topology);
  struct Path {
    const char* name;
    bool bulk;
    std::uint32_t channels;
  };
  for (const Path path : {Path{"one channel, bulk", true, 1}, Path{"one channel, per flow", false, 1},
                          Path{"four channels, lockstep", true, 4}, Path{"four channels, per flow", false, 4}}) {
    CollectiveSpec spec;
    spec.lockstep_min_transfers = 0;  // small clusters too: this tests the lockstep path
    spec.size = Bytes{static_cast<std::int64_t>(size)};
    spec.algorithm = Algorithm::ring;
    spec.bulk = path.bulk;
    spec.channels = path.channels;
    const CollectiveOutcome outcome = simulate_collective(router, spec);
    INFO(path.name);
    REQUIRE(outcome.links.size() == 2 * n);
    CHECK(sorted_by_link(outcome.links));
    for (const LinkTraffic& link : outcome.links) {
      CHECK(link.bytes_carried == Approx(2.0 * (n - 1) / n * size));
      CHECK(link.busy_time > SimTime::zero());
      CHECK(link.busy_time <= outcome.time);
    }
    CHECK(total_bytes(outcome.links) == Approx(2.0 * outcome.stats.bytes_sent));
  }
}

TEST_CASE("link traffic on a DGX cluster: bytes x route hops, equal in lockstep and per flow", "[link_traffic]") {
  // Eight rail-aligned rings over two DGX nodes. Expected per link: the sum, over every channel's ring hop that
  // crosses it, of 2(n-1) chunks of S_c/n, where S_c is the channel's share (the last takes the remainder).
  const Topology topology = build_topology("dgx:nodes=2,gpus=8");
  Router router(topology);
  const std::size_t n = 16;
  const std::int64_t size = 25'000'000;
  CollectiveSpec spec;
  spec.lockstep_min_transfers = 0;  // small clusters too: this tests the lockstep path
  spec.size = Bytes{size};
  spec.algorithm = Algorithm::ring;
  const CollectiveOutcome lockstep = simulate_collective(router, spec);
  spec.bulk = false;
  const CollectiveOutcome per_flow = simulate_collective(router, spec);
  REQUIRE(lockstep.channels == 8);

  std::vector<double> expected(topology.link_count(), 0.0);
  const auto hosts = host_groups(topology, n);
  for (std::uint32_t c = 0; c < lockstep.channels; ++c) {
    const std::int64_t share = size / 8 + (c == 7 ? size % 8 : 0);
    const auto order = channel_ring_order(hosts, n, c, 8);
    for (std::size_t i = 0; i < n; ++i) {
      const Route& route = router.gpu_route(order[i].value(), order[(i + 1) % n].value());
      for (const LinkId link : route.links) {
        expected[link.value()] += 2.0 * (n - 1) * static_cast<double>(share) / static_cast<double>(n);
      }
    }
  }
  for (const CollectiveOutcome* outcome : {&lockstep, &per_flow}) {
    CHECK(sorted_by_link(outcome->links));
    std::size_t loaded = 0;
    for (const double bytes : expected) loaded += bytes > 0 ? 1 : 0;
    REQUIRE(outcome->links.size() == loaded);
    for (const LinkTraffic& link : outcome->links) CHECK(link.bytes_carried == Approx(expected[link.link.value()]));
  }
  CHECK(total_bytes(lockstep.links) == Approx(total_bytes(per_flow.links)));
}
