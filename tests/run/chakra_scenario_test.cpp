// Chakra execution traces end to end (run/chakra_workload.hpp, model.chakra): the example's iteration exported and
// read back runs the same iteration to the picosecond on the same cluster, with overlap and without, with gradient
// accumulation; a TP 2 x PP 2 x DP 2 layout likewise (below); what no trace holds is refused at its key on the way
// out and on the way in; a trace the import cannot map is named.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "resolved_scenario.hpp"
#include "syncsim/chakra/ddp_workload.hpp"
#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/chakra/process_groups.hpp"
#include "syncsim/run/chakra_workload.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::filesystem::path kExample = std::filesystem::path(SYNCSIM_EXAMPLES_DIR) / "resnet50-dgx-8gpu.yaml";

// Rank 0's trace of the example (with `overrides`), written where a scenario can name it.
std::filesystem::path exported(const std::string& file, const std::vector<std::string>& overrides = {}) {
  const chakra::DdpWorkload w = run::scenario_chakra_workload(load_scenario(kExample, overrides));
  const std::filesystem::path path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path, std::ios::binary) << chakra::encode_execution_trace(chakra::execution_trace(w, 0));
  return path;
}

TrainingReport run_chakra_example(std::vector<std::string> overrides) {
  return run::run_scenario(load_scenario(kExample, overrides)).report;
}

std::string chakra_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the example exported to Chakra and read back gives the same iteration time, to the picosecond") {
  for (const std::string overlap : {"true", "false"}) {
    INFO("training.overlap=" << overlap);
    const std::vector<std::string> base = {"training.overlap=" + overlap};
    const std::filesystem::path trace = exported("syncsim-chakra-resnet50-" + overlap + ".0.et", base);
    const TrainingReport original = run_chakra_example(base);
    const TrainingReport imported = run_chakra_example({base[0], "model.chakra=" + trace.string()});
    CHECK(imported.iteration_mean.ps() == original.iteration_mean.ps());
    CHECK(imported.iteration_p99.ps() == original.iteration_p99.ps());
    CHECK(imported.total.ps() == original.total.ps());
    CHECK(imported.buckets.size() == original.buckets.size());
    CHECK(imported.exposed_communication_share == original.exposed_communication_share);
    // The export carries the run's compute at its slowest chip's pace; read back it is taken as recorded.
    CHECK(original.slowest_chip);
    CHECK_FALSE(imported.slowest_chip);
    std::filesystem::remove(trace);
  }
  // The buckets' readiness travels in the trace's dependencies: the trace exported without overlap (every AllReduce
  // after the whole backward) runs, in a scenario with overlap on, as the run without overlap; and the two runs
  // differ (the example's overlap slowdown makes overlap cost more than it hides), so neither check holds by chance.
  const std::filesystem::path serial = exported("syncsim-chakra-resnet50-serial.0.et", {"training.overlap=false"});
  const SimTime without_overlap = run_chakra_example({"training.overlap=false"}).iteration_mean;
  CHECK(run_chakra_example({"model.chakra=" + serial.string()}).iteration_mean == without_overlap);
  CHECK(run_chakra_example({}).iteration_mean != without_overlap);
  std::filesystem::remove(serial);
}
TEST_CASE("gradient accumulation exported to Chakra and read back gives the same iteration time, to the picosecond") {
  // Two micro-batches: every layer's forward and backward twice, the buckets after the second backward only.
  const std::vector<std::string> two = {"model.micro_batches=2"};
  const std::filesystem::path trace = exported("syncsim-chakra-resnet50-accumulation.0.et", two);
  CHECK(chakra::read_execution_trace(trace).nodes.size() == 1 + 2 * 2 * 174 + 3 + 1);
  const TrainingReport original = run_chakra_example(two);
  const TrainingReport imported = run_chakra_example({two[0], "model.chakra=" + trace.string()});
  CHECK(imported.iteration_mean.ps() == original.iteration_mean.ps());
  CHECK(imported.total.ps() == original.total.ps());
  // The micro-batches are the trace's: a scenario that says otherwise is told so.
  CHECK_THAT(chakra_error_of([&] { run_chakra_example({"model.chakra=" + trace.string()}); }),
             Catch::Contains("model.chakra: ") && Catch::Contains("the trace holds 2 micro-batches per iteration, "
                                                                  "model.micro_batches 1"));
  std::filesystem::remove(trace);
}

