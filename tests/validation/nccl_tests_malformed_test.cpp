// Truncated and garbled nccl-tests logs (tests/validation/data, README.md there says how each was made from the
// A100 one-node log): each is rejected with an InputError that names its line, or read with a warning where the
// data is whole (a log cut after a complete row).
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

using namespace syncsim;

namespace {

std::string data(const std::string& name) {
  return fmt::format("{}/{}", SYNCSIM_VALIDATION_TEST_DATA, name);
}

struct Malformed {
  const char* file;
  int line;             // 0: the error names no line (no table at all)
  const char* key;      // the InputError's key
  const char* message;  // a part of the message
};

const Malformed kMalformed[] = {
    {"truncated-mid-row.log", 40, "row", "a row of 6 columns where the table has 13"},
    {"extra-column.log", 20, "row", "a row of 14 columns where the table has 13"},
    {"missing-column.log", 25, "row", "a row of 12 columns"},
    {"non-numeric-time.log", 22, "out-of-place.time", "expected a number, got '32.l3'"},
    {"non-numeric-size.log", 18, "size", "expected a whole number, got '2S6'"},
    {"negative-time.log", 17, "out-of-place.time", "at least 0, got '-2.01'"},
    {"no-table.log", 0, "", "no nccl-tests table"},
    {"zero-ranks.log", 6, "ranks", "the rank count is unknown (0 ranks)"},
    {"no-rows.log", 14, "", "the table has no rows"},
    {"garbled-header.log", 14, "table header", "unknown table header"},
    {"duplicate-rank.log", 8, "rank", "rank 3 appears twice (lines 7 and 8)"},
    {"missing-rank.log", 9, "rank", "rank 5 is missing"},
    {"malformed-rank-line.log", 6, "rank", "malformed rank line"},
    {"size-count-mismatch.log", 27, "size", "size 131080 is not count 32768 x 4 bytes (float)"},
    {"root-in-allreduce.log", 19, "root", "root 3 where allreduce has none"},
    {"two-tables.log", 50, "", "a second log begins here (the first table starts at line 14)"},
    {"gather.log", 1, "collective", "unsupported nccl-tests program 'gather_perf'"},
};

}  // namespace

TEST_CASE("malformed logs are rejected naming file, line and what was wrong", "[nccl-tests][malformed]") {
  for (const Malformed& m : kMalformed) {
    INFO(m.file);
    try {
      read_nccl_tests_log(data(m.file));
      FAIL("no error for " << m.file);
    } catch (const InputError& e) {
      INFO(e.what());
      REQUIRE(e.where());
      CHECK(e.where()->source == data(m.file));
      CHECK(e.where()->line == m.line);
      CHECK(e.key() == m.key);
      CHECK_THAT(e.message(), Catch::Contains(m.message));
    }
  }
}

TEST_CASE("column numbers point at the bad value", "[nccl-tests][malformed]") {
  try {
    read_nccl_tests_log(data("non-numeric-time.log"));
    FAIL("no error");
  } catch (const InputError& e) {
    // `        4096          1024     float     sum      -1    32.l3 ...`: the time starts in column 57.
    CHECK(e.where()->column == 57);
    CHECK_THAT(e.what(), Catch::StartsWith(data("non-numeric-time.log") + ":22:57: out-of-place.time: "));
  }
}

TEST_CASE("a log cut after a whole row is read, with a warning that it may be truncated", "[nccl-tests][malformed]") {
  const NcclTestsLog log = read_nccl_tests_log(data("truncated-no-footer.log"));
  CHECK(log.rows.size() == 15);
  CHECK(log.rows.back().line == 30);
  CHECK_FALSE(log.avg_busbw_gbps);
  REQUIRE(log.warnings.size() == 1);
  CHECK_THAT(log.warnings[0], Catch::Contains("no footer") && Catch::Contains("line 30"));
}

TEST_CASE("text-level failures: empty input, a missing file, a footer without table, an unknown collective",
          "[nccl-tests][malformed]") {
  CHECK_THROWS_WITH(parse_nccl_tests_log("", "empty.log"), Catch::StartsWith("empty.log: no nccl-tests table"));
  CHECK_THROWS_WITH(read_nccl_tests_log(data("nowhere.log")), Catch::Contains("nowhere.log: cannot open"));
  CHECK_THROWS_WITH(parse_nccl_tests_log("#\n# Avg bus bandwidth    : 1.0\n", "f.log"),
                    Catch::StartsWith("f.log:2: a table footer before any table header"));
  // redop none without root, many ranks, no name to go by: broadcast in an old layout or something else?
  const std::string old_layout =
      "#  Rank  0 Pid 1 on h device  0 [0x01] G\n#  Rank  1 Pid 2 on h device  1 [0x02] G\n"
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        1024           256     float    none    10.00    0.10    0.10  0e+00    10.00    0.10    0.10  0e+00\n";
  CHECK_THROWS_WITH(parse_nccl_tests_log(old_layout, "old.log"),
                    Catch::StartsWith("old.log:3: collective: cannot tell which collective"));
  NcclTestsReadOptions options;
  options.collective = CollectiveOp::broadcast;
  const NcclTestsLog log = parse_nccl_tests_log(old_layout, "old.log", options);
  CHECK(log.collective == CollectiveOp::broadcast);
  CHECK(log.ranks == 2);
  CHECK(log.gpu_names == std::vector<std::string>{"G"});
  CHECK(parse_nccl_tests_log(old_layout, "old.broadcast.log").collective == CollectiveOp::broadcast);
}

TEST_CASE("doubtful results are read with warnings", "[nccl-tests][malformed]") {
  const std::string log_text =
      "#  Rank  0 Group  0 Pid 1 on a device  0 [0x01] G\n#  Rank  1 Group  0 Pid 2 on b device  0 [0x01] G\n"
      "#  Rank  2 Group  0 Pid 3 on b device  1 [0x02] G\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "     1048576        262144     float     sum      -1   100.00   10.49   20.97      3   100.00   10.49   13.98"
      "    N/A\n"
      "# Out of bounds values : 1 FAILED\n# Avg bus bandwidth    : 17.5 \n";
  const NcclTestsLog log = parse_nccl_tests_log(log_text, "doubtful.log");
  CHECK(log.hosts == 2);
  CHECK(log.ranks_per_host == 2);
  CHECK_FALSE(log.rows[0].in_place.wrong);
  REQUIRE(log.warnings.size() == 4);
  CHECK_THAT(log.warnings[0], Catch::Contains("hosts run different rank counts"));
  CHECK_THAT(log.warnings[1], Catch::Contains("1 row(s) report wrong results, the first at line 5"));
  CHECK_THAT(log.warnings[2], Catch::Contains("1 out-of-bounds"));
  CHECK_THAT(log.warnings[3], Catch::Contains("busbw / algbw is 1.999 at line 5, not the 1.333"));
}
