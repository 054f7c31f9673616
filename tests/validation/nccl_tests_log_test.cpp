// The nccl-tests log reader on the real logs shipped in tests/data/nccl-tests: each one's system (ranks, hosts,
// devices), rows and values as the files print them, and the bandwidth definitions holding within print rounding.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "shipped_logs.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

using namespace syncsim;
using namespace syncsim::shipped_logs;

namespace {

struct Expected {
  const char* file;
  CollectiveOp op;
  NcclTestsLayout layout;
  int ranks;
  int hosts;
  int ranks_per_host;
  const char* gpu;
  std::size_t rows;
  std::int64_t first_size;
  std::int64_t last_size;
  double avg_busbw;
};

const Expected kLogs[] = {
    {"a100-sxm4-1node-8gpu-nvswitch.log", CollectiveOp::allreduce, NcclTestsLayout::with_root, 8, 1, 8,
     "NVIDIA A100-SXM4-40GB", 28, 64, 8589934592, 80.9946},
    {"a100-sxm4-2node-16gpu-roce-16x100g.log", CollectiveOp::allreduce, NcclTestsLayout::with_root, 16, 2, 8,
     "NVIDIA A100-SXM4-40GB", 28, 64, 8589934592, 24.0018},
    {"h100-1node-8gpu-nvswitch.log", CollectiveOp::allreduce, NcclTestsLayout::with_root, 8, 1, 8,
     "NVIDIA H100 80GB HBM3", 32, 8, 17179869184, 156.6188},
    {"l40s-pcie-4gpu-default.log", CollectiveOp::allreduce, NcclTestsLayout::with_root, 4, 1, 4, "NVIDIA L40S", 25, 8,
     134217728, 5.7488},
    {"l40s-pcie-4gpu-ring.log", CollectiveOp::allreduce, NcclTestsLayout::with_root, 4, 1, 4, "NVIDIA L40S", 25, 8,
     134217728, 5.9092},
    {"l40s-pcie-4gpu-tree.log", CollectiveOp::allreduce, NcclTestsLayout::with_root, 4, 1, 4, "NVIDIA L40S", 25, 8,
     134217728, 4.1712},
    {"rtx2080ti-pcie3-2gpu-nop2p.log", CollectiveOp::allreduce, NcclTestsLayout::with_root, 2, 1, 2,
     "NVIDIA GeForce RTX 2080 Ti", 28, 8, 1073741824, 2.0568},
    // 28 rows in the file, one of them a repeat of size 0 that the reader drops.
    {"rtx2080ti-pcie3-2gpu-nop2p.all_gather.log", CollectiveOp::all_gather, NcclTestsLayout::with_root, 2, 1, 2,
     "NVIDIA GeForce RTX 2080 Ti", 27, 0, 1073741824, 1.6418},
    {"v100-dgx1-2node-16gpu-roce-2x100g.log", CollectiveOp::allreduce, NcclTestsLayout::without_root, 16, 2, 8,
     "Tesla V100-SXM2-32GB", 29, 8, 2147483648, 7.8010},
};

// Bandwidths print with two decimals, so busbw and algbw x factor differ by at most half a unit in the last
// place of each.
constexpr double kRounding = 0.005;

// nccl-tests prints times with 2 decimals below 100 us, 1 below 10 ms, none above; these files pad some with
// zeros ("245.10"), so the time may be off by half a unit of the place nccl-tests printed.
double time_print_rounding(double time_us) {
  return time_us < 100 ? 0.005 : time_us < 10000 ? 0.05 : 0.5;
}

}  // namespace

TEST_CASE("every shipped nccl-tests log reads with its system, rows and footer", "[nccl-tests]") {
  for (const Expected& e : kLogs) {
    INFO(e.file);
    const NcclTestsLog log = read_nccl_tests_log(shipped(e.file));
    CHECK(log.source == shipped(e.file));
    CHECK(log.collective == e.op);
    CHECK(log.layout == e.layout);
    CHECK(log.ranks == e.ranks);
    CHECK(log.hosts == e.hosts);
    CHECK(log.ranks_per_host == e.ranks_per_host);
    REQUIRE(log.gpu_names.size() == 1);
    CHECK(log.gpu_names[0] == e.gpu);
    REQUIRE(log.rank_list.size() == static_cast<std::size_t>(e.ranks));
    CHECK(log.rank_list.back().rank == e.ranks - 1);
    CHECK(log.rank_list.back().device == e.ranks_per_host - 1);
    REQUIRE(log.rows.size() == e.rows);
    CHECK(log.rows.front().size_bytes == e.first_size);
    CHECK(log.rows.back().size_bytes == e.last_size);
    REQUIRE(log.avg_busbw_gbps);
    CHECK(*log.avg_busbw_gbps == Approx(e.avg_busbw).margin(1e-9));
    CHECK(log.out_of_bounds == 0);
    CHECK(log.parameters.starts_with("nThread 1 nGpus 1 minBytes "));
    for (const NcclTestsRow& row : log.rows) {
      CHECK(row.type == "float");
      CHECK(row.root.has_value() == (e.layout == NcclTestsLayout::with_root));
      CHECK(row.out_of_place.wrong == 0.0);
      CHECK(row.in_place.wrong == 0.0);
    }
  }
}