TEST_CASE("ZeRO exported to Chakra and read back gives the same iteration time, to the picosecond") {
  // The sharded engine's iteration: reduce-scatters for the AllReduces, the rank's shard of the step, the gathers
  // after it (ZeRO-1/2) or before each forward and again in backward (full), with and without accumulation.
  const std::vector<std::vector<std::string>> variants = {
      {"parallelism.sharding=optimizer"},
      {"parallelism.sharding=gradients", "model.micro_batches=2"},
      {"parallelism.sharding=full"},
      {"parallelism.sharding=full", "model.micro_batches=2"},
      {"parallelism.sharding=full", "parallelism.shard_group=4"},
      {"parallelism.sharding=gradients", "parallelism.shard_group=2", "model.micro_batches=2"}};
  for (std::size_t v = 0; v < variants.size(); ++v) {
    INFO("variant " << v);
    const std::filesystem::path trace = exported(fmt::format("syncsim-chakra-zero-{}.0.et", v), variants[v]);
    std::vector<std::string> imported_overrides = variants[v];
    imported_overrides.push_back("model.chakra=" + trace.string());
    const TrainingReport original = run_chakra_example(variants[v]);
    const TrainingReport imported = run_chakra_example(imported_overrides);
    CHECK(imported.iteration_mean.ps() == original.iteration_mean.ps());
    CHECK(imported.total.ps() == original.total.ps());
    if (v == 4) {
      // HSDP's trace in a run that shards over every rank, or over other groups, is told so.
      CHECK_THAT(chakra_error_of([&] {
                   run_chakra_example({"parallelism.sharding=full", "model.chakra=" + trace.string()});
                 }),
                 Catch::Contains("the trace's buckets are sharded over shard groups of 4 ranks (HSDP), "
                                 "parallelism.shard_group is not set"));
      CHECK_THAT(chakra_error_of([&] {
                   run_chakra_example(
                       {"parallelism.sharding=full", "parallelism.shard_group=2", "model.chakra=" + trace.string()});
                 }),
                 Catch::Contains("parallelism.shard_group is 2"));
    }
    if (v == 2) {
      // A fully sharded trace in a run that does not shard is told so.
      CHECK_THAT(chakra_error_of([&] { run_chakra_example({"model.chakra=" + trace.string()}); }),
                 Catch::Contains("the trace's buckets are fully sharded (gathered before each forward), "
                                 "parallelism.sharding is none"));
    }
    std::filesystem::remove(trace);
  }
}

TEST_CASE("the example's exported compute nodes carry the roofline's FLOPs and bytes at the batch") {
  const Scenario scenario = load_scenario(kExample);
  const chakra::DdpWorkload w = run::scenario_chakra_workload(scenario);
  const chakra::ExecutionTrace t = chakra::execution_trace(w, 0);
  for (const chakra::ExecutionNode& n : t.nodes) {
    INFO(n.name);
    if (n.kind == chakra::NodeKind::metadata) continue;
    if (n.kind == chakra::NodeKind::compute) {
      CHECK(n.num_ops);
      CHECK(n.tensor_size);
    } else {
      CHECK(n.pg_name == "0");
    }
  }
  // ResNet-50's first layer at batch 64 in fp16: 64 x its forward FLOPs and 2 bytes x (weights + 64 x activations);
  // its backward (the last backward node, id 2L after the process groups' node 0) twice both (backward_factor 2).
  run::Workspace workspace;
  const run::ResolvedScenario context(scenario, workspace);
  const Layer& first = context.model().layers().front();
  const std::size_t layers = context.model().layers().size();
  const auto bytes =
      static_cast<std::uint64_t>(2 * (first.weight_elements_read + 64 * first.activation_elements_moved));
  CHECK(t.nodes[1].num_ops == 64 * first.forward_flops);
  CHECK(t.nodes[1].tensor_size == bytes);
  CHECK(t.nodes[2 * layers].num_ops == 2 * 64 * first.forward_flops);
  CHECK(t.nodes[2 * layers].tensor_size == 2 * bytes);
}

