// One DDP iteration as a Chakra graph and back (ddp_workload.hpp): the graph's nodes and dependencies for a
// hand-written workload, the exact round trip, a foreign trace's mapping checked against DDP's closed form, and
// every node the import cannot map named by id and kind.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>

#include "execution_node.hpp"
#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/training/ddp_iteration.hpp"

using namespace syncsim;
using syncsim::chakra::CollectiveKind;
using syncsim::chakra::DdpWorkload;
using syncsim::chakra::ExecutionNode;
using syncsim::chakra::ExecutionTrace;
using Kind = syncsim::chakra::NodeKind;  // syncsim has a NodeKind of its own (topologies)

using syncsim::chakra::testing::node;

namespace {

SimTime us(double v) {
  return SimTime::from_us(v);
}

// Three layers, two buckets: bucket 0 holds layer 2's gradients (ready first), bucket 1 layers 1 and 0.
DdpWorkload three_layers() {
  DdpWorkload w;
  w.name = "three";
  w.ranks = 4;
  w.layers = {"a", "b", "c"};
  w.times.forward = {us(10), us(20), SimTime::from_ps(30'400'001)};
  w.times.backward = {us(20), us(40), us(60)};
  w.optimizer = us(5);
  w.buckets.buckets = {{.bytes = Bytes{1000}, .layers = {2}, .ready_after_layer = 2},
                       {.bytes = Bytes{3000}, .layers = {1, 0}, .ready_after_layer = 0}};
  return w;
}

std::string import_error(const ExecutionTrace& t) {
  try {
    chakra::ddp_workload(t, "t.0.et");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

ExecutionNode compute(std::uint64_t id, std::string name, std::uint64_t micros, std::vector<std::uint64_t> deps) {
  ExecutionNode n = node(id, std::move(name), Kind::compute);
  n.duration_micros = micros;
  n.data_deps = std::move(deps);
  return n;
}

ExecutionNode all_reduce(std::uint64_t id, std::int64_t bytes, std::vector<std::uint64_t> deps) {
  ExecutionNode n = node(id, "ar", Kind::collective);
  n.collective = CollectiveKind::all_reduce;
  n.comm_size = bytes;
  n.data_deps = std::move(deps);
  return n;
}

}  // namespace

TEST_CASE("export: process groups first, forward chain, backward chain, one AllReduce per bucket, the optimizer") {
  const ExecutionTrace t = chakra::execution_trace(three_layers(), 2);
  CHECK(t.rank == 2);
  CHECK(t.ranks == 4);
  REQUIRE(t.nodes.size() == 1 + 2 * 3 + 2 + 1);
  // ids: process groups 0, forward 1..3, backward c=4 b=5 a=6, AllReduces 7 and 8, optimizer 9.
  CHECK(t.nodes[0].kind == Kind::metadata);
  CHECK(t.nodes[0].inputs_values ==
        R"(['[{"pg_name":"0","pg_desc":"default_pg","backend_config":"cuda:nccl","pg_size":4,"ranks":[0,1,2,3]}]'])");
  CHECK(t.nodes[1].name == "a forward");
  CHECK(t.nodes[3].data_deps == std::vector<std::uint64_t>{2});
  CHECK(t.nodes[4].name == "c backward");
  CHECK(t.nodes[4].data_deps == std::vector<std::uint64_t>{3});
  CHECK(t.nodes[6].name == "a backward");
  CHECK(t.nodes[7].kind == Kind::collective);
  CHECK(t.nodes[7].data_deps == std::vector<std::uint64_t>{4});     // c's backward
  CHECK(t.nodes[8].data_deps == std::vector<std::uint64_t>{6, 7});  // a's backward, and bucket 0 before it
  CHECK(t.nodes[8].comm_size == 3000);
  CHECK(t.nodes[9].name == "optimizer step");
  CHECK(t.nodes[9].data_deps == std::vector<std::uint64_t>{6, 7, 8});
  // duration_micros rounds to the nearest microsecond; the exact time rides along.
  CHECK(t.nodes[3].duration_micros == 30);
  CHECK(t.nodes[3].duration_ps == 30'400'001);
}

TEST_CASE("export: compute nodes carry their work, collectives the default process group") {
  DdpWorkload w = three_layers();
  ExecutionTrace t = chakra::execution_trace(w, 0);
  // Without work (an imported workload) no num_ops or tensor_size is made up; collectives still name their group.
  CHECK_FALSE(t.nodes[1].num_ops);
  CHECK_FALSE(t.nodes[9].tensor_size);
  CHECK(t.nodes[7].pg_name == "0");
  CHECK(t.nodes[8].pg_name == "0");
  w.forward_work = {{100, 10}, {200, 20}, {300, 30}};
  w.backward_work = {{1000, 11}, {2000, 21}, {3000, 31}};
  w.optimizer_work = chakra::NodeWork{7, 70};
  t = chakra::execution_trace(w, 0);
  // ids: forward 1..3 (a, b, c), backward 4..6 (c, b, a), optimizer 9.
  CHECK(t.nodes[2].num_ops == 200);
  CHECK(t.nodes[2].tensor_size == 20u);
  CHECK(t.nodes[4].num_ops == 3000);  // c's backward
  CHECK(t.nodes[6].tensor_size == 11u);
  CHECK(t.nodes[9].num_ops == 7);
  CHECK(t.nodes[9].tensor_size == 70u);
  CHECK_FALSE(t.nodes[7].num_ops);
}

TEST_CASE("import of an exported workload gives it back to the picosecond, through the file's bytes") {
  const DdpWorkload w = three_layers();
  const DdpWorkload back = chakra::ddp_workload(
      chakra::decode_execution_trace(chakra::encode_execution_trace(chakra::execution_trace(w, 0)), "three.0.et"),
      "three.0.et");
  CHECK(back.name == "three");
  CHECK(back.ranks == 4);
  CHECK(back.layers == w.layers);
  CHECK(back.times.forward == w.times.forward);
  CHECK(back.times.backward == w.times.backward);
  CHECK(back.optimizer == w.optimizer);
  REQUIRE(back.buckets.buckets.size() == 2);
  CHECK(back.buckets.buckets[0].bytes == Bytes{1000});
  CHECK(back.buckets.buckets[0].ready_after_layer == 2);
  CHECK(back.buckets.buckets[1].bytes == Bytes{3000});
  CHECK(back.buckets.buckets[1].ready_after_layer == 0);
}

TEST_CASE("a foreign trace (no names, whole microseconds) runs as DDP's closed form says") {
  // c0 -> c1 -> c2 -> c3; the AllReduce of 8 MB after c2; the optimizer o after c3 and the AllReduce.
  // Backward begins at c2 (the first node a collective depends on): F = 1 + 2, B = 4 + 8, the bucket is ready 4 us
  // into backward, and with T = 100 us: iteration = F + max(B, 4 + T) + O = 3 + 104 + 16 = 123 us.
  ExecutionTrace t;
  t.nodes = {compute(10, "c0", 1, {}),   compute(11, "c1", 2, {10}),      compute(12, "c2", 4, {11}),
             compute(13, "c3", 8, {12}), all_reduce(14, 8'000'000, {12}), compute(15, "o", 16, {13, 14})};
  const DdpWorkload w = chakra::ddp_workload(t, "t.0.et");
  CHECK(w.optimizer == us(16));
  REQUIRE(w.buckets.buckets.size() == 1);
  CHECK(w.buckets.buckets[0].bytes == Bytes{8'000'000});
  DdpSetup setup;
  setup.layers = w.times;
  setup.buckets = w.buckets;
  setup.collective_time = [](CollectiveOp, Bytes) { return SimTime::from_us(100); };
  setup.optimizer_step = w.optimizer;
  CHECK(simulate_ddp_iteration(setup).iteration == us(123));
}

TEST_CASE("import refuses what it cannot map, naming the file, the node and its kind") {
  ExecutionTrace t;
  t.nodes = {compute(1, "c", 5, {}), all_reduce(2, 100, {1})};
  REQUIRE(import_error(t) == "no error");

  ExecutionTrace load = t;
  load.nodes.push_back(node(7, "x", Kind::mem_load));
  CHECK(import_error(load) ==
        "t.0.et: node 7 ('x', MEM_LOAD_NODE): syncsim imports COMP_NODE and COMM_COLL_NODE (ALL_REDUCE) only");
  ExecutionTrace send = t;
  send.nodes.push_back(node(8, "p2p", Kind::send));
  CHECK_THAT(import_error(send), Catch::Contains("node 8 ('p2p', COMM_SEND_NODE)"));
  ExecutionTrace gather = t;
  gather.nodes[1].collective = CollectiveKind::broadcast;
  CHECK_THAT(import_error(gather), Catch::Contains("node 2 ('ar', COMM_COLL_NODE): collective BROADCAST is not "
                                                   "supported"));
  ExecutionTrace no_type = t;
  no_type.nodes[1].collective.reset();
  CHECK_THAT(import_error(no_type), Catch::Contains("without a comm_type"));
  ExecutionTrace no_size = t;
  no_size.nodes[1].comm_size = 0;
  CHECK_THAT(import_error(no_size), Catch::Contains("comm_size attribute above zero"));
  ExecutionTrace missing = t;
  missing.nodes[1].data_deps = {1, 9};
  CHECK_THAT(import_error(missing), Catch::Contains("node 2 ('ar', COMM_COLL_NODE): depends on node 9, which no node "
                                                    "has"));
  ExecutionTrace cycle = t;
  cycle.nodes[0].data_deps = {2};
  CHECK(import_error(cycle) ==
        "t.0.et: node 1 ('c', COMP_NODE): is on a dependency cycle (or depends on one): it "
        "can never start");
  ExecutionTrace twice = t;
  twice.nodes[1].id = 1;
  CHECK_THAT(import_error(twice), Catch::Contains("its id is used by another node too"));
  ExecutionTrace negative = t;
  negative.nodes[0].duration_ps = -1;
  CHECK_THAT(import_error(negative), Catch::Contains("syncsim_duration_ps is negative"));
  ExecutionTrace too_long = t;
  too_long.nodes[0].duration_micros = 10'000'000'000'000;
  CHECK_THAT(import_error(too_long), Catch::Contains("past the simulator's clock"));
  ExecutionTrace no_compute;
  no_compute.nodes = {all_reduce(1, 100, {})};
  CHECK_THAT(import_error(no_compute), Catch::Contains("no COMP_NODE runs before the collectives"));
}

TEST_CASE("export under ZeRO: reduce-scatters, the rank's step shard, gathers, and the same workload read back") {
  for (const ShardingLevel level : {ShardingLevel::optimizer, ShardingLevel::full}) {
    INFO("full " << (level == ShardingLevel::full));
    DdpWorkload w = three_layers();
    w.sharding = level;
    const ExecutionTrace t = chakra::execution_trace(w, 0);
    std::size_t scatters = 0;
    std::size_t gathers = 0;
    for (const ExecutionNode& n : t.nodes) {
      if (n.kind != Kind::collective) continue;
      scatters += n.collective == CollectiveKind::reduce_scatter ? 1 : 0;
      gathers += n.collective == CollectiveKind::all_gather ? 1 : 0;
      CHECK(n.collective != CollectiveKind::all_reduce);
    }
    CHECK(scatters == 2);
    // ZeRO-1/2: one gather per bucket after the step; full: one before forward and one again for backward.
    CHECK(gathers == (level == ShardingLevel::full ? 4u : 2u));
    const ExecutionNode& step = level == ShardingLevel::full ? t.nodes.back() : t.nodes[t.nodes.size() - 3];
    CHECK(step.name == "optimizer step");
    CHECK(step.duration_ps == SimTime::from_us(5).ps() / 4);  // 5 us over 4 ranks
    if (level == ShardingLevel::full) {
      // Layer a's forward (bucket 1) waits for bucket 1's gather, issued first (node 1, after the process groups).
      const ExecutionNode& a = t.nodes[3];
      REQUIRE(a.name == "a forward");
      CHECK(a.bucket == 1);
      CHECK(std::find(a.data_deps.begin(), a.data_deps.end(), 1u) != a.data_deps.end());
      CHECK(t.nodes[1].name == "bucket 1 ALL_GATHER");
    }
    const DdpWorkload back = chakra::ddp_workload(t, "z.0.et");
    CHECK(back.sharding == level);
    CHECK(back.optimizer == SimTime::from_us(5));
    CHECK(back.times.forward == w.times.forward);
    CHECK(back.times.backward == w.times.backward);
    REQUIRE(back.buckets.buckets.size() == 2);
    CHECK(back.buckets.buckets[0].layers == std::vector<std::size_t>{2});
    CHECK(back.buckets.buckets[1].layers == std::vector<std::size_t>{1, 0});
    CHECK(back.buckets.buckets[1].ready_after_layer == 0);
  }
}

TEST_CASE("export under HSDP: shard-group reduce-scatters, each followed by its shard's AllReduce across replicas") {
  // 4 ranks in shard groups of 2 ({0, 1}, {2, 3}), replicas {0, 2} and {1, 3}: PyTorch's DeviceMesh (2, 2) names the
  // replicate groups "1" and "2", the shard groups "3" and "4". Rank 3 is in replica group "2" and shard group "4".
  DdpWorkload w = three_layers();
  w.sharding = ShardingLevel::full;
  w.shard_group = 2;
  const ExecutionTrace t = chakra::execution_trace(w, 3);
  CHECK(t.nodes[0].inputs_values ==
        R"(['[{"pg_name":"0","pg_desc":"default_pg","backend_config":"cuda:nccl","pg_size":4,"ranks":[0,1,2,3]},)"
        R"({"pg_name":"2","pg_desc":"mesh_dp_replicate","backend_config":"cuda:nccl","pg_size":2,"ranks":[1,3]},)"
        R"({"pg_name":"4","pg_desc":"mesh_dp_shard","backend_config":"cuda:nccl","pg_size":2,"ranks":[2,3]}]'])");
  std::vector<const ExecutionNode*> across;
  std::optional<std::uint64_t> previous_across;
  for (const ExecutionNode& n : t.nodes) {
    if (n.kind != Kind::collective) continue;
    if (n.collective != CollectiveKind::all_reduce) {
      CHECK(n.pg_name == "4");
      continue;
    }
    // Right after its reduce-scatter, on the replica group, the shard's bytes, after the previous one (its stream).
    CHECK(n.pg_name == "2");
    const ExecutionNode& scatter = t.nodes[n.id - 1];
    CHECK(scatter.collective == CollectiveKind::reduce_scatter);
    CHECK(n.comm_size == (*scatter.comm_size + 1) / 2);
    CHECK(n.data_deps.front() == scatter.id);
    if (previous_across) CHECK(n.data_deps.back() == *previous_across);
    previous_across = n.id;
    across.push_back(&n);
  }
  REQUIRE(across.size() == 2);
  const ExecutionNode& step = t.nodes.back();
  CHECK(step.name == "optimizer step");
  CHECK(step.duration_ps == SimTime::from_us(5).ps() / 2);  // the shard group's share, not the 4 ranks'
  for (const ExecutionNode* n : across) {
    CHECK(std::find(step.data_deps.begin(), step.data_deps.end(), n->id) != step.data_deps.end());
  }
  const DdpWorkload back = chakra::ddp_workload(t, "h.3.et");
  CHECK(back.sharding == ShardingLevel::full);
  CHECK(back.shard_group == 2);
  CHECK(back.optimizer == SimTime::from_us(5));
  REQUIRE(back.buckets.buckets.size() == 2);
  CHECK(back.buckets.buckets[0].bytes == Bytes{1000});
  CHECK(back.buckets.buckets[1].layers == std::vector<std::size_t>{1, 0});
  // Without HSDP there is one group and no replica AllReduce.
  w.shard_group = 0;
  CHECK(chakra::ddp_workload(chakra::execution_trace(w, 3), "z.3.et").shard_group == 0);
}