TEST_CASE("shipped logs keep the definitions busbw = algbw x factor and algbw = size / time", "[nccl-tests]") {
  for (const Expected& e : kLogs) {
    INFO(e.file);
    const NcclTestsLog log = read_nccl_tests_log(shipped(e.file));
    const double factor = bus_factor(log.collective, static_cast<std::size_t>(log.ranks));
    for (const NcclTestsRow& row : log.rows) {
      INFO("line " << row.line);
      for (const NcclTestsPlacement* p : {&row.out_of_place, &row.in_place}) {
        CHECK(std::abs(p->busbw_gbps - p->algbw_gbps * factor) <= kRounding * (1 + factor) + 1e-9);
        const double algbw = static_cast<double>(row.size_bytes) / (p->time_us * 1e3);
        const double time_rounding = time_print_rounding(p->time_us) / p->time_us;
        CHECK(std::abs(p->algbw_gbps - algbw) <= kRounding + algbw * time_rounding + 1e-9);
      }
    }
    // These files close with the mean out-of-place busbw (over the rows as printed, the dropped repeat too).
    double sum = 0;
    for (const NcclTestsRow& row : log.rows) sum += row.out_of_place.busbw_gbps;
    const std::size_t printed_rows = e.op == CollectiveOp::all_gather ? log.rows.size() + 1 : log.rows.size();
    CHECK(sum / static_cast<double>(printed_rows) == Approx(*log.avg_busbw_gbps).margin(1e-4));
  }
}

TEST_CASE("specific values read as the files print them", "[nccl-tests]") {
  SECTION("A100 one node: the first and the last row") {
    const NcclTestsLog log = read_nccl_tests_log(shipped("a100-sxm4-1node-8gpu-nvswitch.log"));
    const NcclTestsRow& first = log.rows.front();
    CHECK(first.line == 16);
    CHECK(first.count == 16);
    CHECK(first.redop == "sum");
    CHECK(first.root == -1);
    CHECK(first.out_of_place.time_us == 32.01);
    CHECK(first.in_place.time_us == 31.82);
    const NcclTestsRow& last = log.rows.back();
    CHECK(last.line == 43);
    CHECK(last.count == 2147483648);
    CHECK(last.out_of_place.time_us == 63929.0);
    CHECK(last.out_of_place.algbw_gbps == 134.37);
    CHECK(last.out_of_place.busbw_gbps == 235.14);
    CHECK(last.in_place.busbw_gbps == 235.21);
    CHECK(log.warnings.empty());
    CHECK(log.rank_list[3].host == "node-00");
    CHECK(log.rank_list[3].pid == 10003);
    CHECK(log.rank_list[3].bus_id == "0x37");
  }
  SECTION("A100 two nodes: the 64 MiB outlier and the ranks' hosts") {
    const NcclTestsLog log = read_nccl_tests_log(shipped("a100-sxm4-2node-16gpu-roce-16x100g.log"));
    const auto it =
        std::find_if(log.rows.begin(), log.rows.end(), [](const NcclTestsRow& r) { return r.size_bytes == 67108864; });
    REQUIRE(it != log.rows.end());
    CHECK(it->out_of_place.time_us == 6058.50);
    CHECK(it->in_place.time_us == 3709.50);
    CHECK(log.rows.back().out_of_place.time_us == 225083);
    CHECK(log.rank_list[7].host == "node-00");
    CHECK(log.rank_list[8].host == "node-01");
    CHECK(log.rank_list[8].device == 0);
  }
  SECTION("V100, the older layout: no root, `error` printed as 0e+00") {
    const NcclTestsLog log = read_nccl_tests_log(shipped("v100-dgx1-2node-16gpu-roce-2x100g.log"));
    CHECK(log.rows.front().out_of_place.time_us == 2193.50);
    CHECK(log.rows.front().in_place.time_us == 132.20);
    CHECK(log.rows.back().out_of_place.time_us == 175667);
    CHECK_FALSE(log.rows.front().root.has_value());
  }
  SECTION("RTX 2080 Ti all_gather: size is the gathered buffer, count per rank, redop none; the repeat is dropped") {
    const NcclTestsLog log = read_nccl_tests_log(shipped("rtx2080ti-pcie3-2gpu-nop2p.all_gather.log"));
    CHECK(log.rows[0].size_bytes == 0);
    CHECK(log.rows[0].in_place.time_us == 0.36);  // the first of the two size-0 rows is kept
    CHECK(log.rows[1].size_bytes == 32);
    CHECK(log.rows[1].count == 4);
    CHECK(log.rows[1].redop == "none");
    REQUIRE(log.warnings.size() == 1);
    CHECK_THAT(log.warnings[0], Catch::Contains("line 11 repeats size 0") && Catch::Contains("of line 10"));
  }
  SECTION("L40S: the same node under three NCCL_ALGO settings differs in its times") {
    const NcclTestsLog ring = read_nccl_tests_log(shipped("l40s-pcie-4gpu-ring.log"));
    const NcclTestsLog tree = read_nccl_tests_log(shipped("l40s-pcie-4gpu-tree.log"));
    CHECK(ring.rows.back().out_of_place.busbw_gbps > tree.rows.back().out_of_place.busbw_gbps);
    CHECK(tree.rows.back().out_of_place.time_us == 14329.5);
  }
}

