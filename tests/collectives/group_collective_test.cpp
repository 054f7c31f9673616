// Several groups running one collective at once (CollectiveSpec::groups): a parallel layout's data-parallel or
// tensor groups, sharing the network.
#include <catch2/catch.hpp>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {
// Local GPU k of every node: the data-parallel group of tensor rank k when tensor groups fill the nodes.
std::vector<std::vector<std::size_t>> rail_groups(std::size_t nodes, std::size_t gpus) {
  std::vector<std::vector<std::size_t>> groups(gpus);
  for (std::size_t k = 0; k < gpus; ++k) {
    for (std::size_t n = 0; n < nodes; ++n) groups[k].push_back(n * gpus + k);
  }
  return groups;
}

CollectiveOutcome run(const Topology& topology, CollectiveOp op, Bytes size,
                      std::vector<std::vector<std::size_t>> groups, bool bulk = true) {
  Router router(topology);
  CollectiveSpec spec;
  spec.op = op;
  spec.size = size;
  spec.algorithm = Algorithm::ring;
  spec.groups = std::move(groups);
  spec.bulk = bulk;
  return simulate_collective(router, spec);
}

double bytes_on(const CollectiveOutcome& outcome) {
  double total = 0;
  for (const LinkTraffic& link : outcome.links) total += link.bytes_carried;
  return total;
}
}  // namespace

TEST_CASE("eight data-parallel groups on a rail-optimized DGX run on eight rails at one rail's ring time", "[groups]") {
  const Topology dgx = build_topology("dgx:nodes=4,gpus=8,nvlink_bw=450GB/s,nic_bw=400Gbps");
  const Bytes size{256 << 20};
  const auto groups = rail_groups(4, 8);
  const CollectiveOutcome alone = run(dgx, CollectiveOp::allreduce, size, {groups[0]});
  const CollectiveOutcome all = run(dgx, CollectiveOp::allreduce, size, groups);
  // Every group leaves through its own NIC: nothing is shared, so all of them take what one takes alone.
  CHECK(all.time.ps() == Approx(static_cast<double>(alone.time.ps())).epsilon(1e-6));
  CHECK(bytes_on(all) == Approx(8 * bytes_on(alone)).epsilon(1e-9));
  // One rail's ring: 2(n - 1)/n x S over the 400 Gb/s NIC bounds it from below, and it is bandwidth-bound here.
  const double ring_floor = 2.0 * 3 / 4 * static_cast<double>(size.value) / 50e9;
  CHECK(alone.time.seconds() >= ring_floor);
  CHECK(alone.time.seconds() < 1.1 * ring_floor);
}

TEST_CASE("groups that share one NIC per node share its bandwidth", "[groups]") {
  const Topology one_nic = build_topology("dgx:nodes=2,gpus=8,nvlink_bw=450GB/s,nic_bw=100Gbps,rails=1");
  const Bytes size{64 << 20};
  const auto groups = rail_groups(2, 8);
  const CollectiveOutcome alone = run(one_nic, CollectiveOp::allreduce, size, {groups[0]});
  const CollectiveOutcome all = run(one_nic, CollectiveOp::allreduce, size, groups);
  // Eight groups' bytes through one 100 Gb/s NIC: at least eight times one group's network time.
  const double nic_floor = 8 * 2.0 * 1 / 2 * static_cast<double>(size.value) / 12.5e9;
  CHECK(all.time.seconds() >= nic_floor);
  CHECK(all.time.seconds() > 7 * alone.time.seconds());
}

