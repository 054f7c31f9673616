// Symmetry classes (lockstep_runner.hpp, symmetry_classes.hpp) change no result: every case runs with them on and
// off, and the two must agree to the picosecond and, link by link, to the byte. The cases are drawn at random
// (fixed seeds): symmetric clusters of every size, where the classes must also be few (that is the speed-up), and
// asymmetric ones — a degraded link, GPUs in a shuffled ring order, another group's traffic, oversubscribed trees
// — where the classes split or the recurrence falls back to every rank.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "pipeline_lockstep.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/lockstep_runner.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/collectives/tree_plan.hpp"
#include "syncsim/topology/link_changes.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

// Two runs' time, counts and link loads, to the picosecond and the byte.
template <typename Run>
void require_same(const Run& on, const Run& off) {
  REQUIRE(on.time == off.time);
  REQUIRE(on.stats.transfers == off.stats.transfers);
  REQUIRE(on.stats.bytes_sent == off.stats.bytes_sent);
  REQUIRE(on.links.size() == off.links.size());
  for (std::size_t i = 0; i < on.links.size(); ++i) {
    REQUIRE(on.links[i].link == off.links[i].link);
    REQUIRE(on.links[i].bytes_carried == off.links[i].bytes_carried);
    REQUIRE(on.links[i].busy_time == off.links[i].busy_time);
  }
}

void require_same_outcome(const CollectiveOutcome& on, const CollectiveOutcome& off) {
  REQUIRE(on.algorithm == off.algorithm);
  REQUIRE(on.protocol == off.protocol);
  require_same(on, off);
}

// The spec with symmetry on and off, each alone on a fresh router: the outcomes must be identical.
CollectiveOutcome same_either_way(const Topology& topology, CollectiveSpec spec) {
  spec.lockstep_min_transfers = 0;  // small clusters too: this tests the lockstep path
  Router on_router(topology);
  spec.symmetry = true;
  const CollectiveOutcome on = simulate_collective(on_router, spec);
  Router off_router(topology);
  spec.symmetry = false;
  const CollectiveOutcome off = simulate_collective(off_router, spec);
  require_same_outcome(on, off);
  return on;
}

// The C channel rings NCCL would build over the topology's first `ranks` GPUs, timed in lockstep.
LockstepTiming channel_rings(const Topology& topology, std::size_t ranks, std::uint32_t channels, Bytes size,
                             const std::vector<std::size_t>& gpu_of_rank, bool symmetry) {
  const std::vector<std::vector<Rank>> hosts = host_groups(topology, ranks);
  std::vector<RingPlan> plans;
  for (std::uint32_t c = 0; c < channels; ++c) {
    plans.emplace_back(CollectiveOp::allreduce, ranks, Bytes{size.value / channels},
                       RingOptions{.order = channel_ring_order(hosts, ranks, c, channels)});
  }
  std::vector<const CollectivePlan*> pointers;
  for (const RingPlan& plan : plans) pointers.push_back(&plan);
  std::vector<NodeId> gpus;
  for (std::size_t r = 0; r < ranks; ++r) gpus.push_back(topology.gpu(gpu_of_rank[r]));
  Router router(topology);
  ExecutorOptions options;
  options.symmetry = symmetry;
  const std::optional<LockstepTiming> timing = time_lockstep(router, pointers, gpus, options);
  REQUIRE(timing);
  return *timing;
}

