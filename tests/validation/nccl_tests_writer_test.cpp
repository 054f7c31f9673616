// Writing logs in nccl-tests' layout and as JSON: what the benchmarks print reads back as the same log, and a
// real log written again reproduces its rows byte for byte.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "shipped_logs.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/nccl_tests_json.hpp"
#include "syncsim/validation/nccl_tests_writer.hpp"

using namespace syncsim;
using namespace syncsim::shipped_logs;

namespace {

std::string written(const NcclTestsLog& log) {
  std::ostringstream out;
  write_nccl_tests_log(out, log);
  return out.str();
}

// Lines that do not start with '#': the table's rows.
std::vector<std::string> row_lines(const std::string& text) {
  std::vector<std::string> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty() && line.front() != '#') rows.push_back(line);
  }
  return rows;
}

void check_same_log(const NcclTestsLog& a, const NcclTestsLog& b) {
  CHECK(a.collective == b.collective);
  CHECK(a.ranks == b.ranks);
  CHECK(a.hosts == b.hosts);
  CHECK(a.ranks_per_host == b.ranks_per_host);
  CHECK(a.gpu_names == b.gpu_names);
  CHECK(a.parameters == b.parameters);
  REQUIRE(a.rank_list.size() == b.rank_list.size());
  for (std::size_t i = 0; i < a.rank_list.size(); ++i) {
    CHECK(a.rank_list[i].host == b.rank_list[i].host);
    CHECK(a.rank_list[i].pid == b.rank_list[i].pid);
    CHECK(a.rank_list[i].device == b.rank_list[i].device);
    CHECK(a.rank_list[i].bus_id == b.rank_list[i].bus_id);
    CHECK(a.rank_list[i].device_name == b.rank_list[i].device_name);
  }
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    CHECK(a.rows[i].size_bytes == b.rows[i].size_bytes);
    CHECK(a.rows[i].count == b.rows[i].count);
    CHECK(a.rows[i].redop == b.rows[i].redop);
    CHECK(a.rows[i].out_of_place == b.rows[i].out_of_place);
    CHECK(a.rows[i].in_place == b.rows[i].in_place);
  }
}

}  // namespace

TEST_CASE("a real log written again has the file's rows byte for byte and reads back the same", "[writer]") {
  // Times from 100 ms up print as whole microseconds ("134330"), as nccl-tests prints them.
  for (const char* file :
       {"a100-sxm4-1node-8gpu-nvswitch.log", "h100-1node-8gpu-nvswitch.log", "l40s-pcie-4gpu-ring.log",
        "l40s-pcie-4gpu-default.log", "a100-sxm4-2node-16gpu-roce-16x100g.log", "rtx2080ti-pcie3-2gpu-nop2p.log"}) {
    INFO(file);
    const NcclTestsLog log = read_nccl_tests_log(shipped(file));
    const std::string text = written(log);
    std::ifstream in(shipped(file));
    std::ostringstream original;
    original << in.rdbuf();
    CHECK(row_lines(text) == row_lines(original.str()));
    CHECK_THAT(text, Catch::StartsWith("# Collective test starting: all_reduce_perf\n# nThread 1 nGpus 1 minBytes "));
    CHECK_THAT(text, Catch::Contains("\n#  Rank  1 Group  0 Pid  10001 on    node-00 device  1 [0x17] NVIDIA "));
    CHECK_THAT(text, Catch::Contains("\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : "));
    const NcclTestsLog again = parse_nccl_tests_log(text, "again.log");
    check_same_log(again, log);
    CHECK(*again.avg_busbw_gbps == Approx(*log.avg_busbw_gbps).epsilon(1e-5));  // %g keeps 6 digits
    CHECK(again.warnings.empty());
  }
}

TEST_CASE("an older-layout log is written in the newer layout: root -1 and #wrong", "[writer]") {
  const NcclTestsLog log = read_nccl_tests_log(shipped("v100-dgx1-2node-16gpu-roce-2x100g.log"));
  const NcclTestsLog again = parse_nccl_tests_log(written(log), "again.log");
  CHECK(again.layout == NcclTestsLayout::with_root);
  CHECK(again.rows.front().root == -1);
  CHECK(again.hosts == 2);
  check_same_log(again, log);
}

