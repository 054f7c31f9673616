// The synthetic NCCL Inspector log (tests/data/inspector/synthetic-2node-8gpu.log): syncsim's own prediction of a
// known system whose network efficiency went from 0.8 to 0.6, written as the plugin writes its records. The first
// test regenerates it and requires the committed file to be byte for byte what it writes (SYNCSIM_UPDATE_INSPECTOR=1
// rewrites the file instead); the others calibrate on it and validate it.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "syncsim/validation/calibration_fit.hpp"
#include "syncsim/validation/inspector_job.hpp"

using namespace syncsim;

namespace {

const std::string kSyntheticFamily = "dgx:nodes=2,gpus=4,nvlink_bw=300GB/s,nic_bw=200Gbps";
const std::string kSyntheticPath = std::string(SYNCSIM_INSPECTOR_DATA) + "/synthetic-2node-8gpu.log";
constexpr double kTrueNetEfficiency = 0.6;  // changed from 0.8

TransferCost synthetic_regime(double launch_us, std::array<double, 3> latency_us, std::array<double, 3> efficiency) {
  TransferCost cost;
  std::array<SimTime, 3> latency{};
  for (std::size_t c = 0; c < 3; ++c) latency[c] = SimTime::from_us(latency_us[c]);
  cost.step_latency = latency;
  cost.efficiency = efficiency;
  cost.launch = SimTime::from_us(launch_us);
  return cost;
}

// Two regimes (nvlink, pcie, net): the bandwidth one's net efficiency is the changed parameter.
CalibratedModel synthetic_truth() {
  return {{"latency", "bandwidth"},
          {synthetic_regime(12, {0.5, 1, 4}, {0.15, 0.25, 0.1}),
           synthetic_regime(25, {3, 5, 9}, {0.8, 1.0, kTrueNetEfficiency})},
          {}};
}

struct SyntheticComm {
  const char* id;
  const char* name;
  int ranks;
  int nodes;
  std::vector<CollectiveOp> ops;
};

// One record as the plugin writes it (inspector_json.cc of NVIDIA/nccl 5067397c): header, metadata, coll_perf,
// whole microseconds, the plugin's algbw and busbw.
std::string record(const SyntheticComm& comm, int rank, CollectiveOp op, std::int64_t msg_bytes, std::uint64_t sn,
                   std::int64_t time_us) {
  static const char* const kNames[] = {"AllReduce", "ReduceScatter", "AllGather", "Broadcast", "Reduce", "All2All"};
  const int per_node = comm.ranks / comm.nodes;
  const double traffic =
      op == CollectiveOp::allreduce ? static_cast<double>(msg_bytes) : static_cast<double>(msg_bytes) * comm.ranks;
  const double factor = op == CollectiveOp::allreduce ? 2.0 * (comm.ranks - 1) / comm.ranks
                                                      : static_cast<double>(comm.ranks - 1) / comm.ranks;
  const double algbw = traffic / 1e9 / (static_cast<double>(time_us) / 1e6);
  return fmt::format(
      "{{\"header\":{{\"id\":\"{}\",\"comm_name\":\"{}\",\"rank\":{},\"n_ranks\":{},\"nnodes\":{}}},"
      "\"metadata\":{{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":\"\",\"rec_mechanism\":"
      "\"nccl_profiler_interface\",\"dump_timestamp_us\":{},\"hostname\":\"node-{:02d}\",\"pid\":{}}},"
      "\"coll_perf\":{{\"coll\":\"{}\",\"coll_sn\":{},\"coll_msg_size_bytes\":{},\"coll_exec_time_us\":{},"
      "\"coll_timing_source\":\"kernel_gpu\",\"coll_algobw_gbs\":{:.6f},\"coll_busbw_gbs\":{:.6f}}}}}\n",
      comm.id, comm.name, rank, comm.ranks, comm.nodes, 1765000000000000 + sn * 1000, rank / per_node, 4000 + rank,
      kNames[static_cast<int>(op)], sn, msg_bytes, time_us, algbw, algbw * factor);
}

// The whole log: a data-parallel communicator of 8 ranks on both nodes (AllReduce) and a tensor-parallel one of the
// 4 ranks of node 0 (ReduceScatter, AllGather, AllReduce); sizes 8 KiB (the plugin's default minimum) to 128 MiB,
// three steps each, every rank's record. Rank 1's record of the first step is 40% slow (a straggler the median
// leaves out); one point-to-point record, which the reader skips.
std::string synthetic_inspector_log() {
  const CalibratedModel truth = synthetic_truth();
  const std::vector<SyntheticComm> comms{
      {"0x5eed00000000d1", "DP Group 0", 8, 2, {CollectiveOp::allreduce}},
      {"0x5eed00000000a7",
       "TP Group 0",
       4,
       1,
       {CollectiveOp::reduce_scatter, CollectiveOp::all_gather, CollectiveOp::allreduce}}};
  std::string text;
  for (const SyntheticComm& comm : comms) {
    std::uint64_t sn = 0;
    for (const CollectiveOp op : comm.ops) {
      NcclTestsLog shape;
      shape.collective = op;
      shape.ranks = comm.ranks;
      shape.hosts = comm.nodes;
      shape.ranks_per_host = comm.ranks / comm.nodes;
      shape.source = "synthetic";
      LogSystem system(shape, kSyntheticFamily, "synthetic");
      for (std::int64_t whole = 8192; whole <= (std::int64_t{1} << 28); whole *= 4) {
        const double us = system.simulate(Bytes{whole}, &truth).time.us();
        const std::int64_t msg = count_is_per_rank(op) ? whole / comm.ranks : whole;
        for (int step = 0; step < 3; ++step, ++sn) {
          for (int rank = 0; rank < comm.ranks; ++rank) {
            const double slow = step == 0 && rank == 1 ? 1.4 : 1.0;
            text += record(comm, rank, op, msg, sn, std::llround(us * slow));
          }
        }
      }
    }
  }
  text +=
      "{\"header\":{\"id\":\"0x5eed00000000a7\",\"comm_name\":\"TP Group 0\",\"rank\":0,\"n_ranks\":4,\"nnodes\":1},"
      "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"hostname\":\"node-00\",\"pid\":4000},"
      "\"p2p_perf\":{\"p2p\":\"Send\",\"p2p_sn\":0,\"p2p_peer\":1,\"p2p_msg_size_bytes\":1048576,"
      "\"p2p_exec_time_us\":40,\"p2p_timing_source\":\"kernel_gpu\",\"p2p_algobw_gbs\":26.2,\"p2p_busbw_gbs\":26.2}}\n";
  return text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<NcclTestsLog> synthetic_logs() {
  const InspectorJob job = read_inspector_job({kSyntheticPath});
  check_communicators_fit(job, kSyntheticFamily, "test");
  return inspector_nccl_tests_logs(job);
}

}  // namespace

TEST_CASE("the committed synthetic Inspector log is syncsim's own prediction", "[inspector][synthetic]") {
  const std::string text = synthetic_inspector_log();
  if (const char* update = std::getenv("SYNCSIM_UPDATE_INSPECTOR"); update && std::string(update) == "1") {
    std::ofstream(kSyntheticPath, std::ios::binary) << text;
  }
  CHECK(read_text(kSyntheticPath) == text);
}

TEST_CASE("the synthetic Inspector log groups into its two communicators and four tables", "[inspector][synthetic]") {
  const InspectorJob job = read_inspector_job({kSyntheticPath});
  REQUIRE(job.communicators.size() == 2);
  CHECK(job.communicators[0].ranks_seen.size() == 8);
  CHECK(job.communicators[0].hosts == std::vector<std::string>{"node-00", "node-01"});
  CHECK(job.communicators[1].hosts == std::vector<std::string>{"node-00"});
  const std::vector<NcclTestsLog> logs = inspector_nccl_tests_logs(job);
  REQUIRE(logs.size() == 4);
  for (const InspectorPoint& p : job.points) CHECK(p.count == 3 * p.ranks);  // three steps, every rank
  for (const NcclTestsLog& log : logs) CHECK(log.rows.size() == 8);          // 8 KiB .. 128 MiB by 4
}

TEST_CASE("calibrated on the synthetic Inspector log, the changed net efficiency comes back within 2%",
          "[inspector][synthetic]") {
  const std::vector<NcclTestsLog> logs = synthetic_logs();
  const Calibration calibration = fit_calibration(logs, kSyntheticFamily);
  const LinkCalibration& net = calibration.regimes[1].links[static_cast<std::size_t>(LinkKind::network)];
  INFO("fitted net efficiency " << net.efficiency);
  CHECK(net.fitted);
  CHECK(net.efficiency == Approx(kTrueNetEfficiency).epsilon(0.02));
  // Validated against that calibration: small errors (the log's whole microseconds are the noise).
  const CalibratedModel model = to_model(calibration);
  for (const NcclTestsLog& log : logs) {
    LogSystem system(log, calibration.topology, "test");
    const CalibrationMeasurement m =
        measure_fit(log, system, measured_points(log, calibration.placement), model, std::nullopt);
    INFO(log.parameters << ": geomean " << m.fit_error.geomean_abs_error << ", max " << m.fit_error.max_abs_error);
    CHECK(m.fit_error.geomean_abs_error <= 0.02);
    CHECK(m.fit_error.max_abs_error <= 0.05);
  }
}
