// Traces others write, imported as DDP iterations (ddp_workload.hpp): nodes in any order (indexed by id), METADATA
// skipped, CPU ops off the GPU's compute stream, a second iteration split off, integer attributes of any width,
// involved_dim and pg_name read; and two committed traces (tests/chakra/data/README.md): one from Chakra's own text
// converter, one shaped like its PyTorch converter's output, each checked against DDP's closed form.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "execution_node.hpp"
#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/chakra/process_groups.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/ddp_iteration.hpp"

using namespace syncsim;
using syncsim::chakra::CollectiveKind;
using syncsim::chakra::DdpWorkload;
using syncsim::chakra::ExecutionNode;
using syncsim::chakra::ExecutionTrace;
using Kind = syncsim::chakra::NodeKind;
using syncsim::chakra::testing::node;

namespace {

const std::filesystem::path kData = SYNCSIM_CHAKRA_DATA_DIR;

// The DDP iteration of `w` with every AllReduce taking `collective`.
SimTime ddp_iteration(const DdpWorkload& w, SimTime collective) {
  DdpSetup setup;
  setup.layers = w.times;
  setup.buckets = w.buckets;
  setup.collective_time = [&](CollectiveOp, Bytes) { return collective; };
  setup.optimizer_step = w.optimizer;
  return simulate_ddp_iteration(setup).iteration;
}

ExecutionNode kernel(std::uint64_t id, std::uint64_t micros, std::vector<std::uint64_t> deps, bool cpu = false) {
  ExecutionNode n = node(id, cpu ? "aten::op" : "kernel", Kind::compute);
  n.duration_micros = micros;
  n.data_deps = std::move(deps);
  n.is_cpu_op = cpu;
  return n;
}

ExecutionNode foreign_all_reduce(std::uint64_t id, std::vector<std::uint64_t> deps) {
  ExecutionNode n = node(id, "nccl", Kind::collective);
  n.collective = CollectiveKind::all_reduce;
  n.comm_size = 1000;
  n.data_deps = std::move(deps);
  return n;
}

std::string foreign_import_error(const ExecutionTrace& t) {
  try {
    chakra::ddp_workload(t, "f.0.et");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("nodes in any order run as the same iteration: indexed by id, walked dependencies first") {
  // k1 (1 us) -> k2 (2) -> k3 (4) -> AllReduce -> o (8): the same trace in file order and reversed.
  ExecutionTrace t;
  t.ranks = 2;
  t.nodes = {kernel(1, 1, {}), kernel(2, 2, {1}), kernel(3, 4, {2}), foreign_all_reduce(4, {3}), kernel(5, 8, {4})};
  ExecutionTrace reversed = t;
  std::reverse(reversed.nodes.begin(), reversed.nodes.end());
  const DdpWorkload a = chakra::ddp_workload(t, "f.0.et");
  const DdpWorkload b = chakra::ddp_workload(reversed, "f.0.et");
  CHECK(a.times.forward == b.times.forward);
  CHECK(a.times.backward == b.times.backward);
  CHECK(a.optimizer == SimTime::from_us(8));
  CHECK(b.optimizer == SimTime::from_us(8));
  // Closed form, T = 10 us: 1 + 2 + 4, then the AllReduce 10, then the optimizer 8: 25 us.
  CHECK(ddp_iteration(a, SimTime::from_us(10)) == SimTime::from_us(25));
  CHECK(ddp_iteration(b, SimTime::from_us(10)) == SimTime::from_us(25));
}

TEST_CASE("CPU ops stay off the GPU's compute stream, METADATA is skipped, a second iteration is split off") {
  // cpu (30 us, CPU) -> k1 (5) -> k2 (7) -> AllReduce -> o (3) -> ProfilerStep#2 -> k1' (500) -> ...
  ExecutionTrace t;
  t.ranks = 4;
  ExecutionNode step2 = kernel(7, 0, {6}, true);
  step2.name = "ProfilerStep#2";
  t.nodes = {chakra::process_group_node(100, {{"0", "default_pg", {0, 1, 2, 3}}}),
             kernel(1, 30, {}, true),
             kernel(2, 5, {1, 100}),
             kernel(3, 7, {2}),
             foreign_all_reduce(4, {3}),
             kernel(6, 3, {4}),
             step2,
             kernel(8, 500, {7}),
             foreign_all_reduce(9, {8})};
  const DdpWorkload w = chakra::ddp_workload(t, "f.0.et");
  CHECK(w.iterations_in_trace == 2);
  REQUIRE(w.times.forward.size() + w.times.backward.size() >= 2);
  SimTime stream;
  for (std::size_t l = 0; l < w.times.forward.size(); ++l) stream += w.times.forward[l] + w.times.backward[l];
  CHECK(stream == SimTime::from_us(12));  // k1 + k2: the CPU op's 30 us and the second iteration's 500 us left out
  CHECK(w.optimizer == SimTime::from_us(3));
  REQUIRE(w.buckets.buckets.size() == 1);
}

TEST_CASE(
    "a collective's process group: pg_name over every rank imports, a subgroup or a partial involved_dim is named") {
  ExecutionTrace t;
  t.ranks = 4;
  t.nodes = {chakra::process_group_node(0, {{"0", "default_pg", {}}, {"5", "undefined", {0, 1}}}), kernel(1, 5, {}),
             foreign_all_reduce(2, {1})};
  REQUIRE(foreign_import_error(t) == "no error");  // no pg_name: the default group, every rank
  t.nodes[2].pg_name = "5";
  CHECK(foreign_import_error(t) ==
        "f.0.et: node 2 ('nccl', COMM_COLL_NODE): runs on process group '5', 2 of the trace's 4 "
        "ranks: a data-parallel import reduces over every rank, or over HSDP's shard groups with a "
        "reduce-scatter and across their replicas (a layout's subgroups are imported with its parallelism)");
  t.nodes[2].pg_name = "6";
  CHECK_THAT(foreign_import_error(t), Catch::Contains("process group '6' is described by no METADATA node"));
  t.nodes[2].pg_name.reset();
  t.nodes[2].involved_dim = {true, false};
  CHECK_THAT(foreign_import_error(t),
             Catch::Contains("node 2 ('nccl', COMM_COLL_NODE): its involved_dim leaves out network "
                             "dimensions"));
  t.nodes[0].inputs_values = "['[{\"pg_desc\": 1}]']";
  CHECK_THAT(foreign_import_error(t),
             Catch::Contains("node 0 ('## process_group:init ##', METADATA_NODE): a process group "
                             "without pg_name"));
}

TEST_CASE("Chakra's text converter's data-parallel trace imports as DDP's closed form says") {
  // tests/chakra/data/text-converter-dp3.txt through Chakra's TextConverter, 2 passes: forward 10 + 11 + 12 us, then
  // fc's weight gradient 32 -> its AllReduce; fc's input gradient 22, conv2's weight gradient 31 -> AllReduce;
  // conv2's input gradient 21, conv1's weight gradient 30 -> AllReduce. With T = 100 us, one stream: forward ends at
  // 33, the AllReduces run 65-165, 165-265, 265-365 (backward ends at 169): 365 us; no optimizer node.
  const ExecutionTrace t = chakra::read_execution_trace(kData / "text-converter-dp3.0.et");
  const DdpWorkload w = chakra::ddp_workload(t, "text-converter-dp3.0.et");
  CHECK(w.iterations_in_trace == 2);
  CHECK(w.optimizer == SimTime::zero());
  REQUIRE(w.buckets.buckets.size() == 3);
  CHECK(w.buckets.buckets[0].bytes == Bytes{3'000'000});
  CHECK(w.buckets.buckets[2].bytes == Bytes{1'000'000});
  CHECK(ddp_iteration(w, SimTime::from_us(100)) == SimTime::from_us(365));
}

TEST_CASE("a trace shaped like Chakra's PyTorch converter's output imports as DDP's closed form says") {
  // tests/chakra/data/make_pytorch_shaped.py: kernels 100, 200 forward, 400, 300 backward; bucket 0 after the
  // 400 us kernel, bucket 1 after the 300 us one; the optimizer kernel 50 us; CPU ops, the METADATA node and the
  // second iteration left out; int32 comm_type and comm_size; the nodes shuffled. With T = 1 ms: the first
  // AllReduce 700-1700, the second 1700-2700, the optimizer to 2750 us.
  const ExecutionTrace t = chakra::read_execution_trace(kData / "pytorch-shaped.0.et");
  const DdpWorkload w = chakra::ddp_workload(t, "pytorch-shaped.0.et");
  CHECK(w.iterations_in_trace == 2);
  CHECK(w.optimizer == SimTime::from_us(50));
  REQUIRE(w.buckets.buckets.size() == 2);
  CHECK(w.buckets.buckets[0].bytes == Bytes{4'000'000});
  CHECK(w.buckets.buckets[1].bytes == Bytes{2'000'000});
  CHECK(ddp_iteration(w, SimTime::from_ms(1)) == SimTime::from_us(2750));
  const auto groups = chakra::process_groups(t, "pytorch-shaped.0.et");
  CHECK(groups.at("1").ranks == std::vector<std::int64_t>{0, 1});
}