TEST_CASE("groups in lockstep and on the executors agree", "[groups]") {
  const Topology dgx = build_topology("dgx:nodes=2,gpus=8,nvlink_bw=450GB/s,nic_bw=200Gbps,rails=4");
  const auto groups = rail_groups(2, 8);
  Router router(dgx);
  CollectiveSpec spec;
  spec.size = Bytes{32 << 20};
  spec.algorithm = Algorithm::ring;
  spec.groups = groups;
  spec.lockstep_min_transfers = 0;
  const CollectiveOutcome lockstep = simulate_collective(router, spec);
  spec.lockstep_min_transfers = std::size_t{1} << 40;
  const CollectiveOutcome executors = simulate_collective(router, spec);
  CHECK(lockstep.time.ps() == Approx(static_cast<double>(executors.time.ps())).epsilon(0.05));
  CHECK(bytes_on(lockstep) == Approx(bytes_on(executors)).epsilon(1e-9));
}

TEST_CASE("a tensor group inside one node runs on NVLink alone", "[groups]") {
  const Topology dgx = build_topology("dgx:nodes=2,gpus=8,nvlink_bw=450GB/s,nic_bw=400Gbps");
  const CollectiveOutcome tensor =
      run(dgx, CollectiveOp::allreduce, Bytes{16 << 20}, {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}});
  for (const LinkTraffic& link : tensor.links) CHECK(dgx.link(link.link).kind != LinkKind::network);
  // Across the nodes: the same group size, placed one GPU per node pair, goes over the network.
  const CollectiveOutcome across = run(dgx, CollectiveOp::allreduce, Bytes{16 << 20}, {{0, 8}, {1, 9}});
  bool network = false;
  for (const LinkTraffic& link : across.links) network = network || dgx.link(link.link).kind == LinkKind::network;
  CHECK(network);
}

TEST_CASE("groups are checked", "[groups]") {
  const Topology dgx = build_topology("dgx:nodes=2,gpus=4");
  CHECK_THROWS_WITH(run(dgx, CollectiveOp::allreduce, Bytes{1 << 20}, {{0, 1}, {1, 2}}),
                    Catch::Contains("GPU 1 is in two collective groups"));
  CHECK_THROWS_WITH(run(dgx, CollectiveOp::allreduce, Bytes{1 << 20}, {{0, 1}, {2, 3, 4}}),
                    Catch::Contains("different sizes"));
  CHECK_THROWS_WITH(run(dgx, CollectiveOp::allreduce, Bytes{1 << 20}, {{0, 9}}),
                    Catch::Contains("GPU 9 of a group is not among the 8 GPUs"));
}

TEST_CASE("independent groups alike link for link share one simulation and keep their own links", "[groups]") {
  const Topology dgx = build_topology("dgx:nodes=4,gpus=8,nvlink_bw=450GB/s,nic_bw=400Gbps");
  std::vector<std::vector<std::size_t>> nodes;
  for (std::size_t n = 0; n < 4; ++n) {
    nodes.emplace_back();
    for (std::size_t g = 0; g < 8; ++g) nodes.back().push_back(8 * n + g);
  }
  const CollectiveOutcome alone = run(dgx, CollectiveOp::allreduce, Bytes{64 << 20}, {nodes[2]});
  const CollectiveOutcome all = run(dgx, CollectiveOp::allreduce, Bytes{64 << 20}, nodes);
  CHECK(all.time == alone.time);
  REQUIRE(all.links.size() == 4 * alone.links.size());
  CHECK(bytes_on(all) == Approx(4 * bytes_on(alone)).epsilon(1e-12));
  // Every node's own NVLinks, each carrying what node 2's carry alone.
  for (std::size_t i = 1; i < all.links.size(); ++i) CHECK(all.links[i - 1].link < all.links[i].link);
  for (const LinkTraffic& link : all.links) {
    CHECK(link.bytes_carried == Approx(alone.links.front().bytes_carried).epsilon(1e-9));
  }
}

