// model.collectives end to end (collectives_replay.hpp): the synthetic job of tests/data/inspector (README.md: every
// rank's step is 4000 us of gaps around two TP AllReduces of 8 MiB, a DP ReduceScatter and AllGather of 64 MiB and a
// world AllReduce of 8 KiB) replayed on the system the log describes and on one with half the NIC bandwidth.
// Expected: nothing waits (the ranks are alike), so an iteration is 4000 us + the five collectives' times simulated on
// their groups (the TP groups together, the DP groups together); halving the NICs changes only the collectives that
// cross them (DP and world), never the 4000 us of compute; a topology smaller than the job is refused at the key.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collectives_replay.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::filesystem::path kReplayScenario = std::filesystem::path(SYNCSIM_RUN_DATA_DIR) / "collectives-replay.yaml";
constexpr const char* kHalfNic = "cluster.topology.nic_bw=200Gbps";

// The five collectives of a step on the scenario's cluster, each on all its groups at once, as `syncsim collective`
// would simulate them.
struct StepCollectives {
  SimTime tp_allreduce;
  SimTime dp_reduce_scatter;
  SimTime dp_all_gather;
  SimTime world_allreduce;
  SimTime sum() const { return tp_allreduce + tp_allreduce + dp_reduce_scatter + dp_all_gather + world_allreduce; }
};

StepCollectives step_collectives(const Scenario& scenario) {
  run::Workspace workspace;
  run::ResolvedScenario context(scenario, workspace);
  const std::vector<std::vector<std::size_t>> tp = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  const std::vector<std::vector<std::size_t>> dp = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const std::vector<std::vector<std::size_t>> world = {{0, 1, 2, 3, 4, 5, 6, 7}};
  return {context.group_collective(CollectiveOp::allreduce, Bytes(8 << 20), tp).time,
          context.group_collective(CollectiveOp::reduce_scatter, Bytes(64 << 20), dp).time,
          context.group_collective(CollectiveOp::all_gather, Bytes(64 << 20), dp).time,
          context.group_collective(CollectiveOp::allreduce, Bytes(8192), world).time};
}

std::string replay_error(const std::vector<std::string>& overrides) {
  try {
    (void)run::run_scenario(load_scenario(kReplayScenario, overrides));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a job's collectives replayed: an iteration is its gaps plus its collectives' simulated times",
          "[collectives-replay]") {
  const Scenario scenario = load_scenario(kReplayScenario);
  const StepCollectives c = step_collectives(scenario);
  const SimTime gaps = SimTime::from_us(4000);
  const TrainingReport report = run::run_scenario(scenario).report;
  REQUIRE(report.iterations == 3);
  CHECK(report.iteration_mean == gaps + c.sum());
  CHECK(report.iteration_p99 == gaps + c.sum());
  CHECK(report.total.ps() == 3 * (gaps + c.sum()).ps());
  REQUIRE(report.per_worker.size() == 8);
  for (const WorkerReport& w : report.per_worker) {
    CHECK(w.compute == SimTime::from_us(3 * 4000));
    CHECK(w.exposed_communication.ps() == 3 * c.sum().ps());
    CHECK(w.straggler_wait == SimTime::zero());
  }
  // The same run twice: the same report.
  CHECK(run::run_scenario(scenario).report.total == report.total);
}

TEST_CASE("the job's collectives on a cluster with half the NIC bandwidth: only the communication changes",
          "[collectives-replay]") {
  const StepCollectives full = step_collectives(load_scenario(kReplayScenario));
  const Scenario halved = load_scenario(kReplayScenario, {kHalfNic});
  const StepCollectives half = step_collectives(halved);
  // The TP groups stay inside a node (NVLink); the DP groups and the world cross the NICs.
  CHECK(half.tp_allreduce == full.tp_allreduce);
  CHECK(half.dp_reduce_scatter > full.dp_reduce_scatter);
  CHECK(half.dp_all_gather > full.dp_all_gather);
  const TrainingReport before = run::run_scenario(load_scenario(kReplayScenario)).report;
  const TrainingReport after = run::run_scenario(halved).report;
  CHECK(after.iteration_mean - before.iteration_mean == half.sum() - full.sum());
  CHECK(after.per_worker[0].compute == before.per_worker[0].compute);
  CHECK(after.exposed_communication_share > before.exposed_communication_share);
}

TEST_CASE("two communicators over the same GPUs run their calls one after the other, each on its own",
          "[collectives-replay]") {
  // Ranks 0 and 1 each in communicators 0xa and 0xb (two process groups of one pair of GPUs): per step 100 us, an
  // AllReduce of 1 MiB on 0xa (10 us logged), 100 us, the same on 0xb; two steps. Each AllReduce is the pair's own:
  // an iteration is 200 us + 2 x that AllReduce on {0, 1} alone (not two groups sharing the links).
  std::string text;
  for (int step = 0; step < 2; ++step) {
    for (int c = 0; c < 2; ++c) {
      const int start = 100 + 220 * step + 110 * c;
      for (int rank = 0; rank < 2; ++rank) {
        text += fmt::format(
            R"({{"header": {{"id": "0x{}", "rank": {}, "n_ranks": 2, "nnodes": 1}}, "metadata": {{"hostname": "h", )"
            R"("pid": {}}}, "coll_perf": {{"coll": "AllReduce", "coll_sn": {}, "coll_msg_size_bytes": 1048576, )"
            R"("coll_exec_time_us": 10, "event_trace_ts": {{"kernel_events": [{{"kernel_start_ts": {}, )"
            R"("kernel_stop_ts": {}}}]}}}}}})"
            "\n",
            c == 0 ? "a" : "b", rank, 100 + rank, step, start, start + 10);
      }
    }
  }
  const std::filesystem::path log = std::filesystem::temp_directory_path() / "syncsim-two-communicators.log";
  std::ofstream(log) << text;
  const Scenario scenario = load_scenario(kReplayScenario, {"model.collectives=" + log.string(), "cluster.workers=2"});
  run::Workspace workspace;
  run::ResolvedScenario context(scenario, workspace);
  const SimTime pair = context.group_collective(CollectiveOp::allreduce, Bytes(1 << 20), {{0, 1}}).time;
  const TrainingReport report = run::run_scenario(scenario).report;
  CHECK(report.iteration_mean == SimTime::from_us(200) + pair + pair);
  std::filesystem::remove(log);
}

TEST_CASE("a replay refuses a cluster that is not the job's size and a log that is no sequence, at the key",
          "[collectives-replay]") {
  CHECK_THAT(replay_error({"cluster.topology.nodes=1"}),
             Catch::Contains("model.collectives: the job in ") &&
                 Catch::Contains("has 8 ranks; the cluster runs 4 workers (a topology with at least as many GPUs is "
                                 "needed)"));
  CHECK_THAT(replay_error({"cluster.topology.nodes=4"}), Catch::Contains("set cluster.workers: 8"));
  CHECK_THAT(replay_error({"parallelism.tensor=4"}), Catch::Contains("parallelism.tensor: the job's layout is in"));
  const std::string plain_log = std::string(SYNCSIM_INSPECTOR_DATA) + "/synthetic-2node-8gpu.log";
  CHECK_THAT(replay_error({"model.collectives=" + plain_log}),
             Catch::Contains("synthetic-2node-8gpu.log:") && Catch::Contains("coll_perf.coll"));
}
