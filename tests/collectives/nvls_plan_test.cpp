// NVLS and NVLSTree (nvls_plan.hpp): the switch reduces, each GPU's NVLink carries S (1 + 1/m) each way.
#include <catch2/catch.hpp>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/nvls_plan.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

// dgx:nodes=1,gpus=4 with round numbers: 100 GB/s NVLink of 1 us, nvls=on (no GPU needed).
constexpr const char* kNode = "dgx:nodes=1,gpus=4,nvlink_bw=100GB/s,nvlink_lat=1us,nvls=on";

CollectiveSpec nvls_spec(Bytes size) {
  CollectiveSpec spec;
  spec.op = CollectiveOp::allreduce;
  spec.size = size;
  spec.algorithm = Algorithm::nvls;
  spec.channels = 1;
  return spec;
}

double link_bytes(const CollectiveOutcome& outcome, const Topology& topology, NodeId src, NodeId dst) {
  for (const LinkTraffic& t : outcome.links) {
    const Link& link = topology.link(t.link);
    if (link.src == src && link.dst == dst) return t.bytes_carried;
  }
  return 0;
}

}  // namespace

TEST_CASE("NVLS in one slice: slice up, shard down, shard up, slice down: 4 L + 2 S/B + 2 S/(m B)", "[nvls]") {
  const Topology topology = build_topology(kNode);
  Router router(topology);
  CollectiveSpec spec = nvls_spec(Bytes{4'000'000});
  spec.pipeline_slices = 1;
  const CollectiveOutcome out = simulate_collective(router, spec);
  // S/B = 40 us, S/(m B) = 10 us, L = 1 us on each GPU-NVSwitch link.
  CHECK(out.time == SimTime::from_us(4 * 1 + 2 * 40 + 2 * 10));
  CHECK(out.algorithm == Algorithm::nvls);
  // Per slice: m slices and m shards up, m shards and m slices down.
  CHECK(out.stats.transfers == 16);
}

TEST_CASE("NVLS moves S (1 + 1/m) on every GPU's NVLink each way, whatever the slices and channels", "[nvls]") {
  const Topology topology = build_topology(kNode);
  Router router(topology);
  const double size = 64.0 * 1024 * 1024;
  for (const std::uint32_t channels : {1U, 4U}) {
    CollectiveSpec spec = nvls_spec(Bytes{static_cast<std::int64_t>(size)});
    spec.channels = channels;
    const CollectiveOutcome out = simulate_collective(router, spec);
    CHECK(out.stats.bytes_sent == Approx(4 * 2 * size * 1.25));
    const NodeId nvswitch = reducing_nvlink_domains(topology, 4, std::nullopt).front().nvswitch;
    for (std::size_t g = 0; g < 4; ++g) {
      CHECK(link_bytes(out, topology, topology.gpu(g), nvswitch) == Approx(size * 1.25));
      CHECK(link_bytes(out, topology, nvswitch, topology.gpu(g)) == Approx(size * 1.25));
    }
  }
}

TEST_CASE("pipelined NVLS tends to (1 + 1/m) S / B, so its busbw passes the link rate", "[nvls]") {
  const Topology topology = build_topology("dgx:nodes=1,gpus=8,nvlink_bw=100GB/s,nvlink_lat=0us,nvls=on");
  Router router(topology);
  CollectiveSpec spec = nvls_spec(Bytes{1 << 30});
  spec.pipeline_slices = 16;
  const CollectiveOutcome out = simulate_collective(router, spec);
  const double bound = 1.125 * (1 << 30) / 100e9;  // (1 + 1/8) S / B
  // k + 3 steps of (1 + 1/m) S/(k B) each: the pipeline fills in 3 of 19.
  CHECK(out.time.seconds() >= bound);
  CHECK(out.time.seconds() <= bound * 19.0 / 16.0 * 1.0001);
  // nccl-tests' busbw counts a ring's 2 (n-1)/n S: 1.75 / 1.125 of the link rate at the limit.
  const double busbw = bus_factor(CollectiveOp::allreduce, 8) * (1 << 30) / out.time.seconds();
  CHECK(busbw > 100e9);
}