TEST_CASE("groups that share links only rail by rail run as one component per rail, each alike", "[groups]") {
  // Two NICs per node: local GPUs 0-3 share one, 4-7 the other. The eight data-parallel groups form two components
  // of four groups each, contending inside and not across; the second is the first's image link for link.
  const Topology dgx = build_topology("dgx:nodes=4,gpus=8,nvlink_bw=450GB/s,nic_bw=200Gbps,rails=2");
  const Bytes size{64 << 20};
  const auto groups = rail_groups(4, 8);
  const CollectiveOutcome alone = run(dgx, CollectiveOp::allreduce, size, {groups[0]});
  const std::vector<std::vector<std::size_t>> first_nic(groups.begin(), groups.begin() + 4);
  const CollectiveOutcome one_rail = run(dgx, CollectiveOp::allreduce, size, first_nic);
  const CollectiveOutcome all = run(dgx, CollectiveOp::allreduce, size, groups);
  CHECK(one_rail.time.seconds() > 3 * alone.time.seconds());  // four groups through one NIC: they do contend
  CHECK(all.time == one_rail.time);                           // and the other NIC's four do not slow them
  CHECK(bytes_on(all) == Approx(2 * bytes_on(one_rail)).epsilon(1e-12));
  // The traffic is on both NICs' links, each carrying what its counterpart carries.
  std::size_t network_links = 0;
  for (const LinkTraffic& link : all.links) network_links += dgx.link(link.link).kind == LinkKind::network ? 1 : 0;
  std::size_t one_rail_links = 0;
  for (const LinkTraffic& link : one_rail.links) one_rail_links += dgx.link(link.link).kind == LinkKind::network;
  CHECK(network_links == 2 * one_rail_links);
}

TEST_CASE("rail groups under NVLS tree take one group's outcome, its switch traffic carried to each", "[groups]") {
  // NVLSTree sends from each GPU to its NVLink switch and back, on no member-to-member route: the groups' shapes
  // hold each member's own links too, so the eight rails (alike, independent) run one simulation whose traffic lands
  // on every rail's GPU-switch links, each carrying what rail 0's carry alone.
  const Topology dgx = build_topology("dgx:nodes=4,gpus=8,nvlink_bw=450GB/s,nic_bw=400Gbps,nvls=auto");
  const auto groups = rail_groups(4, 8);
  const auto nvls_tree = [&](std::vector<std::vector<std::size_t>> these) {
    Router router(dgx);
    CollectiveSpec spec;
    spec.op = CollectiveOp::allreduce;
    spec.size = Bytes{4 << 20};
    spec.algorithm = Algorithm::nvls_tree;
    spec.latency = LatencySource::nccl;
    spec.compute_capability = 90;
    spec.groups = std::move(these);
    return simulate_collective(router, spec);
  };
  const CollectiveOutcome alone = nvls_tree({groups[0]});
  const CollectiveOutcome all = nvls_tree(groups);
  CHECK(all.time == alone.time);
  REQUIRE(all.links.size() == 8 * alone.links.size());
  CHECK(bytes_on(all) == Approx(8 * bytes_on(alone)).epsilon(1e-12));
  // Rail 0's GPU-to-switch links carry in the whole run what they carry alone; every rail's carry as much.
  std::size_t switch_links = 0;
  double rail0 = 0;
  double every = 0;
  for (const LinkTraffic& link : all.links) {
    const Link& l = dgx.link(link.link);
    if (l.kind != LinkKind::nvlink || dgx.node(l.src).kind != NodeKind::gpu) continue;
    ++switch_links;
    every += link.bytes_carried;
    if (l.src == dgx.gpu(0)) rail0 += link.bytes_carried;
  }
  double alone0 = 0;
  for (const LinkTraffic& link : alone.links) {
    if (dgx.link(link.link).src == dgx.gpu(0) && dgx.link(link.link).kind == LinkKind::nvlink) {
      alone0 += link.bytes_carried;
    }
  }
  CHECK(switch_links == 32);  // every GPU's link to its switch
  CHECK(rail0 > 0);
  CHECK(rail0 == Approx(alone0).epsilon(1e-12));
  CHECK(every == Approx(32 * alone0).epsilon(1e-12));
}
