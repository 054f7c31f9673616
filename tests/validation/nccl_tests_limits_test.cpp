// The nccl-tests log reader at its limits: rank counts (at most kMaxNcclTestsRanks), logs with many ranks, and
// tables that mix data types or reduction ops, which validation and calibration cannot compare by size.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/log_system.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

using namespace syncsim;

namespace {

struct LogRow {
  std::int64_t size;
  std::int64_t count;
  std::string type;
  std::string redop;
};

// An allreduce log of `ranks` rank lines (device names from `device_name`) and the given rows.
template <typename DeviceName>
std::string make_log(int ranks, const std::vector<LogRow>& rows, DeviceName device_name) {
  std::string text = "# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20\n";
  for (int r = 0; r < ranks; ++r) {
    text += "#  Rank " + std::to_string(r) + " Group  0 Pid  " + std::to_string(1000 + r) + " on node-" +
            std::to_string(r / 8) + " device  " + std::to_string(r % 8) + " [0x07] " + device_name(r) + "\n";
  }
  text +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n";
  for (const LogRow& row : rows) {
    text += "  " + std::to_string(row.size) + "  " + std::to_string(row.count) + "  " + row.type + "  " + row.redop +
            "  -1    32.01    0.03    0.06      0    31.82    0.03    0.06      0\n";
  }
  return text + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.06\n";
}

std::string a100(int) {
  return "NVIDIA A100-SXM4-40GB";
}

const std::vector<LogRow> kFloatSum{{1024, 256, "float", "sum"}, {2048, 512, "float", "sum"}};

InputError error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& error) {
    return error;
  }
  FAIL("expected an InputError");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a rank number at the 2^20-rank limit is refused, naming the limit", "[nccl-tests][limits]") {
  std::string text = make_log(2, kFloatSum, a100);
  const std::string rank1 = "#  Rank 1 ";
  text.replace(text.find(rank1), rank1.size(), "#  Rank 1048576 ");
  const InputError error = error_of([&] { (void)parse_nccl_tests_log(text, "big.all_reduce.log"); });
  CHECK(std::string(error.what()) ==
        "big.all_reduce.log:3:9: rank: rank 1048576 is beyond the 1048576 ranks a log may have (the largest topology "
        "syncsim builds)");
}

TEST_CASE("a log of 20,000 ranks with as many device names reads every name once, in rank order",
          "[nccl-tests][limits]") {
  // The distinct names were found by searching the list of names so far: quadratic in the ranks.
  const NcclTestsLog log = parse_nccl_tests_log(
      make_log(20'000, kFloatSum, [](int r) { return fmt::format("GPU-{}", r % 10'000); }), "wide.all_reduce.log");
  CHECK(log.ranks == 20'000);
  CHECK(log.hosts == 2'500);
  REQUIRE(log.gpu_names.size() == 10'000);
  CHECK(log.gpu_names.front() == "GPU-0");
  CHECK(log.gpu_names.back() == "GPU-9999");
}

TEST_CASE("a table that mixes reduction ops or data types cannot be validated or calibrated by size",
          "[nccl-tests][limits]") {
  // nccl-tests -o all / -d all print such tables: each row is a real measurement, and the reader keeps them all;
  // comparing them by size alone would mix two different measurements into one point.
  const NcclTestsLog ops = parse_nccl_tests_log(
      make_log(8, {{1024, 256, "float", "sum"}, {1024, 256, "float", "max"}}, a100), "ops.all_reduce.log");
  CHECK(ops.rows.size() == 2);
  const InputError op_error = error_of([&] { (void)measured_points(ops, Placement::out_of_place); });
  CHECK(std::string(op_error.what()) ==
        "ops.all_reduce.log:12: redop: the log mixes reduction ops: 'max' here, 'sum' at line 11; syncsim compares "
        "rows by size alone, so give one reduction op per log (run nccl-tests with one -d TYPE and one -o OP, or "
        "split the table)");

  const NcclTestsLog types = parse_nccl_tests_log(
      make_log(8, {{1024, 256, "float", "sum"}, {2048, 1024, "half", "sum"}}, a100), "types.all_reduce.log");
  const InputError type_error = error_of([&] { (void)measured_points(types, Placement::min); });
  CHECK(type_error.key() == "type");
  CHECK_THAT(type_error.what(), Catch::Contains("types.all_reduce.log:12: type: the log mixes data types: 'half' "
                                                "here, 'float' at line 11"));

  const NcclTestsLog one_kind = parse_nccl_tests_log(make_log(8, kFloatSum, a100), "one.all_reduce.log");
  CHECK(measured_points(one_kind, Placement::out_of_place).size() == 2);
}

TEST_CASE("a measured time below the simulated clock's picosecond is refused at its line", "[nccl-tests][limits]") {
  // A time of 1e-300 us used to give an error of 9 x 10^300 percent, printed digit by digit.
  std::string text = make_log(8, kFloatSum, a100);
  text.replace(text.find("32.01"), 5, "1e-300");
  const NcclTestsLog tiny = parse_nccl_tests_log(text, "tiny.all_reduce.log");
  const InputError error = error_of([&] { (void)measured_points(tiny, Placement::out_of_place); });
  CHECK(error.key() == "time");
  CHECK_THAT(error.what(), Catch::StartsWith("tiny.all_reduce.log:11: time: the out_of_place time of 1e-300 us for "
                                             "1024 bytes: a measured time must be positive and at least the "
                                             "simulated clock's resolution, 1 ps"));
}

TEST_CASE("a log of more ranks than validate and calibrate simulate is refused at once, naming the limit",
          "[nccl-tests][limits]") {
  // Reading 100,000 ranks is quick; simulating each size at that scale took minutes, so the system is refused.
  const NcclTestsLog wide = parse_nccl_tests_log(make_log(100'000, kFloatSum, a100), "wide.all_reduce.log");
  const InputError error = error_of([&] { const LogSystem system(wide, "switch:bw=10GB/s", "--topology"); });
  CHECK(std::string(error.what()) ==
        "wide.all_reduce.log: the log has 100000 ranks; validate and calibrate simulate each of its sizes at that "
        "scale, which takes minutes beyond 4096 ranks: give a log of at most 4096 ranks");
  const NcclTestsLog most = parse_nccl_tests_log(make_log(4096, kFloatSum, a100), "most.all_reduce.log");
  CHECK(LogSystem(most, "switch:bw=10GB/s", "--topology").ranks() == 4096);
}