TEST_CASE("NVLS is the same with bulk steps on and off", "[nvls]") {
  const Topology topology = build_topology(kNode);
  Router router(topology);
  CollectiveSpec spec = nvls_spec(Bytes{3'000'000});
  spec.channels = 2;
  const CollectiveOutcome bulk = simulate_collective(router, spec);
  spec.bulk = false;
  CHECK(simulate_collective(router, spec).time == bulk.time);
}

TEST_CASE("an NVLS plan's ranks send S (1 + 1/m) up and its switch as much down", "[nvls]") {
  const Topology topology = build_topology(kNode);
  const auto domains = reducing_nvlink_domains(topology, 4, std::nullopt);
  REQUIRE(domains.size() == 1);
  const NvlsPlan plan(CollectiveOp::allreduce, 4, Bytes{4096}, domains, 3);
  CHECK(plan.participant_count() == 5);
  CHECK(plan.participant(4).node == domains.front().nvswitch);
  PlanStep step;
  double up = 0;
  double down = 0;
  for (std::uint32_t p = 0; p < plan.participant_count(); ++p) {
    for (std::uint32_t s = 0; s < plan.step_count(Rank{p}); ++s) {
      plan.step(Rank{p}, s, step);
      for (const PlanSend& send : step.sends) (p < 4 ? up : down) += send.bytes;
    }
  }
  CHECK(up == Approx(4 * 4096 * 1.25));
  CHECK(down == Approx(4 * 4096 * 1.25));
}

TEST_CASE("NVLSTree exchanges each shard between domains over the network", "[nvls]") {
  // Two trays of 4 GPUs, each its own NVLink domain, one 100 Gbps NIC per GPU.
  const Topology topology = build_topology("dgx:nodes=2,gpus=4,nvlink_bw=100GB/s,nic_bw=100Gbps,nvls=on");
  Router router(topology);
  const auto domains = reducing_nvlink_domains(topology, 8, std::nullopt);
  REQUIRE(domains.size() == 2);
  CollectiveSpec spec = nvls_spec(Bytes{64 << 20});
  spec.algorithm = Algorithm::nvls_tree;
  spec.channels = 1;
  const CollectiveOutcome out = simulate_collective(router, spec);
  CHECK(out.algorithm == Algorithm::nvls_tree);
  // NVLink S (1 + 1/4) each way per GPU, and each GPU's shard S/4 across once each way.
  const double size = 64 << 20;
  CHECK(out.stats.bytes_sent == Approx(8 * 2 * size * 1.25 + 8 * size / 4));
  spec.algorithm = Algorithm::nvls;
  CHECK_THROWS_WITH(simulate_collective(router, spec), Catch::Contains("use nvls_tree"));
}

