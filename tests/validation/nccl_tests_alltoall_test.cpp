// AllToAll in nccl-tests' alltoall_perf layout: read from a (synthetic, hand-written: data/README.md) log, written
// back row for row, and told apart from AllGather, whose rows look the same, only by name.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "shipped_logs.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"
#include "syncsim/validation/nccl_tests_writer.hpp"

using namespace syncsim;
using namespace syncsim::shipped_logs;

namespace {

const std::string kLog = std::string(SYNCSIM_VALIDATION_TEST_DATA "/alltoall-synthetic-8gpu.log");

}  // namespace

TEST_CASE("an alltoall_perf log reads as AllToAll: count per peer, busbw = algbw x (n-1)/n", "[nccl-tests][alltoall]") {
  const NcclTestsLog log = read_nccl_tests_log(kLog);
  CHECK(log.collective == CollectiveOp::alltoall);
  CHECK(log.ranks == 8);
  CHECK(log.hosts == 1);
  CHECK(log.warnings.empty());  // the bus factor 7/8 matches every row
  REQUIRE(log.rows.size() == 4);
  const NcclTestsRow& top = log.rows.back();
  CHECK(top.size_bytes == 1073741824);
  CHECK(top.count == 33554432);  // per peer: 1 GiB / 4 bytes / 8 ranks
  CHECK(top.redop == "none");
  CHECK(top.root == -1);
  CHECK(top.out_of_place.wrong == 0.0);
  CHECK_FALSE(top.in_place.wrong);  // N/A: nccl-tests does not check an in-place alltoall
  CHECK(top.out_of_place.busbw_gbps == Approx(top.out_of_place.algbw_gbps * 7 / 8).margin(0.01));
}

TEST_CASE("an AllToAll log written again has the file's rows and reads back the same", "[nccl-tests][alltoall]") {
  const NcclTestsLog log = read_nccl_tests_log(kLog);
  std::ostringstream out;
  write_nccl_tests_log(out, log);
  CHECK(out.str() == slurp(kLog));
  const NcclTestsLog again = parse_nccl_tests_log(out.str(), "again.log");
  CHECK(again.collective == CollectiveOp::alltoall);
  REQUIRE(again.rows.size() == log.rows.size());
  for (std::size_t i = 0; i < log.rows.size(); ++i) {
    CHECK(again.rows[i].out_of_place == log.rows[i].out_of_place);
    CHECK(again.rows[i].in_place == log.rows[i].in_place);
  }
}

TEST_CASE("AllToAll rows are AllGather's: the program line or the file name decides", "[nccl-tests][alltoall]") {
  std::string text = slurp(kLog);
  text.erase(0, text.find('\n') + 1);  // no '# Collective test starting' line
  CHECK(parse_nccl_tests_log(text, "rows-only.log").collective == CollectiveOp::all_gather);
  const NcclTestsLog named = parse_nccl_tests_log(text, "h100.alltoall.log");
  CHECK(named.collective == CollectiveOp::alltoall);
  CHECK(named.warnings.empty());
  CHECK(collective_from_file_name("alltoall_perf-2node.txt") == CollectiveOp::alltoall);
}

TEST_CASE("simulated AllToAll rows round as nccl-tests does: 16-byte blocks per peer", "[nccl-tests][alltoall]") {
  const CollectiveRow row = make_row(CollectiveOp::alltoall, 8, Bytes{1000}, 0);
  CHECK(row.size.value == 896);  // 8 peers x 7 blocks of 16 bytes
  CHECK(row.count == 28);        // floats per peer
  CHECK(row.redop == "none");
  CHECK(row.root == -1);
  CHECK(make_row(CollectiveOp::alltoall, 8, Bytes{127}, 0).size.value == 0);
}
