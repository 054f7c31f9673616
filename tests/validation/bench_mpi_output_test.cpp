// What `mpirun -np 4 syncsim-bench-mpi --op all --out-dir DIR` wrote, read back with the log reader. ctest runs the
// benchmark first (tests/validation/CMakeLists.txt) and then this hidden test case with SYNCSIM_BENCH_MPI_OUT=DIR.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "shipped_logs.hpp"
#include "syncsim/validation/nccl_tests_json.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

using namespace syncsim;
using namespace syncsim::shipped_logs;

TEST_CASE("syncsim-bench-mpi output reads back as nccl-tests logs of 4 ranks with correct results", "[.][mpi-output]") {
  const char* dir = std::getenv("SYNCSIM_BENCH_MPI_OUT");
  REQUIRE(dir != nullptr);
  const std::string out = dir;
  const nlohmann::json results = nlohmann::json::parse(slurp(out + "/results.json"));
  CHECK(results["tool"] == "syncsim-bench-mpi");
  REQUIRE(results["results"].size() == 6);

  std::string all_logs;
  for (const CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                                CollectiveOp::broadcast, CollectiveOp::reduce, CollectiveOp::alltoall}) {
    const std::string path = out + "/" + std::string(nccl_tests_name(op)) + ".log";
    INFO(path);
    all_logs += slurp(path);
    const NcclTestsLog log = read_nccl_tests_log(path);
    CHECK(log.collective == op);
    CHECK(log.ranks == 4);
    CHECK(log.hosts == 1);
    CHECK(log.ranks_per_host == 4);
    CHECK(log.out_of_bounds == 0);
    CHECK(log.warnings.empty());
    // -b 8 -e 1M -f 4: 8, 32, ..., 524288, 1048576. AllToAll rounds each of the 4 peers' blocks down to 16 bytes,
    // as nccl-tests does, so 8 and 32 are both size 0: measured once.
    REQUIRE(log.rows.size() == (op == CollectiveOp::alltoall ? 9u : 10u));
    CHECK(log.rows.back().size_bytes == 1048576);
    const double factor = bus_factor(op, 4);
    for (const NcclTestsRow& row : log.rows) {
      INFO("line " << row.line);
      CHECK(row.root == (op == CollectiveOp::broadcast || op == CollectiveOp::reduce ? 0 : -1));
      for (const NcclTestsPlacement* p : {&row.out_of_place, &row.in_place}) {
        CHECK(p->wrong == 0.0);
        CHECK(p->time_us > 0);
        CHECK(std::abs(p->busbw_gbps - p->algbw_gbps * factor) <= 0.005 * (1 + factor) + 1e-9);
        const double algbw = static_cast<double>(row.size_bytes) / (p->time_us * 1e3);
        const double time_rounding = p->time_us < 10000 ? 0.005 : 0.05;  // as syncsim prints times
        CHECK(std::abs(p->algbw_gbps - algbw) <= 0.005 + algbw * time_rounding / p->time_us + 1e-9);
      }
    }
  }
  // What the benchmark printed is the six logs one after the other.
  CHECK(slurp(out + "/stdout.log") == all_logs);

  // The JSON holds the same rows at full precision.
  for (std::size_t i = 0; i < results["results"].size(); ++i) {
    const NcclTestsLog json = nccl_tests_log_from_json(results["results"][i], "results.json");
    const NcclTestsLog text = read_nccl_tests_log(out + "/" + std::string(nccl_tests_name(json.collective)) + ".log");
    REQUIRE(json.rows.size() == text.rows.size());
    for (std::size_t r = 0; r < json.rows.size(); ++r) {
      CHECK(json.rows[r].out_of_place.time_us == Approx(text.rows[r].out_of_place.time_us).margin(0.5));
      CHECK(json.rows[r].in_place.busbw_gbps == Approx(text.rows[r].in_place.busbw_gbps).margin(0.005));
    }
  }
}