TEST_CASE("NVLS needs reducing NVSwitches: nvls=on, or auto with a Hopper or newer GPU", "[nvls]") {
  const auto domains = [](const char* text, std::optional<int> cc) {
    return reducing_nvlink_domains(build_topology(text), 8, cc).size();
  };
  CHECK(domains("dgx:nodes=1,gpus=8", 90) == 1);
  CHECK(domains("dgx:nodes=1,gpus=8", 100) == 1);
  CHECK(domains("dgx:nodes=1,gpus=8", 80) == 0);
  CHECK(domains("dgx:nodes=1,gpus=8", std::nullopt) == 0);
  CHECK(domains("dgx:nodes=1,gpus=8,nvls=on", std::nullopt) == 1);
  CHECK(domains("dgx:nodes=1,gpus=8,nvls=off", 90) == 0);
  CHECK(domains("dgx:nodes=2,gpus=4", 90) == 2);
  // One NVLink domain over two hosts (the trays of an NVL72 rack): NVLS only when asked for.
  CHECK(domains("dgx:nodes=2,gpus=4,nvlink_domain=2", 90) == 0);
  CHECK(domains("dgx:nodes=2,gpus=4,nvlink_domain=2,nvls=on", 90) == 1);
  CHECK(domains("switch:n=8,bw=100GB/s", 90) == 0);  // a network switch is no NVSwitch
  CHECK_THROWS_WITH(build_topology("dgx:nodes=1,gpus=8,nvls=maybe"),
                    Catch::Contains("nvls") && Catch::Contains("unknown switch reduction 'maybe'") &&
                        Catch::Contains("off, on, auto"));

  const Topology topology = build_topology("dgx:nodes=1,gpus=8,nvls=off");
  Router router(topology);
  CHECK_THROWS_WITH(simulate_collective(router, nvls_spec(Bytes{1 << 20})), Catch::Contains("nvls=on"));
  CollectiveSpec broadcast = nvls_spec(Bytes{1 << 20});
  broadcast.op = CollectiveOp::broadcast;
  const Topology on = build_topology("dgx:nodes=1,gpus=8,nvls=on");
  Router on_router(on);
  CHECK_THROWS_WITH(simulate_collective(on_router, broadcast), Catch::Contains("AllReduce only"));
}

TEST_CASE("auto picks NVLS for large AllReduces on an H100 node, never on an A100 node", "[nvls]") {
  const Topology topology = build_topology("dgx:nodes=1,gpus=8,nvlink_bw=450GB/s");
  Router router(topology);
  CollectiveSpec spec;
  spec.size = Bytes{1 << 30};
  spec.latency = LatencySource::nccl;
  spec.compute_capability = 90;
  spec.busbw_cap = nccl_busbw_cap(90);
  const CollectiveOutcome h100 = simulate_collective(router, spec);
  CHECK(h100.algorithm == Algorithm::nvls);
  CHECK(h100.protocol == Protocol::simple);
  CHECK(h100.channels == 16);
  // Small sizes pay NVLS's 25 us latency: a ring or tree wins.
  spec.size = Bytes{4096};
  CHECK(simulate_collective(router, spec).algorithm != Algorithm::nvls);

  spec.size = Bytes{1 << 30};
  spec.compute_capability = 80;
  spec.busbw_cap = nccl_busbw_cap(80);
  CHECK(simulate_collective(router, spec).algorithm != Algorithm::nvls);
  CHECK(candidate_algorithms(CollectiveOp::allreduce, 8, false, false, 1) ==
        std::vector<Algorithm>{Algorithm::ring, Algorithm::tree, Algorithm::nvls});
  CHECK(candidate_algorithms(CollectiveOp::all_gather, 8, false, false, 1) == std::vector<Algorithm>{Algorithm::ring});
}

TEST_CASE("NVLS runs the Simple protocol only, at NCCL 2.30's constants", "[nvls]") {
  CHECK_THROWS_WITH(nccl_cost(Algorithm::nvls, Protocol::ll), Catch::Contains("Simple protocol only"));
  const TransferCost hopper = nccl_cost(Algorithm::nvls, Protocol::simple, 90);
  CHECK(hopper.launch == SimTime::from_us(25));
  CHECK(hopper.efficiency[0] == Approx(0.85));
  CHECK((*hopper.step_latency)[2] == SimTime::from_us(18));
  const TransferCost blackwell = nccl_cost(Algorithm::nvls_tree, Protocol::simple, 100);
  CHECK(blackwell.efficiency[0] == Approx(0.74));
  CHECK((*blackwell.step_latency)[2] == SimTime::from_us(20.9));
  CHECK(nvls_channels(90, 1) == 16);
  CHECK(nvls_channels(100, 1) == 24);
  CHECK(nvls_channels(100, 2) == 32);
  CHECK(nvls_slices(Bytes{64 << 10}) == 1);
  CHECK(nvls_slices(Bytes{1 << 20}) == 8);
  CHECK(nvls_slices(Bytes{1 << 30}) == 16);
}