// NCCL's 2 x `pairs` tree channels over every GPU of a cluster of `nodes` x `gpus`, pipelined (pipeline_lockstep.hpp).
LockstepTiming tree_channels(const Topology& topology, std::uint32_t nodes, std::uint32_t gpus, std::uint32_t pairs,
                             Bytes size, bool symmetry) {
  std::vector<std::vector<Rank>> hosts(nodes);
  for (std::uint32_t r = 0; r < nodes * gpus; ++r) hosts[r / gpus].push_back(Rank{r});
  std::vector<TreePlan> plans;
  for (std::uint32_t c = 0; c < 2 * pairs; ++c) {
    TreeOptions options{.pipeline_slices = 8, .tree = c % 2, .hosts = hosts, .chain = c / 2, .chains = pairs};
    plans.emplace_back(CollectiveOp::allreduce, nodes * gpus, channel_bytes(size, c, 2 * pairs), options);
  }
  std::vector<const CollectivePlan*> pointers;
  for (const TreePlan& plan : plans) pointers.push_back(&plan);
  std::vector<NodeId> ranks;
  for (std::uint32_t r = 0; r < nodes * gpus; ++r) ranks.push_back(topology.gpu(r));
  Router router(topology);
  ExecutorOptions options;
  options.symmetry = symmetry;
  options.cost = nccl_cost(Algorithm::tree, Protocol::ll128);
  const std::optional<LockstepTiming> timing =
      collectives_detail::time_pipeline(router, pointers, std::vector(plans.size(), ranks), options);
  REQUIRE(timing);
  return *timing;
}

std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

TEST_CASE("symmetry: random DGX clusters give the same times and link loads with classes on and off", "[symmetry]") {
  std::mt19937_64 rng(20);
  for (int trial = 0; trial < 24; ++trial) {
    const int gpus = std::array{2, 4, 8}[rng() % 3];
    const int nodes = 2 + static_cast<int>(rng() % 23);
    const std::string spec_text = fmt::format("dgx:nodes={},gpus={}", nodes, gpus);
    const Topology topology = build_topology(spec_text);
    CollectiveSpec spec;
    spec.op = std::array{CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather}[rng() % 3];
    spec.size = Bytes{static_cast<std::int64_t>(1 + rng() % (std::uint64_t{1} << 31))};
    spec.algorithm = Algorithm::ring;
    spec.channels = static_cast<std::uint32_t>(1 + rng() % 16);
    spec.latency = rng() % 2 ? LatencySource::nccl : LatencySource::physical;
    INFO(spec_text << " size " << spec.size.value << " channels " << *spec.channels);
    same_either_way(topology, spec);
  }
}

TEST_CASE("symmetry: a symmetric cluster runs on as many classes however large it is", "[symmetry]") {
  // On dgx a leaf serves 32 nodes (radix 64): the fabric repeats every 32 nodes, so a channel's ranks fall into at
  // most 32 x 8 classes (their place in that period), whatever the cluster's size; below one leaf, into fewer.
  std::optional<std::size_t> classes_at_scale;
  for (const int nodes : {8, 32, 64, 128, 256}) {
    const Topology topology = build_topology(fmt::format("dgx:nodes={},gpus=8", nodes));
    const std::size_t ranks = topology.gpu_count();
    const LockstepTiming on = channel_rings(topology, ranks, 8, Bytes{100'000'000}, identity(ranks), true);
    const LockstepTiming off = channel_rings(topology, ranks, 8, Bytes{100'000'000}, identity(ranks), false);
    INFO(nodes << " nodes");
    require_same(on, off);
    // The 8 rails' rings are one ring renamed (channel_classes.hpp): one is timed for all.
    CHECK(on.timed_channels == 1);
    CHECK(off.timed_channels == 0);
    CHECK(off.symmetry_classes == 0);
    CHECK(on.symmetry_classes > 0);
    CHECK(on.symmetry_classes <= 32 * 8 * 8);
    if (nodes >= 64) {
      if (!classes_at_scale) classes_at_scale = on.symmetry_classes;
      CHECK(on.symmetry_classes == *classes_at_scale);
    }
  }
  // One switch: every rank alike.
  const Topology flat = build_topology("switch:n=4096,bw=100Gbps,lat=5us");
  CHECK(channel_rings(flat, 4096, 4, Bytes{100'000'000}, identity(4096), true).symmetry_classes <= 4);
}

