// A model-parallel layout's iteration as Chakra traces and back (layout_workload.hpp): the graph of a hand-written
// TP 2 x PP 2 x DP 2 workload (passes in 1F1B order, sends paired with receives, buckets after their segments, the
// process groups), the exact round trip for every sharding level and schedule, and what the import refuses.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "syncsim/chakra/layout_groups.hpp"
#include "syncsim/chakra/layout_workload.hpp"
#include "syncsim/chakra/process_groups.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;
using chakra::CollectiveKind;
using chakra::GroupRole;
using chakra::LayoutWorkload;
using Kind = syncsim::chakra::NodeKind;

namespace {

SimTime ps(std::int64_t v) {
  return SimTime::from_ps(v);
}

// p = 2 stages, m = 3 micro-batches, tensor 2, data 2: each chunk one forward with 3 tensor AllReduces of 4096 bytes,
// a backward of two segments (its first bucket complete after the first) with 4 AllReduces; 8 ranks.
LayoutWorkload two_stages(ShardingLevel sharding, PipelineSchedule schedule = PipelineSchedule::one_f_one_b,
                          std::int64_t chunks = 1) {
  LayoutWorkload w;
  w.name = "tp2-pp2-dp2";
  w.sizes = {.tensor = 2, .context = 1, .data = 2, .pipeline = 2};
  w.schedule = schedule;
  w.micro_batches = schedule == PipelineSchedule::interleaved ? 4 : 3;
  w.chunks = chunks;
  w.sharding = sharding;
  w.transfer_bytes = 2048;
  const CollectiveKind reduce =
      sharding == ShardingLevel::none ? CollectiveKind::all_reduce : CollectiveKind::reduce_scatter;
  for (std::int64_t d = 0; d < 2; ++d) {
    chakra::LayoutStage& stage = w.stages.emplace_back();
    for (std::int64_t c = 0; c < chunks; ++c) {
      chakra::LayoutChunk& chunk = stage.chunks.emplace_back();
      chunk.forward.segments = {ps(1'000'001 + d + 10 * c)};
      chunk.forward.work = {100, 200};
      chunk.backward.segments = {ps(700'003), ps(1'300'000 + d)};
      chunk.backward.recompute = ps(5);
      for (int i = 0; i < 3; ++i)
        chunk.forward.collectives.push_back({CollectiveKind::all_reduce, 4096, GroupRole::tensor});
      for (int i = 0; i < 4; ++i)
        chunk.backward.collectives.push_back({CollectiveKind::all_reduce, 4096, GroupRole::tensor});
      chunk.units = {{.collective = {reduce, 1'000'000, GroupRole::data}, .segment = 0},
                     {.collective = {reduce, 300'000 + d, GroupRole::data}, .segment = 1}};
    }
    stage.step = ps(400'000 + d);
    stage.step_work = {50, 60};
  }
  return w;
}

// The workload read back from the traces of ranks 0 and 4 (stage 0 and 1), through their bytes.
LayoutWorkload round_trip(const LayoutWorkload& w) {
  std::vector<chakra::ExecutionTrace> traces;
  std::vector<std::string> sources;
  const std::int64_t per_stage = w.sizes.tensor * w.sizes.context * w.sizes.data;
  for (std::int64_t d = 0; d < w.sizes.pipeline; ++d) {
    sources.push_back(chakra::execution_trace_file_name("t", d * per_stage));
    traces.push_back(chakra::decode_execution_trace(
        chakra::encode_execution_trace(chakra::execution_trace(w, d * per_stage)), sources.back()));
  }
  return chakra::layout_workload(traces, sources, w.sizes, w.expert);
}

void check_same(const LayoutWorkload& a, const LayoutWorkload& b) {
  CHECK(a.name == b.name);
  CHECK(a.schedule == b.schedule);
  CHECK(a.micro_batches == b.micro_batches);
  CHECK(a.chunks == b.chunks);
  CHECK(a.sharding == b.sharding);
  CHECK(a.transfer_bytes == b.transfer_bytes);
  REQUIRE(a.stages.size() == b.stages.size());
  for (std::size_t d = 0; d < a.stages.size(); ++d) {
    CHECK(a.stages[d].step == b.stages[d].step);
    CHECK(a.stages[d].step_work.ops == b.stages[d].step_work.ops);
    REQUIRE(a.stages[d].chunks.size() == b.stages[d].chunks.size());
    for (std::size_t c = 0; c < a.stages[d].chunks.size(); ++c) {
      const chakra::LayoutChunk& x = a.stages[d].chunks[c];
      const chakra::LayoutChunk& y = b.stages[d].chunks[c];
      CHECK(x.forward.segments == y.forward.segments);
      CHECK(x.backward.segments == y.backward.segments);
      CHECK(x.backward.recompute == y.backward.recompute);
      CHECK(x.forward.work.ops == y.forward.work.ops);
      REQUIRE(x.forward.collectives.size() == y.forward.collectives.size());
      REQUIRE(x.backward.collectives.size() == y.backward.collectives.size());
      for (std::size_t k = 0; k < x.backward.collectives.size(); ++k) {
        CHECK(x.backward.collectives[k].op == y.backward.collectives[k].op);
        CHECK(x.backward.collectives[k].bytes == y.backward.collectives[k].bytes);
        CHECK(x.backward.collectives[k].role == y.backward.collectives[k].role);
      }
      REQUIRE(x.units.size() == y.units.size());
      for (std::size_t k = 0; k < x.units.size(); ++k) {
        CHECK(x.units[k].collective.op == y.units[k].collective.op);
        CHECK(x.units[k].collective.bytes == y.units[k].collective.bytes);
        CHECK(x.units[k].segment == y.units[k].segment);
        CHECK(x.units[k].expert == y.units[k].expert);
      }
    }
  }
}

std::string layout_error(const std::vector<chakra::ExecutionTrace>& traces, const LayoutWorkload& w) {
  try {
    chakra::layout_workload(traces, {"t.0.et", "t.4.et"}, w.sizes, w.expert);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("layout export: rank 4 (stage 1) runs 1F1B, receives what stage 0 sends, reduces after its segments") {
  const LayoutWorkload w = two_stages(ShardingLevel::none);
  const chakra::ExecutionTrace first = chakra::execution_trace(w, 0);
  const chakra::ExecutionTrace t = chakra::execution_trace(w, 4);
  CHECK(t.rank == 4);
  CHECK(t.ranks == 8);
  // The process groups: "0" every rank, tensor groups 1-4 ({0,1} {2,3} {4,5} {6,7}), data groups 5-8 ({0,2} {1,3}
  // {4,6} {5,7}); rank 4 is in tensor group 3 and data group 7.
  REQUIRE(t.nodes[0].kind == Kind::metadata);
  const auto groups = chakra::process_groups(t, "t.4.et");
  REQUIRE(groups.size() == 3);
  CHECK(groups.at("3").ranks == std::vector<std::int64_t>{4, 5});
  CHECK(groups.at("3").desc == "TENSOR_MODEL_PARALLEL_GROUP");
  CHECK(groups.at("7").ranks == std::vector<std::int64_t>{4, 6});
  std::vector<std::string> passes;
  std::map<std::int64_t, std::int64_t> sends;  // tag -> peer, on rank 0
  for (const chakra::ExecutionNode& n : first.nodes) {
    if (n.kind == Kind::send) sends[*n.comm_tag] = *n.comm_dst;
  }
  std::size_t receives = 0;
  for (const chakra::ExecutionNode& n : t.nodes) {
    if (n.kind == Kind::compute && n.micro_batch) {
      passes.push_back(fmt::format("{}{}", *n.backward ? "B" : "F", *n.micro_batch));
    }
    if (n.kind == Kind::recv && !*n.backward) {
      ++receives;
      CHECK(sends.at(*n.comm_tag) == 4);  // what rank 0 sent this micro-batch, to rank 4
      CHECK(*n.comm_src == 0);
      CHECK(n.comm_size == 2048);
    }
    if (n.kind == Kind::collective && n.micro_batch) CHECK(n.pg_name == "3");
  }
  CHECK(receives == 3);
  // The last stage: no warm-up, a forward and a backward in turn (each backward two segments).
  CHECK(passes == std::vector<std::string>{"F0", "B0", "B0", "F1", "B1", "B1", "F2", "B2", "B2"});
  // The buckets: the first after the last micro-batch's first segment, on data group 7, one after the other.
  const chakra::ExecutionNode& step = t.nodes.back();
  CHECK(step.name == "optimizer step");
  CHECK(step.duration_ps == 400'001);
  const chakra::ExecutionNode& bucket0 = t.nodes[t.nodes.size() - 3];
  CHECK(bucket0.pg_name == "7");
  CHECK(bucket0.comm_size == 1'000'000);
  const chakra::ExecutionNode& segment = t.nodes[bucket0.data_deps.front()];
  CHECK(segment.name == "backward mb 2 chunk 0 segment 0");
}

TEST_CASE("layout import gives the workload back exactly, for every sharding level and schedule") {
  for (const ShardingLevel sharding :
       {ShardingLevel::none, ShardingLevel::optimizer, ShardingLevel::gradients, ShardingLevel::full}) {
    INFO("sharding " << static_cast<int>(sharding));
    check_same(round_trip(two_stages(sharding)), two_stages(sharding));
  }
  check_same(round_trip(two_stages(ShardingLevel::none, PipelineSchedule::gpipe)),
             two_stages(ShardingLevel::none, PipelineSchedule::gpipe));
  check_same(round_trip(two_stages(ShardingLevel::none, PipelineSchedule::interleaved, 2)),
             two_stages(ShardingLevel::none, PipelineSchedule::interleaved, 2));
  check_same(round_trip(two_stages(ShardingLevel::gradients, PipelineSchedule::interleaved, 2)),
             two_stages(ShardingLevel::gradients, PipelineSchedule::interleaved, 2));
}

TEST_CASE("ZeRO-2's layout export reduce-scatters each chunk's buckets after every backward pass") {
  // Two buckets after each of the 3 micro-batches' backward on each rank, then the step.
  for (const std::int64_t rank : {0, 4}) {
    const chakra::ExecutionTrace t = chakra::execution_trace(two_stages(ShardingLevel::gradients), rank);
    std::vector<std::string> after;  // the pass each reduce-scatter waits on
    std::int64_t scatters = 0;
    for (const chakra::ExecutionNode& n : t.nodes) {
      if (n.kind != chakra::NodeKind::collective || n.collective != CollectiveKind::reduce_scatter) continue;
      ++scatters;
      after.push_back(t.nodes[n.data_deps.front()].name.substr(0, 14));
    }
    CHECK(scatters == 3 * 2);
    CHECK(after == std::vector<std::string>{"backward mb 0 ", "backward mb 0 ", "backward mb 1 ", "backward mb 1 ",
                                            "backward mb 2 ", "backward mb 2 "});
  }
}

TEST_CASE("layout export lists no dependency twice (a feeder counting parents would wait forever)") {
  for (const ShardingLevel sharding :
       {ShardingLevel::none, ShardingLevel::optimizer, ShardingLevel::gradients, ShardingLevel::full}) {
    for (const std::int64_t rank : {0, 4}) {
      for (const chakra::ExecutionNode& n : chakra::execution_trace(two_stages(sharding), rank).nodes) {
        std::vector<std::uint64_t> deps = n.data_deps;
        std::sort(deps.begin(), deps.end());
        INFO("node " << n.id << " " << n.name);
        CHECK(std::adjacent_find(deps.begin(), deps.end()) == deps.end());
      }
    }
  }
}

TEST_CASE("layout export is deterministic: the same workload, the same bytes") {
  const LayoutWorkload w = two_stages(ShardingLevel::full);
  CHECK(chakra::encode_execution_trace(chakra::execution_trace(w, 5)) ==
        chakra::encode_execution_trace(chakra::execution_trace(w, 5)));
}

TEST_CASE("layout import refuses what it cannot map, naming the file and node") {
  const LayoutWorkload w = two_stages(ShardingLevel::none);
  std::vector<chakra::ExecutionTrace> traces = {chakra::execution_trace(w, 0), chakra::execution_trace(w, 4)};
  REQUIRE(layout_error(traces, w) == "no error");
  SECTION("a pass order that is no schedule") {
    // Stage 1's micro-batches 1 and 2 swapped: F0 B0 F2 B2 F1 B1 follows neither 1F1B nor GPipe.
    for (chakra::ExecutionNode& n : traces[1].nodes) {
      if (n.micro_batch && *n.micro_batch > 0) n.micro_batch = 3 - *n.micro_batch;
    }
    CHECK_THAT(layout_error(traces, w), Catch::Contains("follow none of the schedules syncsim runs"));
  }
  SECTION("a micro-batch unlike the first") {
    for (chakra::ExecutionNode& n : traces[1].nodes) {
      if (n.micro_batch == 2 && n.kind == Kind::compute) n.duration_ps = *n.duration_ps + 1;
    }
    CHECK_THAT(layout_error(traces, w), Catch::Contains("t.4.et: micro-batch 2's forward pass through chunk 0 "
                                                        "differs from micro-batch 0's"));
  }
  SECTION("a collective on a group of no kind") {
    // The metadata's tensor group 3 relisted as ranks 4 and 7: no group of the layout.
    chakra::ExecutionNode& meta = traces[1].nodes[0];
    const std::size_t at = meta.inputs_values.find("[4,5]");
    REQUIRE(at != std::string::npos);
    meta.inputs_values.replace(at, 5, "[4,7]");
    CHECK_THAT(layout_error(traces, w), Catch::Contains("t.4.et: node ") &&
                                            Catch::Contains("COMM_COLL_NODE): its process group '3' (2 ranks from 4) "
                                                            "is none of the scenario's layout's"));
  }
  SECTION("a collective inside a pass that is not simulated") {
    for (chakra::ExecutionNode& n : traces[1].nodes) {
      if (n.kind == Kind::collective && n.micro_batch == 1) n.collective = CollectiveKind::barrier;
    }
    CHECK_THAT(layout_error(traces, w), Catch::Contains("COMM_COLL_NODE): a pass's BARRIER is not simulated"));
  }
  SECTION("a process group no METADATA node describes") {
    traces[0].nodes.erase(traces[0].nodes.begin());
    CHECK_THAT(layout_error(traces, w), Catch::Contains("process group '1' is described by no METADATA node"));
  }
}

TEST_CASE("ZeRO-2's layout import refuses buckets reduced otherwise after the other micro-batches") {
  const LayoutWorkload w = two_stages(ShardingLevel::gradients);
  std::vector<chakra::ExecutionTrace> traces = {chakra::execution_trace(w, 0), chakra::execution_trace(w, 4)};
  REQUIRE(layout_error(traces, w) == "no error");
  // The bucket reductions outside the passes, in order: two after each micro-batch's backward.
  std::vector<chakra::ExecutionNode*> buckets;
  for (chakra::ExecutionNode& n : traces[1].nodes) {
    if (n.kind == Kind::collective && !n.micro_batch && n.collective == CollectiveKind::reduce_scatter) {
      buckets.push_back(&n);
    }
  }
  REQUIRE(buckets.size() == 6);
  SECTION("an ALL_REDUCE among them") {
    buckets[0]->collective = CollectiveKind::all_reduce;
    CHECK_THAT(layout_error(traces, w),
               Catch::Contains("t.4.et: chunk 0's buckets after micro-batch 0: reduced after every micro-batch by "
                               "other than ZeRO-2's REDUCE_SCATTERs"));
  }
  SECTION("another size after micro-batch 1") {
    buckets[2]->comm_size = *buckets[2]->comm_size + 1;
    CHECK_THAT(layout_error(traces, w),
               Catch::Contains("chunk 0's buckets after micro-batch 1: not micro-batch 0's buckets"));
  }
}

TEST_CASE("tp_comm_overlap: each chunked tensor collective hangs beside its GEMM segment, and reads back exactly") {
  // Stage 0's forward: the rest of the compute, then a GEMM of 300 ps beside an all-gather of 4097 bytes in 2 chunks;
  // its backward: a GEMM of 600 ps (segment 1, where bucket 0 completes) beside a reduce-scatter in 4 chunks.
  LayoutWorkload w = two_stages(ShardingLevel::none);
  for (chakra::LayoutStage& stage : w.stages) {
    chakra::LayoutChunk& c = stage.chunks[0];
    c.forward.segments = {ps(1'000'000), ps(300)};
    c.forward.overlaps = {
        {.op = CollectiveKind::all_gather, .bytes = 4097, .chunks = 2, .beside = ps(300), .gemm = {1}}};
    c.backward.overlaps = {
        {.op = CollectiveKind::reduce_scatter, .bytes = 4096, .chunks = 4, .beside = ps(600), .gemm = {1}}};
  }
  const chakra::ExecutionTrace t = chakra::execution_trace(w, 0);
  // Micro-batch 0's forward on rank 0: F (compute), chunk 0 (after F), GEMM (after chunk 0 only), chunk 1 (after
  // chunk 0), then the pass's AllReduces after both the GEMM and the last chunk.
  std::vector<const chakra::ExecutionNode*> pass;
  for (const chakra::ExecutionNode& n : t.nodes) {
    if (n.micro_batch == 0 && n.backward == false && n.kind != Kind::send) pass.push_back(&n);
  }
  REQUIRE(pass.size() >= 5);
  CHECK(pass[0]->kind == Kind::compute);
  CHECK(pass[1]->collective == CollectiveKind::all_gather);
  CHECK(pass[1]->overlap_ps == 300);
  CHECK(pass[1]->comm_size == 2049);  // 4097 bytes in two chunks
  CHECK(pass[1]->data_deps == std::vector<std::uint64_t>{pass[0]->id});
  CHECK(pass[2]->comm_size == 2048);
  CHECK(pass[2]->data_deps == std::vector<std::uint64_t>{pass[1]->id});
  CHECK(pass[3]->kind == Kind::compute);
  CHECK(pass[3]->duration_ps == 300);
  CHECK(pass[3]->data_deps == std::vector<std::uint64_t>{pass[1]->id});
  CHECK(pass[4]->collective == CollectiveKind::all_reduce);
  CHECK(pass[4]->data_deps == std::vector<std::uint64_t>({pass[3]->id, pass[2]->id}));
  // A replayer that runs each node when its dependencies end (compute for its time, each chunk for c / k) ends the
  // overlap where syncsim's model does: g + max(c / k, c - g) after the rest of the compute (tensor_overlap.hpp).
  for (const std::int64_t c : {500, 1600}) {
    std::map<std::uint64_t, std::int64_t> end;
    for (const chakra::ExecutionNode* n : pass) {
      std::int64_t start = 0;
      for (const std::uint64_t d : n->data_deps) start = std::max(start, end[d]);
      end[n->id] = start + (n->kind == Kind::compute                      ? *n->duration_ps
                            : n->collective == CollectiveKind::all_gather ? c / 2
                                                                          : 0);
    }
    const std::int64_t g = 300;
    CHECK(end[pass[4]->id] == 1'000'000 + g + std::max(c / 2, c - g));
  }
  const LayoutWorkload back = round_trip(w);
  check_same(back, w);
  for (std::size_t d = 0; d < 2; ++d) {
    for (const bool backward : {false, true}) {
      const chakra::LayoutChunk& c = back.stages[d].chunks[0];
      const chakra::LayoutChunk& o = w.stages[d].chunks[0];
      const auto& read = (backward ? c.backward : c.forward).overlaps;
      const auto& written = (backward ? o.backward : o.forward).overlaps;
      REQUIRE(read.size() == 1);
      CHECK(read[0].op == written[0].op);
      CHECK(read[0].bytes == written[0].bytes);
      CHECK(read[0].chunks == written[0].chunks);
      CHECK(read[0].beside == written[0].beside);
    }
  }
}

TEST_CASE(
    "tp_comm_overlap: a bulk collective runs beside a GEMM that does not wait for it, and methods and SMs read back") {
  // Stage 0's backward: a GEMM of 600 ps beside a bulk all-gather on 4 SMs; its forward a GEMM of 300 ps beside a
  // reduce-scatter in 4 chunks with its GEMM on the SMs it leaves (24).
  LayoutWorkload w = two_stages(ShardingLevel::none);
  for (chakra::LayoutStage& stage : w.stages) {
    chakra::LayoutChunk& c = stage.chunks[0];
    c.forward.segments = {ps(1'000'000), ps(300)};
    c.forward.overlaps = {{.op = CollectiveKind::reduce_scatter,
                           .bytes = 4096,
                           .chunks = 4,
                           .beside = ps(300),
                           .gemm = {1},
                           .method = chakra::OverlapMethod::sm_margin,
                           .sms = 24}};
    c.backward.overlaps = {{.op = CollectiveKind::all_gather,
                            .bytes = 4096,
                            .chunks = 1,
                            .beside = ps(600),
                            .gemm = {1},
                            .method = chakra::OverlapMethod::bulk,
                            .sms = 4}};
  }
  std::vector<chakra::ExecutionTrace> traces = {chakra::execution_trace(w, 0), chakra::execution_trace(w, 4)};
  // Rank 0's first backward: the bulk gather and the GEMM segment it hangs beside depend on the same node.
  const chakra::ExecutionNode* gather = nullptr;
  const chakra::ExecutionNode* gemm = nullptr;
  for (const chakra::ExecutionNode& n : traces[0].nodes) {
    if (n.backward != true || n.micro_batch != 0) continue;
    if (!gather && n.collective == CollectiveKind::all_gather) gather = &n;
    if (gather && !gemm && n.kind == Kind::compute) gemm = &n;
  }
  REQUIRE(gather != nullptr);
  REQUIRE(gemm != nullptr);
  CHECK(gather->overlap_method == 2);
  CHECK(gather->overlap_sms == 4);
  CHECK(gemm->data_deps == gather->data_deps);
  const LayoutWorkload back = round_trip(w);
  check_same(back, w);
  const chakra::LayoutChunk& c = back.stages[0].chunks[0];
  REQUIRE(c.forward.overlaps.size() == 1);
  CHECK(c.forward.overlaps[0].method == chakra::OverlapMethod::sm_margin);
  CHECK(c.forward.overlaps[0].sms == 24);
  REQUIRE(c.backward.overlaps.size() == 1);
  CHECK(c.backward.overlaps[0].method == chakra::OverlapMethod::bulk);
  CHECK(c.backward.overlaps[0].sms == 4);
  // A method the format does not have, or a negative SM count, is refused at the node.
  for (chakra::ExecutionNode& n : traces[1].nodes) {
    if (n.overlap_method) n.overlap_method = 7;
  }
  CHECK_THAT(layout_error(traces, w), Catch::Contains("syncsim_overlap_method 7 is none of"));
  for (chakra::ExecutionNode& n : traces[1].nodes) {
    if (n.overlap_method) {
      n.overlap_method = 1;
      n.overlap_sms = -3;
    }
  }
  CHECK_THAT(layout_error(traces, w), Catch::Contains("syncsim_overlap_sms -3 is negative"));
  // Said of a collective that is no overlap's first chunk, it is refused too.
  for (chakra::ExecutionNode& n : traces[1].nodes) {
    if (n.overlap_method) {
      n.overlap_sms = 4;
      n.overlap_ps.reset();
    }
  }
  CHECK_THAT(layout_error(traces, w), Catch::Contains("without syncsim_overlap_ps"));
}

TEST_CASE("tp_comm_overlap: a ring exchange's GEMM starts on the rank's own shard, in pairs after the first exchange") {
  // Stage 0's forward: a GEMM of 300 ps beside an all-gather of 3 exchanges (a ring of 4) on the copy engines; its
  // backward a GEMM of 600 ps beside one in pairs (TE's aggregate).
  LayoutWorkload w = two_stages(ShardingLevel::none);
  for (chakra::LayoutStage& stage : w.stages) {
    chakra::LayoutChunk& c = stage.chunks[0];
    c.forward.segments = {ps(1'000'000), ps(300)};
    const chakra::LayoutOverlap ring{.op = CollectiveKind::all_gather,
                                     .bytes = 3000,
                                     .chunks = 3,
                                     .beside = ps(300),
                                     .gemm = {1},
                                     .method = chakra::OverlapMethod::ring_exchange,
                                     .sms = 0};
    c.forward.overlaps = {ring};
    c.backward.overlaps = {ring};
    c.backward.overlaps[0].beside = ps(600);
    c.backward.overlaps[0].method = chakra::OverlapMethod::ring_exchange_pairs;
  }
  const chakra::ExecutionTrace trace = chakra::execution_trace(w, 0);
  // Rank 0's first forward and backward: the GEMM segment after the ring's first exchange.
  for (const bool backward : {false, true}) {
    const chakra::ExecutionNode* first = nullptr;
    const chakra::ExecutionNode* gemm = nullptr;
    for (const chakra::ExecutionNode& n : trace.nodes) {
      if (n.backward != backward || n.micro_batch != 0) continue;
      if (!first && n.collective == CollectiveKind::all_gather) first = &n;
      if (first && !gemm && n.kind == Kind::compute) gemm = &n;
    }
    REQUIRE(first != nullptr);
    REQUIRE(gemm != nullptr);
    CHECK(first->overlap_method == (backward ? 4 : 3));
    CHECK(first->comm_size == 1000);
    // A ring's GEMM waits for nothing the collective waits not for; in pairs it waits for the first exchange.
    if (backward) {
      CHECK(gemm->data_deps == std::vector<std::uint64_t>{first->id});
    } else {
      CHECK(gemm->data_deps == first->data_deps);
    }
  }
  const LayoutWorkload back = round_trip(w);
  check_same(back, w);
  const chakra::LayoutChunk& c = back.stages[0].chunks[0];
  REQUIRE(c.forward.overlaps.size() == 1);
  CHECK(c.forward.overlaps[0].method == chakra::OverlapMethod::ring_exchange);
  CHECK(c.forward.overlaps[0].chunks == 3);
  REQUIRE(c.backward.overlaps.size() == 1);
  CHECK(c.backward.overlaps[0].method == chakra::OverlapMethod::ring_exchange_pairs);
}

TEST_CASE("under context parallelism the gradients' group is Megatron's DATA_PARALLEL_GROUP_WITH_CP, data x context") {
  // TP 2 x CP 2 x DP 2: rank 1's gradients are reduced with the other tensor-index-1 ranks of both context and both
  // data coordinates.
  const RankLayout layout({.tensor = 2, .context = 2, .data = 2, .pipeline = 1});
  std::map<chakra::GroupRole, std::string> names;
  const std::vector<chakra::ProcessGroup> groups = chakra::layout_process_groups(layout, 1, 1, &names);
  const auto named = [&](chakra::GroupRole role) -> const chakra::ProcessGroup& {
    const std::string& name = names.at(role);
    for (const chakra::ProcessGroup& g : groups) {
      if (g.name == name) return g;
    }
    FAIL("no group " << name);
    return groups.front();
  };
  CHECK(named(chakra::GroupRole::data).desc == "DATA_PARALLEL_GROUP_WITH_CP");
  CHECK(named(chakra::GroupRole::data).ranks == std::vector<std::int64_t>{1, 3, 5, 7});
  CHECK(named(chakra::GroupRole::context).ranks == std::vector<std::int64_t>{1, 3});
}
