// The benchmarks' shared options (nccl-tests' -b/-e/-f/-w/-n/-c, --sizes, --op) and their output files.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/bench_options.hpp"
#include "syncsim/validation/nccl_tests_writer.hpp"

using namespace syncsim;

namespace {

std::string error_of(const BenchFlags& flags) {
  try {
    make_bench_plan(flags);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::int64_t> sizes_of(const BenchPlan& plan) {
  std::vector<std::int64_t> sizes;
  for (const Bytes b : plan.sizes) sizes.push_back(b.value);
  return sizes;
}

}  // namespace

TEST_CASE("sweeps as nccl-tests takes them, or in syncsim's MIN:MAX[:FACTOR]", "[bench]") {
  BenchFlags flags;
  const BenchPlan defaults = make_bench_plan(flags);
  CHECK(defaults.sizes.front() == Bytes{8});
  CHECK(defaults.sizes.back() == Bytes{32 << 20});
  CHECK(defaults.sizes.size() == 23);
  CHECK(defaults.ops == std::vector<CollectiveOp>{CollectiveOp::allreduce});
  CHECK(defaults.warmup_iters == 5);
  CHECK(defaults.iters == 20);
  CHECK(defaults.check);

  flags.min_bytes = "1K";
  flags.max_bytes = "1M";
  flags.factor = "4";
  CHECK(sizes_of(make_bench_plan(flags)) == std::vector<std::int64_t>{1024, 4096, 16384, 65536, 262144, 1048576});
  flags.sizes = "8:64:4";  // wins over -b/-e/-f
  CHECK(sizes_of(make_bench_plan(flags)) == std::vector<std::int64_t>{8, 32, 64});
  flags.ops = "all_gather,allreduce,all_gather";
  CHECK(make_bench_plan(flags).ops == std::vector<CollectiveOp>{CollectiveOp::all_gather, CollectiveOp::allreduce});
  flags.ops = "all";
  CHECK(make_bench_plan(flags).ops.size() == 6);
}

TEST_CASE("bad benchmark flags name the flag", "[bench]") {
  const auto with = [](auto change) {
    BenchFlags flags;
    change(flags);
    return error_of(flags);
  };
  CHECK(with([](BenchFlags& f) { f.min_bytes = "0"; }) == "-b: sizes start at 1 byte, got '0'");
  CHECK_THAT(with([](BenchFlags& f) { f.max_bytes = "12 parsecs"; }), Catch::StartsWith("-e: "));
  CHECK(with([](BenchFlags& f) { f.max_bytes = "4"; }) == "-e: the largest size 4 is below the smallest 8");
  CHECK(with([](BenchFlags& f) { f.factor = "1"; }) == "-f: the sweep does not advance: factor 1 must be above 1");
  CHECK_THAT(with([](BenchFlags& f) { f.sizes = "1G:8"; }),
             Catch::StartsWith("--sizes: ") && Catch::Contains("advance"));
  CHECK(with([](BenchFlags& f) { f.iters = 0; }) == "-n: expected 1 or more iterations, got 0");
  CHECK(with([](BenchFlags& f) { f.warmup_iters = -1; }) == "-w: expected 0 or more iterations, got -1");
  CHECK(with([](BenchFlags& f) { f.check = 2; }) == "-c: expected 0 or 1, got 2");
  CHECK(with([](BenchFlags& f) { f.root = -1; }) == "-r: expected a rank (0 or more), got -1");
  // Bounds: iterations a typo would make days long, and factors that never finish (or overflow) the sweep.
  CHECK(with([](BenchFlags& f) { f.iters = 20000000; }) == "-n: expected at most 100000 iterations, got 20000000");
  CHECK(with([](BenchFlags& f) { f.warmup_iters = 20000000; }) ==
        "-w: expected at most 100000 iterations, got 20000000");
  CHECK_THAT(with([](BenchFlags& f) { f.factor = "1.0000001"; }),
             Catch::StartsWith("-f: ") && Catch::Contains("too close to 1"));
  CHECK_THAT(with([](BenchFlags& f) { f.factor = "inf"; }), Catch::StartsWith("-f: "));
  CHECK_THAT(with([](BenchFlags& f) { f.sizes = "8:64:1e-300"; }), Catch::StartsWith("--sizes: "));
  CHECK_THAT(with([](BenchFlags& f) { f.ops = "allreduce,gather"; }),
             Catch::StartsWith("--op: unknown collective 'gather'"));
}

TEST_CASE("benchmark outputs: one log per collective and one JSON, written whole", "[bench]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("syncsim-bench-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  BenchFlags flags;
  flags.out_dir = (dir / "out").string();
  flags.json_path = (dir / "out" / "all.json").string();
  const BenchPlan plan = make_bench_plan(flags);

  NcclTestsLog log;
  log.ranks = 1;
  log.rank_list = {{0, "h", 1, 0, "cpu", "CPU"}};
  NcclTestsRow row;
  row.size_bytes = 8;
  row.count = 2;
  row.root = -1;
  row.out_of_place = measured_placement(log.collective, 1, 8, 1e-6, 0);
  row.in_place = row.out_of_place;
  log.rows.push_back(row);
  write_bench_outputs(plan, "syncsim-bench-test", {log}, {{"machine", "here"}});

  const NcclTestsLog back = read_nccl_tests_log((dir / "out" / "all_reduce_perf.log").string());
  CHECK(back.rows.size() == 1);
  CHECK(back.ranks == 1);
  std::ifstream in(dir / "out" / "results.json");
  const nlohmann::json json = nlohmann::json::parse(in);
  CHECK(json["tool"] == "syncsim-bench-test");
  CHECK(json["machine"] == "here");
  CHECK(json["results"][0]["rows"][0]["size_bytes"] == 8);
  CHECK(std::filesystem::exists(dir / "out" / "all.json"));
  for (const auto& entry : std::filesystem::directory_iterator(dir / "out")) {
    CHECK_THAT(entry.path().string(), !Catch::Contains(".tmp"));  // nothing half-written left beside
  }
  BenchPlan unwritable = plan;
  unwritable.out_dir.clear();
  unwritable.json_path = (dir / "missing" / "x.json").string();
  CHECK_THROWS_WITH(write_bench_outputs(unwritable, "syncsim-bench-test", {log}, {}),
                    Catch::Contains("cannot write '" + unwritable.json_path + "'"));
  std::filesystem::remove_all(dir);
}