TEST_CASE("real-log quirks: CRLF, trailing whitespace, a byte-order mark, NCCL's own lines", "[nccl-tests]") {
  const std::string path = shipped("h100-1node-8gpu-nvswitch.log");
  const NcclTestsLog plain = read_nccl_tests_log(path);
  std::string windows = "\xEF\xBB\xBF";
  for (const char c : slurp(path)) windows += c == '\n' ? std::string("  \t\r\n") : std::string(1, c);
  const NcclTestsLog crlf = parse_nccl_tests_log(windows, "h100.log");
  CHECK(crlf.ranks == 8);
  REQUIRE(crlf.rows.size() == plain.rows.size());
  CHECK(crlf.rows.back().in_place.time_us == plain.rows.back().in_place.time_us);
  CHECK(crlf.gpu_names == plain.gpu_names);
  CHECK(crlf.avg_busbw_gbps == plain.avg_busbw_gbps);
  CHECK(crlf.warnings.empty());

  const NcclTestsLog info = read_nccl_tests_log(std::string(SYNCSIM_VALIDATION_TEST_DATA "/nccl-info-lines.log"));
  CHECK(info.rows.size() == 28);
  REQUIRE(info.warnings.size() == 1);
  CHECK_THAT(info.warnings[0], Catch::Contains("ignored 1 line(s)") && Catch::Contains("line 23"));
}

TEST_CASE("the collective comes from the test line, the rows, or the file name", "[nccl-tests]") {
  CHECK(collective_from_test_name("reduce_scatter_perf") == CollectiveOp::reduce_scatter);
  CHECK(collective_from_test_name("alltoall_perf") == CollectiveOp::alltoall);
  CHECK_FALSE(collective_from_test_name("gather_perf"));
  CHECK(collective_from_file_name("logs/x.all_gather.log") == CollectiveOp::all_gather);
  CHECK(collective_from_file_name("AllReduce-2node.txt") == CollectiveOp::allreduce);
  CHECK(collective_from_file_name("reduce_scatter_perf.log") == CollectiveOp::reduce_scatter);
  CHECK(collective_from_file_name("bcast.log") == CollectiveOp::broadcast);
  CHECK(collective_from_file_name("reduce_perf.log") == CollectiveOp::reduce);
  CHECK_FALSE(collective_from_file_name("all_reduce/h100.log"));  // directories do not count
  CHECK(nccl_tests_type_bytes("bfloat16") == 2);
  CHECK_FALSE(nccl_tests_type_bytes("complex"));

  const std::string text = slurp(shipped("a100-sxm4-1node-8gpu-nvswitch.log"));
  // A file name that contradicts the rows loses to them, with a warning.
  const NcclTestsLog misnamed = parse_nccl_tests_log(text, "all_gather_perf.log");
  CHECK(misnamed.collective == CollectiveOp::allreduce);
  REQUIRE(misnamed.warnings.size() == 1);
  CHECK_THAT(misnamed.warnings[0], Catch::Contains("file name suggests all_gather"));
  // The test line is authoritative: then the rows must agree with it.
  CHECK(parse_nccl_tests_log("# Collective test starting: all_reduce_perf\n" + text, "x").collective ==
        CollectiveOp::allreduce);
  CHECK_THROWS_WITH(parse_nccl_tests_log("# Collective test starting: reduce_scatter_perf\n" + text, "x"),
                    Catch::Contains("x:17: size: size 64 is not count 16 x 4 bytes (float) x 8 ranks"));
  // A reader told the rank count of a log without rank lines; and an explicit collective.
  NcclTestsReadOptions options;
  options.ranks = 8;
  const NcclTestsLog zero = read_nccl_tests_log(std::string(SYNCSIM_VALIDATION_TEST_DATA "/zero-ranks.log"), options);
  CHECK(zero.ranks == 8);
  CHECK(zero.hosts == 1);
  CHECK(zero.rows.size() == 28);
}