TEST_CASE("Chakra export refuses what a DDP execution trace does not hold, at the key") {
  CHECK_THAT(chakra_error_of([] {
               run::scenario_chakra_workload(load_scenario(kExample, {"training.gradient_compression=fp16"}));
             }),
             Catch::Contains("training.gradient_compression"));
}

TEST_CASE("model.chakra refuses a trace it cannot map, naming the scenario key, the file, the node and its kind") {
  chakra::ExecutionTrace t;
  t.version = "0.0.4";
  chakra::ExecutionNode load;
  load.id = 5;
  load.name = "weights";
  load.kind = chakra::NodeKind::mem_load;
  t.nodes = {load};
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "syncsim-chakra-mem-load.0.et";
  std::ofstream(path, std::ios::binary) << chakra::encode_execution_trace(t);
  const std::string error = chakra_error_of([&] { run_chakra_example({"model.chakra=" + path.string()}); });
  CHECK_THAT(error, Catch::Contains("model.chakra: ") && Catch::Contains(path.string()) &&
                        Catch::Contains("node 5 ('weights', MEM_LOAD_NODE): syncsim imports COMP_NODE and "
                                        "COMM_COLL_NODE (ALL_REDUCE) only"));
  std::filesystem::remove(path);
  CHECK_THAT(chakra_error_of([] { run_chakra_example({"model.chakra=/dev/zero"}); }),
             Catch::Contains("model.chakra") && Catch::Contains("not a regular file"));
  CHECK_THAT(chakra_error_of([] {
               run_chakra_example(
                   {"model.chakra=x.0.et", "training.strategy=async", "training.communication=parameter_server"});
             }),
             Catch::Contains("model.chakra: an execution trace is imported into the runs a trace holds"));
}

