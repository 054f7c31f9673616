// The one costing of a transfer (transfer_cost.hpp): a route's class, its wire bytes, step latency and reduction,
// worked by hand on a three-GPU chain whose links are one of each kind.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "syncsim/collectives/transfer_cost.hpp"

using namespace syncsim;

namespace {
// gpu0 -nvlink- gpu1 -pcie- gpu2 -network- gpu3, each link 1 us; no switch latency (GPUs pass nothing on).
struct Chain {
  Topology topology;
  std::vector<NodeId> gpus;
  Chain() {
    for (int g = 0; g < 4; ++g) {
      gpus.push_back(topology.add_node(Node{fmt::format("gpu{}", g), NodeKind::gpu, SimTime::zero(), std::nullopt}));
    }
    for (int l = 0; l < 3; ++l) {
      topology.add_duplex_link(gpus[l], gpus[l + 1], Bandwidth::from_gb_per_s(100), SimTime::from_us(1),
                               kLinkKinds[static_cast<std::size_t>(l)]);
    }
  }
};
}  // namespace

TEST_CASE("a route's class is the slowest kind of link it crosses", "[transfer_cost]") {
  Chain chain;
  Router router(chain.topology);
  CHECK(classify(chain.topology, router.gpu_route(0, 1)) == LinkKind::nvlink);
  CHECK(classify(chain.topology, router.gpu_route(1, 2)) == LinkKind::pcie);
  CHECK(classify(chain.topology, router.gpu_route(0, 2)) == LinkKind::pcie);
  CHECK(classify(chain.topology, router.gpu_route(0, 3)) == LinkKind::network);
  CHECK(classify(chain.topology, router.gpu_route(3, 2)) == LinkKind::network);
}

TEST_CASE("wire bytes, step latency and reduction are read from the route's class", "[transfer_cost]") {
  Chain chain;
  Router router(chain.topology);
  const Route& nvlink = router.gpu_route(0, 1);
  const Route& pcie = router.gpu_route(0, 2);     // two links: 2 us of route latency
  const Route& network = router.gpu_route(0, 3);  // three: 3 us

  const TransferCost physical = physical_cost();
  CHECK(wire_bytes(physical, chain.topology, network, 1000) == 1000);
  CHECK(step_latency(physical, chain.topology, pcie) == SimTime::from_us(2));
  CHECK(step_latency(physical, chain.topology, network) == SimTime::from_us(3));

  TransferCost cost;
  cost.efficiency = {1.0, 0.5, 0.25};
  cost.step_latency = std::array<SimTime, 3>{SimTime::from_ns(10), SimTime::from_ns(20), SimTime::from_ns(40)};
  CHECK(wire_bytes(cost, chain.topology, nvlink, 1000) == 1000);
  CHECK(wire_bytes(cost, chain.topology, pcie, 1000) == 2000);
  CHECK(wire_bytes(cost, chain.topology, network, 1000) == 4000);
  CHECK(step_latency(cost, chain.topology, nvlink) == SimTime::from_ns(10));
  CHECK(step_latency(cost, chain.topology, pcie) == SimTime::from_ns(20));
  CHECK(step_latency(cost, chain.topology, network) == SimTime::from_ns(40));

  CHECK(reduction_time(std::nullopt, 1e9) == SimTime::zero());
  CHECK(reduction_time(Bandwidth::from_gb_per_s(1), 0) == SimTime::zero());
  CHECK(reduction_time(Bandwidth::from_gb_per_s(1), 1e6) == SimTime::from_ms(1));  // 1 MB at 1 GB/s
}

TEST_CASE("one link kind, two spellings: the topology's and NCCL's (calibration files)", "[transfer_cost]") {
  CHECK(to_string(LinkKind::nvlink) == "nvlink");
  CHECK(to_string(LinkKind::pcie) == "pcie");
  CHECK(to_string(LinkKind::network) == "network");
  CHECK(nccl_class_name(LinkKind::nvlink) == "nvlink");
  CHECK(nccl_class_name(LinkKind::pcie) == "pci");
  CHECK(nccl_class_name(LinkKind::network) == "net");
}
