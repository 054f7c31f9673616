// Channels, latency sources and the automatic choice of algorithm and protocol.
#include <catch2/catch.hpp>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time_overflow.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {
constexpr const char* kTwoDgx = "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps";

double busbw_gbps(const CollectiveSpec& spec, const CollectiveOutcome& outcome, std::size_t ranks) {
  return bus_bandwidth(spec.op, ranks, spec.size, outcome.time).busbw.gb_per_s();
}
}  // namespace

TEST_CASE("channel rings enter and leave every host on one rail", "[runner]") {
  const Topology topology = build_topology("dgx:nodes=4,gpus=8");
  const auto hosts = host_groups(topology, 32);
  REQUIRE(hosts.size() == 4);
  for (std::uint32_t c = 0; c < 8; ++c) {
    const auto order = channel_ring_order(hosts, 32, c, 8);
    REQUIRE(order.size() == 32);
    std::vector<bool> seen(32, false);
    for (const Rank r : order) seen[r.value()] = true;
    CHECK(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; }));
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::uint32_t from = order[i].value(), to = order[(i + 1) % order.size()].value();
      if (from / 8 != to / 8) CHECK(from % 8 == to % 8);  // inter-host hop: same local GPU, same rail
    }
    CHECK(order[0].value() == c);  // channel c starts at local GPU c of host 0
  }
}

TEST_CASE("channel sizes add up to the size, differ by at most a byte and repeat with S mod C's period", "[runner]") {
  for (const std::int64_t size : {std::int64_t{0}, std::int64_t{5}, std::int64_t{16}, std::int64_t{100'000'004},
                                  std::int64_t{100'000'008}, std::int64_t{100'000'012}, std::int64_t{99'999'999}}) {
    for (const std::uint32_t channels : {1U, 3U, 16U}) {
      std::int64_t total = 0;
      std::int64_t least = size;
      std::int64_t most = 0;
      for (std::uint32_t c = 0; c < channels; ++c) {
        const std::int64_t bytes = channel_bytes(Bytes{size}, c, channels).value;
        total += bytes;
        least = std::min(least, bytes);
        most = std::max(most, bytes);
      }
      INFO(size << " bytes over " << channels << " channels");
      CHECK(total == size);
      CHECK(most - least <= 1);
    }
  }
  // In whole floats over 16 channels: the same every 4 channels (+4 or +12 bytes), every 2 (+8), every one (+0).
  for (const std::int64_t extra : {0, 4, 8, 12}) {
    const Bytes size{1'600'000 + extra};
    const std::uint32_t period = extra == 0 ? 1 : extra == 8 ? 2 : 4;
    for (std::uint32_t c = period; c < 16; ++c) {
      CHECK(channel_bytes(size, c, 16) == channel_bytes(size, c - period, 16));
    }
  }
}

TEST_CASE("two channels on hosts whose GPUs share two NICs leave through different NICs", "[runner]") {
  // DGX-1-like: 8 GPUs and 2 NICs per host (GPUs 0-3 on NIC 0, 4-7 on NIC 1); a 1 GiB ring AllReduce over two
  // channels must drive both NICs of a host in each direction: busbw 2 x 12.5 GB/s.
  const Topology topology = build_topology("dgx:nodes=2,gpus=8,nic_bw=100Gbps,rails=2");
  Router router(topology);
  CollectiveSpec spec;
  spec.size = Bytes{std::int64_t{1} << 30};
  spec.algorithm = Algorithm::ring;
  const CollectiveOutcome outcome = simulate_collective(router, spec);
  CHECK(outcome.channels == 2);
  CHECK(busbw_gbps(spec, outcome, 16) == Approx(25.0).epsilon(0.02));
}

TEST_CASE("default channels: one per rail across hosts, one otherwise, trees a pair of channels per rail", "[runner]") {
  CHECK(default_channels(build_topology(kTwoDgx), 16, Algorithm::ring) == 8);
  CHECK(default_channels(build_topology("dgx:nodes=2,gpus=8,rails=2"), 16, Algorithm::ring) == 2);
  CHECK(default_channels(build_topology("dgx:nodes=1,gpus=8"), 8, Algorithm::ring) == 1);
  CHECK(default_channels(build_topology("switch:n=8,bw=100Gbps"), 8, Algorithm::ring) == 1);
  CHECK(default_channels(build_topology("switch:n=8,bw=100Gbps"), 8, Algorithm::tree) == 2);
  CHECK(default_channels(build_topology(kTwoDgx), 16, Algorithm::tree) == 16);
  // Trays of one NVLink domain are one node: two domains of 2 trays x 4 GPUs, a NIC per GPU, 8 rails per node.
  CHECK(default_channels(build_topology("dgx:nodes=4,gpus=4,nvlink_domain=2"), 16, Algorithm::ring) == 8);
  // Two GB200 racks of 16 trays: 64 NICs per rack, more than NCCL's searches look for.
  CHECK(default_channels(build_topology("dgx:nodes=32,gpus=4,nvlink_domain=16"), 128, Algorithm::ring) == 32);
  CHECK(default_channels(build_topology("dgx:nodes=32,gpus=4,nvlink_domain=16"), 128, Algorithm::tree) == 32);
}