TEST_CASE("symmetry: a degraded link or a shuffled ring order splits the classes and changes no result", "[symmetry]") {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 12; ++trial) {
    const int nodes = 2 + static_cast<int>(rng() % 15);
    const Topology intact = build_topology(fmt::format("dgx:nodes={},gpus=8", nodes));
    // One NIC uplink at a random fraction of its bandwidth, in both directions.
    const std::string nic = fmt::format("nic{}", rng() % intact.gpu_count());
    const std::optional<NodeId> nic_node = find_node(intact, nic);
    REQUIRE(nic_node);
    std::map<LinkId, double> factors;
    for (LinkId link = LinkId{0}; link.value() < intact.link_count(); link = LinkId{link.value() + 1}) {
      if (intact.link(link).src == *nic_node || intact.link(link).dst == *nic_node)
        factors[link] = 0.1 + 0.8 * static_cast<double>(rng() % 100) / 100.0;
    }
    const Topology degraded = with_link_factors(intact, factors);
    const std::size_t ranks = degraded.gpu_count();
    std::vector<std::size_t> order = identity(ranks);
    if (trial % 2) std::shuffle(order.begin(), order.end(), rng);
    const auto channels = static_cast<std::uint32_t>(1 + rng() % 8);
    const Bytes size{static_cast<std::int64_t>(1 + rng() % (std::uint64_t{1} << 30))};
    INFO(nodes << " nodes, " << nic << " degraded, shuffled " << trial % 2 << ", channels " << channels);
    const LockstepTiming on = channel_rings(degraded, ranks, channels, size, order, true);
    const LockstepTiming off = channel_rings(degraded, ranks, channels, size, order, false);
    CHECK((on.symmetry_classes > 0 || on.by_cycles));  // a fast path ran, and it was exact:
    REQUIRE(on.time == off.time);
    REQUIRE(on.links.size() == off.links.size());
    for (std::size_t i = 0; i < on.links.size(); ++i) {
      REQUIRE(on.links[i].bytes_carried == off.links[i].bytes_carried);
      REQUIRE(on.links[i].busy_time == off.links[i].busy_time);
    }
  }
}

TEST_CASE("symmetry: groups sharing a network, oversubscribed trees and tori agree on and off", "[symmetry]") {
  std::mt19937_64 rng(22);
  const std::vector<std::string> topologies{"fattree:n=64,radix=16,bw=100Gbps,lat=1us,oversub=4",
                                            "torus:dims=4x4x2,bw=100Gbps", "dgx:nodes=8,gpus=8,oversub=4",
                                            "switch:n=48,bw=100Gbps,lat=3us"};
  for (const std::string& text : topologies) {
    const Topology topology = build_topology(text);
    const std::size_t n = topology.gpu_count();
    for (int trial = 0; trial < 3; ++trial) {
      CollectiveSpec spec;
      spec.size = Bytes{static_cast<std::int64_t>(1 + rng() % (std::uint64_t{1} << 30))};
      spec.algorithm = Algorithm::ring;
      spec.channels = static_cast<std::uint32_t>(1 + rng() % 4);
      if (trial > 0) {
        // Four groups of GPUs taken in a random order: their rings cross each other's links.
        std::vector<std::size_t> order = identity(n);
        std::shuffle(order.begin(), order.end(), rng);
        const std::size_t size = n / 4;
        for (std::size_t g = 0; g < 4; ++g)
          spec.groups.emplace_back(order.begin() + g * size, order.begin() + (g + 1) * size);
      }
      INFO(text << " trial " << trial);
      same_either_way(topology, spec);
    }
  }
}

TEST_CASE("symmetry: a ring whose ranks do not repeat runs along its cycles, exactly", "[symmetry]") {
  // 40 nodes on leaves of 32: the second leaf group is part-empty, so the fabric has no period. The rails are still
  // alike (a class per GPU, the 8 channels merged), and large rings run along the cycles (cycle_recurrence.hpp).
  for (const int nodes : {40, 45, 97}) {
    const Topology topology = build_topology(fmt::format("dgx:nodes={},gpus=8", nodes));
    const std::size_t ranks = topology.gpu_count();
    for (const std::int64_t size : {std::int64_t{4096}, std::int64_t{100'000'000}}) {
      const LockstepTiming on = channel_rings(topology, ranks, 8, Bytes{size}, identity(ranks), true);
      const LockstepTiming off = channel_rings(topology, ranks, 8, Bytes{size}, identity(ranks), false);
      INFO(nodes << " nodes, " << size << " bytes");
      CHECK((on.symmetry_classes > 0 || on.by_cycles));
      CHECK_FALSE(off.by_cycles);
      REQUIRE(on.time == off.time);
    }
  }
  // GPUs in a random ring order on an oversubscribed fat tree: every rank's weights differ.
  std::mt19937_64 rng(23);
  const Topology tree = build_topology("fattree:n=256,radix=32,bw=100Gbps,lat=1us,oversub=4");
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<std::size_t> order = identity(256);
    std::shuffle(order.begin(), order.end(), rng);
    const Bytes size{static_cast<std::int64_t>(1 + rng() % (std::uint64_t{1} << 30))};
    // One ring: channels sharing one order would be alike, and classes would merge them.
    const LockstepTiming on = channel_rings(tree, 256, 1, size, order, true);
    const LockstepTiming off = channel_rings(tree, 256, 1, size, order, false);
    INFO("trial " << trial);
    CHECK(on.symmetry_classes == 0);  // no two ranks alike
    CHECK(on.by_cycles);
    REQUIRE(on.time == off.time);
  }
}