TEST_CASE("measured rows: bandwidths from time, the closing average over both placements", "[writer]") {
  // AllReduce of 1 MiB over 8 ranks in 100 us: algbw = 1048576 B / 100 us = 10.48576 GB/s, busbw x 2*7/8.
  const NcclTestsPlacement p = measured_placement(CollectiveOp::allreduce, 8, 1048576, 100e-6, 0);
  CHECK(p.time_us == Approx(100.0));
  CHECK(p.algbw_gbps == Approx(10.48576));
  CHECK(p.busbw_gbps == Approx(10.48576 * 1.75));
  CHECK(p.wrong == 0.0);
  CHECK_FALSE(measured_placement(CollectiveOp::broadcast, 8, 64, 1e-6, std::nullopt).wrong);

  NcclTestsLog log;
  log.collective = CollectiveOp::all_gather;
  log.ranks = 2;
  log.rank_list = {{0, "cpu-host", 41, 0, "cpu", "CPU x"}, {1, "cpu-host", 42, 1, "cpu", "CPU x"}};
  log.parameters = format_nccl_tests_parameters(Bytes{8}, Bytes{1 << 20}, 2, 5, 20, true);
  CHECK(log.parameters ==
        "nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1 graph: 0");
  NcclTestsRow row;
  row.size_bytes = 4096;
  row.count = 512;
  row.redop = "none";
  row.root = -1;
  row.out_of_place = measured_placement(log.collective, 2, 4096, 10e-6, 0);
  row.in_place = measured_placement(log.collective, 2, 4096, 20e-6, 0);
  log.rows.push_back(row);
  CHECK(average_busbw_gbps(log) == Approx((0.2048 + 0.1024) / 2));
  const std::string text = written(log);
  CHECK_THAT(text, Catch::Contains("# Collective test starting: all_gather_perf\n"));
  CHECK_THAT(text, Catch::Contains("#  Rank  1 Group  0 Pid     42 on   cpu-host device  1 [cpu] CPU x\n"));
  CHECK_THAT(text,
             Catch::Contains("        4096           512     float    none      -1    10.00    0.41    0.20      0"
                             "    20.00    0.20    0.10      0\n"));
  CHECK_THAT(text, Catch::Contains("# Avg bus bandwidth    : 0.1536 \n"));
  const NcclTestsLog again = parse_nccl_tests_log(text, "bench.log");
  CHECK(again.collective == CollectiveOp::all_gather);
  CHECK(again.ranks == 2);
  CHECK(again.gpu_names == std::vector<std::string>{"CPU x"});
}

TEST_CASE("JSON holds the log at full precision and reads back", "[writer][json]") {
  const NcclTestsLog log = read_nccl_tests_log(shipped("rtx2080ti-pcie3-2gpu-nop2p.all_gather.log"));
  const nlohmann::json json = to_json(log);
  CHECK(json["collective"] == "all_gather");
  CHECK(json["nccl_tests_name"] == "all_gather_perf");
  CHECK(json["rows"][1]["size_bytes"] == 32);
  CHECK(json["rows"][1]["out_of_place"]["time_us"] == 10.52);
  CHECK(json["warnings"].size() == 1);
  const NcclTestsLog again = nccl_tests_log_from_json(nlohmann::json::parse(json.dump()), "x.json");
  check_same_log(again, log);
  CHECK(again.warnings == log.warnings);
  CHECK(again.avg_busbw_gbps == log.avg_busbw_gbps);
  CHECK(again.source == log.source);
}

TEST_CASE("JSON with missing or mistyped fields is rejected naming the key path", "[writer][json]") {
  const nlohmann::json good = to_json(read_nccl_tests_log(shipped("l40s-pcie-4gpu-tree.log")));
  const auto error_of = [](const nlohmann::json& j) -> std::string {
    try {
      nccl_tests_log_from_json(j, "cal.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  nlohmann::json j = good;
  j.erase("rows");
  CHECK(error_of(j) == "cal.json: rows: expected an array");
  j = good;
  j["rows"][2]["size_bytes"] = "64";
  CHECK(error_of(j) == "cal.json: rows[2].size_bytes: expected a whole number, got \"64\"");
  j = good;
  j["rows"][0]["in_place"].erase("time_us");
  CHECK(error_of(j) == "cal.json: rows[0].in_place.time_us: missing");
  j = good;
  j["collective"] = "gather";
  CHECK_THAT(error_of(j), Catch::StartsWith("cal.json: collective: unknown collective 'gather'"));
  j = good;
  j["ranks"] = 0;
  CHECK(error_of(j) == "cal.json: ranks: expected at least 1 rank");
  CHECK(error_of(nlohmann::json::array()) == "cal.json: expected an object");
}