TEST_CASE("NCCL's nodes: trays that share an NVLink domain are one node, as NCCL fuses an MNNVL clique", "[runner]") {
  const Topology racks = build_topology("dgx:nodes=4,gpus=2,nvlink_domain=2");
  const auto nodes = nccl_node_groups(racks, 8);
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[0] == std::vector<Rank>{Rank{0}, Rank{1}, Rank{2}, Rank{3}});
  CHECK(nodes[1] == std::vector<Rank>{Rank{4}, Rank{5}, Rank{6}, Rank{7}});
  CHECK(host_groups(racks, 8).size() == 4);  // the trays stay the hosts
  CHECK(nccl_node_groups(build_topology(kTwoDgx), 16).size() == 2);
  CHECK(nccl_node_groups(build_topology("switch:n=4,bw=100Gbps"), 4).size() ==
        host_groups(build_topology("switch:n=4,bw=100Gbps"), 4).size());
}

TEST_CASE("two DGX nodes: 8 rail-aligned rings reach about 8 rails x 25 GB/s, one ring does not", "[runner]") {
  const Topology topology = build_topology(kTwoDgx);
  Router router(topology);
  CollectiveSpec spec;
  spec.size = Bytes{std::int64_t{1} << 30};
  spec.algorithm = Algorithm::ring;
  const CollectiveOutcome eight = simulate_collective(router, spec);
  CHECK(eight.channels == 8);
  CHECK(busbw_gbps(spec, eight, 16) >= 150.0);
  CHECK(busbw_gbps(spec, eight, 16) <= 200.0);
  spec.channels = 1;
  const CollectiveOutcome one = simulate_collective(router, spec);
  CHECK(busbw_gbps(spec, one, 16) <= 25.0);
}

TEST_CASE("nccl latency source: a one-node LL ring costs NCCL's base + per-step latency", "[runner]") {
  // 8 GPUs on NVLink, 8 bytes: 3.6 us launch + 2(n-1) = 14 steps of 0.47 us; the bytes are negligible.
  const Topology topology = build_topology("dgx:nodes=1,gpus=8");
  Router router(topology);
  CollectiveSpec spec;
  spec.size = Bytes{8};
  spec.algorithm = Algorithm::ring;
  spec.latency = LatencySource::nccl;
  spec.protocol = Protocol::ll;
  const CollectiveOutcome outcome = simulate_collective(router, spec);
  CHECK(outcome.time.us() == Approx(3.6 + 14 * 0.47).epsilon(0.01));
}

TEST_CASE("nccl latency source: LL moves a quarter of the link rate, Simple all of it", "[runner]") {
  const Topology topology = build_topology("switch:n=4,bw=100Gbps,lat=1us");
  Router router(topology);
  CollectiveSpec spec;
  spec.size = Bytes{std::int64_t{1} << 30};
  spec.algorithm = Algorithm::ring;
  spec.latency = LatencySource::nccl;
  spec.protocol = Protocol::ll;
  const double ll = busbw_gbps(spec, simulate_collective(router, spec), 4);
  spec.protocol = Protocol::simple;
  const double simple = busbw_gbps(spec, simulate_collective(router, spec), 4);
  CHECK(ll == Approx(12.5 / 4).epsilon(0.01));
  CHECK(simple == Approx(12.5).epsilon(0.01));
}

TEST_CASE("auto protocol: LL for small messages, Simple for large ones", "[runner]") {
  const Topology topology = build_topology("dgx:nodes=1,gpus=8");
  Router router(topology);
  CollectiveSpec spec;
  spec.algorithm = Algorithm::ring;
  spec.latency = LatencySource::nccl;
  spec.size = Bytes{1024};
  CHECK(simulate_collective(router, spec).protocol == Protocol::ll);
  spec.size = Bytes{std::int64_t{1} << 30};
  CHECK(simulate_collective(router, spec).protocol == Protocol::simple);
}