TEST_CASE("a clock overflow from a Chakra trace's node durations is placed at model.chakra, naming the file") {
  // Every compute node 50 days long: each fits the clock (106 days), their sum over the iteration does not.
  const std::filesystem::path path = exported("syncsim-chakra-overflow.0.et");
  chakra::ExecutionTrace trace = chakra::read_execution_trace(path);
  for (chakra::ExecutionNode& node : trace.nodes) {
    if (node.kind != chakra::NodeKind::compute) continue;
    node.duration_ps = std::int64_t{50} * 24 * 3600 * 1'000'000'000'000;
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << chakra::encode_execution_trace(trace);
  const std::string error = chakra_error_of([&] { (void)run_chakra_example({"model.chakra=" + path.string()}); });
  CHECK_THAT(error, Catch::Contains("model.chakra: ") && Catch::Contains(path.string()) &&
                        Catch::Contains("from the execution trace"));
  CHECK_THAT(error, !Catch::Contains("batch_per_gpu"));
  std::filesystem::remove(path);
}

// A model-parallel layout's iteration as Chakra traces, end to end: Llama 3 8B under TP 2 x PP 2 x DP 2 on one 8-GPU
// node, exported (one file per rank, as `run --chakra` writes them) and read back, runs the same iterations to the
// picosecond, under every sharding level, schedule and checkpointing; Mixtral's expert parallelism likewise; a trace
// of another layout, or of other micro-batches, is refused naming the node and its group.
namespace {

const std::filesystem::path kLayoutExamples = SYNCSIM_EXAMPLES_DIR;
const std::vector<std::string> kTp2Pp2Dp2 = {"cluster.topology.nodes=1", "parallelism.tensor=2",
                                             "parallelism.pipeline=2"};

std::vector<std::string> with_overrides(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Every rank's trace of the example under `overrides`, in a fresh folder; returns rank 0's file.
std::filesystem::path export_layout_ranks(const std::string& example, const std::string& folder,
                                          const std::vector<std::string>& overrides) {
  const run::ChakraExport traces = run::scenario_chakra_export(load_scenario(kLayoutExamples / example, overrides));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / folder;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (std::int64_t rank = 0; rank < traces.ranks(); ++rank) {
    std::ofstream(dir / chakra::execution_trace_file_name("chakra", rank), std::ios::binary)
        << chakra::encode_execution_trace(traces.trace(rank));
  }
  return dir / "chakra.0.et";
}

TrainingReport run_layout_example(const std::string& example, const std::vector<std::string>& overrides) {
  return run::run_scenario(load_scenario(kLayoutExamples / example, overrides)).report;
}

void check_layout_round_trip(const std::string& example, const std::vector<std::string>& overrides,
                             const std::string& folder) {
  const std::filesystem::path rank0 = export_layout_ranks(example, folder, overrides);
  const TrainingReport original = run_layout_example(example, overrides);
  const TrainingReport imported =
      run_layout_example(example, with_overrides(overrides, {"model.chakra=" + rank0.string()}));
  CHECK(imported.iteration_mean.ps() == original.iteration_mean.ps());
  CHECK(imported.iteration_p99.ps() == original.iteration_p99.ps());
  CHECK(imported.total.ps() == original.total.ps());
  std::filesystem::remove_all(rank0.parent_path());
}

}  // namespace

TEST_CASE("TP 2 x PP 2 x DP 2 Llama exported to Chakra and read back runs the same iterations, to the picosecond") {
  const std::vector<std::vector<std::string>> variants = {
      {},
      {"parallelism.sharding=optimizer"},
      {"parallelism.sharding=full"},
      {"parallelism.sharding=gradients", "model.micro_batches=4"},
      {"parallelism.sharding=gradients", "parallelism.schedule=interleaved", "parallelism.virtual_stages=2"},
      {"parallelism.schedule=gpipe"},
      {"parallelism.schedule=interleaved", "parallelism.virtual_stages=2"},
      {"parallelism.activation_checkpointing=full", "model.micro_batches=4"},
      {"parallelism.activation_checkpointing=selective_op"},  // each block's tensor all-gathers again in backward
      {"parallelism.tp_comm_overlap=true"},
      {"parallelism.tensor=4"},  // no data parallelism: the buckets on Megatron's one-rank data-parallel groups
      {"parallelism.tp_comm_overlap=true", "parallelism.schedule=interleaved", "parallelism.virtual_stages=2"},
      {"parallelism.sequence_parallel=false"},  // AllReduces, nothing gathered again, the norms whole
      {"parallelism.sequence_parallel=false", "parallelism.activation_checkpointing=full", "model.micro_batches=4"},
      // FP8: the all-gathers move the quantized activations, the reduce-scatters 16 bits
      {"model.precision=fp8"},
      {"model.precision=fp8", "parallelism.tp_comm_overlap=true"},
      {"model.precision=fp8", "parallelism.activation_checkpointing=full", "model.micro_batches=4"},
      {"model.precision=fp8", "parallelism.activation_checkpointing=selective_op"},
      {"model.precision=fp8", "parallelism.sequence_parallel=false"},
      // Transformer Engine's userbuffers configuration: a margin of 20 SMs, a ring reduce-scatter, both from FP8
      // userbuffers (each reduce-scatter's chunks FP8 bytes), a ring in pairs, TE's defaults elsewhere
      {"model.precision=fp8",
       "parallelism.tp_comm_overlap={proj_fprop: {num_sm: 20, set_sm_margin: 1, fp8_buf: 1}, fc2_fprop: {method: "
       "ring_exchange, fp8_buf: 1}, qkv_fprop: {aggregate: 1}, qkv_dgrad: {num_sm: 8}}"},
      // On one SM each (tensor_overlap.hpp: their SMs' ceiling shows), the FP8 userbuffer's reduce-scatter too
      {"model.precision=fp8",
       "parallelism.tp_comm_overlap={proj_fprop: {num_sm: 1, fp8_buf: 1}, fc2_fprop: {num_sm: 1}, "
       "qkv_dgrad: {num_sm: 1}, fc1_wgrad: {num_sm: 1}, fc1_fprop: {use_ce: 0}}"}};
  for (std::size_t i = 0; i < variants.size(); ++i) {
    INFO("variant " << i);
    check_layout_round_trip("llama3-8b-tp-across-nodes.yaml", with_overrides(kTp2Pp2Dp2, variants[i]),
                            "syncsim-chakra-layout-" + std::to_string(i));
  }
}

TEST_CASE("FSDP + TP (full sharding, no pipeline) exported to Chakra and read back runs the same iterations") {
  // The sharded engine over a layout's ranks: per layer its tensor AllReduces (and context gathers and scatters)
  // after it on its groups, the units gathered and reduce-scattered on the data-parallel group.
  const std::vector<std::vector<std::string>> variants = {
      {"parallelism.tensor=2"},
      {"parallelism.tensor=2", "model.micro_batches=2"},
      {"parallelism.tensor=2", "parallelism.context=2", "parallelism.activation_checkpointing=full"},
      {"parallelism.tensor=2", "parallelism.activation_checkpointing=selective_op"}};
  for (std::size_t i = 0; i < variants.size(); ++i) {
    INFO("variant " << i);
    check_layout_round_trip(
        "llama3-8b-tp-across-nodes.yaml",
        with_overrides({"cluster.topology.nodes=1", "parallelism.pipeline=1", "parallelism.sharding=full"},
                       variants[i]),
        "syncsim-chakra-fsdp-tp-" + std::to_string(i));
  }
  // Rank 5 (tensor 1 of data group 2) names its own groups: its tensor pair {4, 5} and data group {1, 3, 5, 7}.
  const run::ChakraExport traces = run::scenario_chakra_export(
      load_scenario(kLayoutExamples / "llama3-8b-tp-across-nodes.yaml",
                    {"cluster.topology.nodes=1", "parallelism.pipeline=1", "parallelism.sharding=full",
                     "parallelism.tensor=2", "model.micro_batches=1"}));
  const chakra::ExecutionTrace t = traces.trace(5);
  CHECK_THAT(t.nodes[0].inputs_values, Catch::Contains(R"("ranks":[4,5])") &&
                                           Catch::Contains(R"("pg_desc":"DATA_PARALLEL_GROUP")") &&
                                           Catch::Contains(R"("ranks":[1,3,5,7])"));
  std::size_t tensor = 0;
  std::size_t data = 0;
  for (const chakra::ExecutionNode& n : t.nodes) {
    if (n.kind != chakra::NodeKind::collective) continue;
    (n.collective == chakra::CollectiveKind::all_reduce ? tensor : data) += 1;
  }
  // Llama 3 8B's 32 blocks: 2 AllReduces forward and 2 backward each, the embedding's and the head's; per unit two
  // gathers and a reduce-scatter.
  CHECK(tensor == 32 * 4 + 2);
  CHECK(data % 3 == 0);
  CHECK(data > 0);
}

TEST_CASE("FSDP's FP8 all-gather exported to Chakra gathers FP8 weights, and read back runs the same iterations") {
  // FSDP alone and beside TP 2 on one node, Llama 3 8B in fp8 with torchao's FP8 all-gather: each unit's gathers
  // move its GEMM weights in FP8 (1 B a parameter and a 4 B scale per matrix), its reductions 16-bit gradients.
  const std::vector<std::string> fsdp = {"cluster.topology.nodes=1", "parallelism.pipeline=1",
                                         "parallelism.sharding=full", "model.precision=fp8", "model.micro_batches=1"};
  for (const std::int64_t tensor : {1, 2}) {
    INFO("tensor " << tensor);
    const std::vector<std::string> overrides =
        with_overrides(fsdp, {fmt::format("parallelism.tensor={}", tensor), "parallelism.fp8_all_gather=true"});
    const run::ChakraExport traces =
        run::scenario_chakra_export(load_scenario(kLayoutExamples / "llama3-8b-tp-across-nodes.yaml", overrides));
    // One gather per unit before the forwards and one reduce-scatter per unit: by hand, (6.98 G block GEMM weights
    // at 1 B + 2 x 525 M embedding and head weights and 0.27 M norm weights at 2 B) / (2 B x 8.03 G) = 0.565 of the
    // reduced bytes.
    double gathered = 0;
    double reduced = 0;
    std::size_t units = 0;
    // Beside TP 2 the tensor group's all-gathers move the FP8 inputs (torchao casts them first; the output gradients
    // after their gather, in 16 bits), its reduce-scatters the 16-bit outputs: half the bytes.
    std::set<std::int64_t> tensor_gathers;
    std::set<std::int64_t> tensor_scatters;
    const chakra::ExecutionTrace& rank0_trace = traces.trace(0);
    const auto groups = chakra::process_groups(rank0_trace, "rank 0");
    for (const chakra::ExecutionNode& n : rank0_trace.nodes) {
      if (n.kind != chakra::NodeKind::collective || n.collective == chakra::CollectiveKind::all_reduce) continue;
      if (n.pg_name && groups.at(*n.pg_name).desc == "TENSOR_MODEL_PARALLEL_GROUP") {
        (n.collective == chakra::CollectiveKind::all_gather ? tensor_gathers : tensor_scatters).insert(*n.comm_size);
        continue;
      }
      if (n.collective == chakra::CollectiveKind::reduce_scatter) {
        reduced += static_cast<double>(*n.comm_size);
        ++units;
      } else {
        gathered += static_cast<double>(*n.comm_size);
      }
    }
    REQUIRE(units > 0);
    CHECK(gathered / 2 / reduced == Approx(0.565).margin(0.005));  // each unit gathered twice (forward, backward)
    if (tensor > 1) {
      REQUIRE(tensor_scatters.size() == 1);
      CHECK(*tensor_gathers.begin() * 2 == *tensor_scatters.begin());
      CHECK(*tensor_gathers.rbegin() == *tensor_scatters.begin());
    } else {
      CHECK(tensor_gathers.empty());
    }
    // Read back, the trace's gather sizes are what moves: the same iterations.
    const std::filesystem::path rank0 =
        export_layout_ranks("llama3-8b-tp-across-nodes.yaml", fmt::format("syncsim-chakra-fp8-{}", tensor), overrides);
    const TrainingReport original = run_layout_example("llama3-8b-tp-across-nodes.yaml", overrides);
    const std::vector<std::string> imported_overrides =
        with_overrides(fsdp, {fmt::format("parallelism.tensor={}", tensor), "model.chakra=" + rank0.string()});
    const TrainingReport imported = run_layout_example("llama3-8b-tp-across-nodes.yaml", imported_overrides);
    CHECK(imported.iteration_mean.ps() == original.iteration_mean.ps());
    CHECK(imported.total.ps() == original.total.ps());
    // The key beside a trace would say what the trace already holds: refused at the key.
    CHECK_THAT(chakra_error_of([&] {
                 run_layout_example("llama3-8b-tp-across-nodes.yaml",
                                    with_overrides(imported_overrides, {"parallelism.fp8_all_gather=true"}));
               }),
               Catch::Contains("parallelism.fp8_all_gather") && Catch::Contains("ALL_GATHER nodes"));
    std::filesystem::remove_all(rank0.parent_path());
  }
}

TEST_CASE("Mixtral's expert parallelism exported to Chakra and read back runs the same iterations") {
  check_layout_round_trip("mixtral-expert-parallel.yaml", {"cluster.topology.nodes=2"}, "syncsim-chakra-expert");
  // Expert parallelism over the whole data-parallel group (8 of 8): the routed experts' buckets reduced over
  // Megatron's expert data-parallel groups of one rank.
  check_layout_round_trip("mixtral-expert-parallel.yaml", {"cluster.topology.nodes=1"}, "syncsim-chakra-expert-whole");
}

TEST_CASE("a layout's trace read into another layout is refused, naming the node and its process group") {
  const std::filesystem::path rank0 =
      export_layout_ranks("llama3-8b-tp-across-nodes.yaml", "syncsim-chakra-layout-other", kTp2Pp2Dp2);
  const std::string error = chakra_error_of([&] {
    run_layout_example("llama3-8b-tp-across-nodes.yaml", {"cluster.topology.nodes=1", "parallelism.tensor=4",
                                                          "parallelism.pipeline=2", "model.chakra=" + rank0.string()});
  });
  CHECK_THAT(error, Catch::Contains("model.chakra: ") && Catch::Contains("chakra.0.et: node ") &&
                        Catch::Contains("COMM_COLL_NODE): its process group '1' (2 ranks from 0) is none of the "
                                        "scenario's layout's"));
  CHECK_THAT(chakra_error_of([] {
               run::scenario_chakra_export(load_scenario(
                   kLayoutExamples / "llama3-8b-tp-across-nodes.yaml",
                   with_overrides(kTp2Pp2Dp2,
                                  {"parallelism.tp_comm_overlap=true", "parallelism.activation_checkpointing=full"})));
             }),
             Catch::Contains("parallelism.tp_comm_overlap") && Catch::Contains("full or selective_op activation"));
  // selective_op's recomputed all-gathers beside the backward likewise.
  CHECK_THAT(chakra_error_of([] {
               run::scenario_chakra_export(
                   load_scenario(kLayoutExamples / "llama3-8b-tp-across-nodes.yaml",
                                 with_overrides(kTp2Pp2Dp2, {"parallelism.tp_comm_overlap=true",
                                                             "parallelism.activation_checkpointing=selective_op"})));
             }),
             Catch::Contains("parallelism.tp_comm_overlap") && Catch::Contains("is not written yet"));
  std::filesystem::remove_all(rank0.parent_path());
}

TEST_CASE("a layout's traces read under another sharding level are refused, saying how the traces reduce") {
  const std::vector<std::string> zero2 =
      with_overrides(kTp2Pp2Dp2, {"parallelism.sharding=gradients", "model.micro_batches=2"});
  const std::filesystem::path rank0 =
      export_layout_ranks("llama3-8b-tp-across-nodes.yaml", "syncsim-chakra-layout-zero2", zero2);
  const std::string error = chakra_error_of([&] {
    run_layout_example("llama3-8b-tp-across-nodes.yaml",
                       with_overrides(kTp2Pp2Dp2, {"parallelism.sharding=optimizer", "model.micro_batches=2",
                                                   "model.chakra=" + rank0.string()}));
  });
  CHECK_THAT(error, Catch::Contains("model.chakra: ") && Catch::Contains("chakra.0.et") &&
                        Catch::Contains("the traces' buckets are reduce-scattered after every micro-batch (ZeRO-2), "
                                        "parallelism.sharding is optimizer"));
  std::filesystem::remove_all(rank0.parent_path());
}