TEST_CASE("symmetry: tree channels alike on every rail are timed once per class, to the same result", "[symmetry]") {
  // The rails of a DGX cluster are alike: a tree channel pair on rail c runs as the pair on rail 0 with every
  // node's GPUs rotated, so the pipeline times one pair for all (channel_classes.hpp).
  std::mt19937_64 rng(24);
  for (int trial = 0; trial < 10; ++trial) {
    const auto gpus = std::array{4U, 8U}[rng() % 2];
    const auto nodes = static_cast<std::uint32_t>(2 + rng() % 40);
    const Topology topology = build_topology(fmt::format("dgx:nodes={},gpus={}", nodes, gpus));
    // Whole floats: the channels' sizes repeat every 1, 2 or 4 channels (channel_bytes).
    const Bytes size{static_cast<std::int64_t>(1 + rng() % (std::uint64_t{1} << 26)) * 4};
    INFO(nodes << " nodes of " << gpus << ", " << size.value << " bytes");
    const LockstepTiming on = tree_channels(topology, nodes, gpus, gpus, size, true);
    const LockstepTiming off = tree_channels(topology, nodes, gpus, gpus, size, false);
    // One channel pair, or one channel when both trees are alike (2 nodes), or two pairs when the sizes repeat
    // every 4 channels.
    CHECK(on.timed_channels >= 1);
    CHECK(on.timed_channels <= 4);
    CHECK(off.timed_channels == 0);
    require_same(on, off);
  }
}

TEST_CASE("symmetry: a degraded NIC or an uneven split leaves tree channels unclassed, with the same result",
          "[symmetry]") {
  std::mt19937_64 rng(25);
  for (int trial = 0; trial < 6; ++trial) {
    const auto nodes = static_cast<std::uint32_t>(2 + rng() % 20);
    const Topology intact = build_topology(fmt::format("dgx:nodes={},gpus=8", nodes));
    const std::optional<NodeId> nic = find_node(intact, fmt::format("nic{}", rng() % intact.gpu_count()));
    REQUIRE(nic);
    std::map<LinkId, double> factors;
    for (LinkId link = LinkId{0}; link.value() < intact.link_count(); link = LinkId{link.value() + 1}) {
      if (intact.link(link).src == *nic || intact.link(link).dst == *nic) factors[link] = 0.5;
    }
    const Topology degraded = with_link_factors(intact, factors);
    // An even split on the degraded cluster; on the intact one a size one byte short of it, which leaves one
    // channel a byte short of the others (channel_bytes): no two channel pairs alike.
    const bool uneven = trial % 2 == 1;
    const Topology& topology = uneven ? intact : degraded;
    const Bytes size{16 * static_cast<std::int64_t>(1 + rng() % 1'000'000) - (uneven ? 1 : 0)};
    INFO(nodes << " nodes, uneven " << uneven);
    const LockstepTiming on = tree_channels(topology, nodes, 8, 8, size, true);
    const LockstepTiming off = tree_channels(topology, nodes, 8, 8, size, false);
    CHECK(on.timed_channels == 0);  // every channel timed on its own
    require_same(on, off);
  }
}