TEST_CASE("auto never loses to the algorithms it chose from", "[runner]") {
  const Topology topology = build_topology("switch:n=8,bw=100Gbps,lat=2us");
  Router router(topology);
  for (const std::int64_t size : {std::int64_t{64}, std::int64_t{1} << 20, std::int64_t{1} << 28}) {
    CollectiveSpec spec;
    spec.size = Bytes{size};
    spec.any_algorithm = true;
    const CollectiveOutcome best = simulate_collective(router, spec);
    CollectiveSpec nccl_choice = spec;
    nccl_choice.any_algorithm = false;
    CHECK(best.time <= simulate_collective(router, nccl_choice).time);
    for (const Algorithm algorithm : candidate_algorithms(spec.op, 8, false, true)) {
      spec.algorithm = algorithm;
      try {
        CHECK(best.time <= simulate_collective(router, spec).time);
      } catch (const InputError&) {
        // an algorithm that cannot run here is not a candidate the choice could have lost to
      }
    }
  }
}

TEST_CASE("bad requests: a protocol without the nccl model, too many ranks", "[runner]") {
  const Topology topology = build_topology("switch:n=4,bw=100Gbps");
  Router router(topology);
  CollectiveSpec spec;
  spec.size = Bytes{1024};
  spec.protocol = Protocol::ll;
  CHECK_THROWS_WITH(simulate_collective(router, spec), Catch::Contains("nccl latency model"));
  spec.protocol.reset();
  spec.ranks = 9;
  CHECK_THROWS_WITH(simulate_collective(router, spec), Catch::Contains("expected 2 to 4 ranks"));
}

TEST_CASE("NCCL's architecture ceiling caps busbw on an A100 node, only with NCCL's latency model",
          "[collective_runner]") {
  CHECK(nccl_busbw_cap(80)->gb_per_s() == Approx(235));
  CHECK(nccl_busbw_cap(90)->gb_per_s() == Approx(370));
  CHECK_FALSE(nccl_busbw_cap(70));
  CHECK_FALSE(nccl_busbw_cap(86));  // NCCL's A100 rule is for compute capability 8.0 exactly
  const Topology topology = build_topology("dgx:nodes=1,gpus=8,nvlink_bw=300GB/s");
  Router router(topology);
  CollectiveSpec spec;
  spec.size = Bytes{std::int64_t{1} << 30};
  spec.latency = LatencySource::nccl;
  const auto busbw = [&](const CollectiveOutcome& o) {
    return bus_bandwidth(CollectiveOp::allreduce, 8, spec.size, o.time).busbw.gb_per_s();
  };
  const double free = busbw(simulate_collective(router, spec));
  spec.busbw_cap = nccl_busbw_cap(80);
  const double capped = busbw(simulate_collective(router, spec));
  CHECK(free > 235);
  CHECK(capped <= 235);
  CHECK(capped > 0.98 * 235);  // 1 GiB: the launch overhead is negligible
  spec.latency = LatencySource::physical;
  CHECK(busbw(simulate_collective(router, spec)) > 235);
}

// Valid but extreme (issue 14): 1 GiB over 1 bps takes 272 years, past the int64-picosecond clock's 106 days. The
// collective says so with the transfer that overflowed, as SimTimeOverflow (an InputError), in auto mode (every
// candidate overflows) and with an explicit algorithm; it once ended in "event scheduled in the past".
TEST_CASE("a collective slower than the simulated clock is a SimTimeOverflow naming the transfer", "[runner]") {
  const Topology topology = build_topology("switch:n=4,bw=1bps");
  Router router(topology);
  CollectiveSpec spec;
  spec.size = Bytes{std::int64_t{1} << 30};
  CHECK_THROWS_AS(simulate_collective(router, spec), SimTimeOverflow);
  CHECK_THROWS_WITH(simulate_collective(router, spec),
                    Catch::Contains("passes 106 days") && Catch::Contains("B/s takes"));
  spec.algorithm = Algorithm::ring;
  CHECK_THROWS_AS(simulate_collective(router, spec), SimTimeOverflow);
  // A latency of 2000 h per hop: two hops pass the clock.
  const Topology slow = build_topology("switch:n=4,bw=100Gbps,lat=2000h");
  Router slow_router(slow);
  CHECK_THROWS_AS(simulate_collective(slow_router, spec), SimTimeOverflow);
}
