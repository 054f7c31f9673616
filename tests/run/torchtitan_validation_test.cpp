// Predicted against torchtitan's Llama 3.1 FSDP tables (validation/scenarios/llm/published-torchtitan.csv;
// docs/accuracy.md, "torchtitan: eager, compiled, Float8"): the same 8B FSDP run eager, with each block compiled, and
// compiled in Float8, on 8 and 128 H100s (tables 1 and 3), compiled in Float8 with context parallelism at 32k to
// 256k tokens (table 2, the `-cp` rows), and the 70B on FSDP 32 x TP 8 with and without async TP (table 4, `-2d`);
// and Trainy's June 2025 runs of the compiled Float8 8B on 32 and 64 H200s (`-trainy`, the loss compiled too). What
// the kernel model gets right is the steps between the first tables' rows — what compiling the blocks and FP8 GEMMs buy
// — and those are held within 8 %; each row's own throughput carries what is left of the kernel model's optimism
// (11-18 % fast on tables 1 and 3, the eager rows within issue 39's 15 %) and the long-sequence rows more (ring
// attention's cost beyond its FLOPs is not modelled), each held within the largest error measured for its table, so a
// change that moves it is seen and the table redone.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "published_csv.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {
const std::filesystem::path kScenarios = SYNCSIM_LLM_SCENARIOS;
constexpr double kLargestError = 0.17;    // 16.1 %: 128 GPUs compiled, 7,561 against 6,514 tokens/s/GPU
constexpr double kEagerError = 0.13;      // issue 39 asks 15 %: the eager rows (+9.9 % and +12.3 %)
constexpr double kLargestCpError = 0.32;  // 31.9 %: CP 8 at 262,144 tokens, 723 against 548
// 11.6 %: Llama 3.1 70B FSDP 32 x TP 8 with async TP, 978 against 876 (table 4): tp_comm_overlap, as PyTorch's
// symmetric-memory rings run (tensor_overlap.hpp), hides more than torchtitan's async TP did; the row without it is
// +1.8 %, 844 against 829. 9.0 % (959) when syncsim exposed a first chunk of every collective and took 20 SMs for
// every reduce-scatter.
constexpr double kLargest2dError = 0.12;
constexpr double kStepBound = 0.08;  // a speed-up between two rows against the published one

struct Row {
  double published = 0;
  double predicted = 0;
};
}  // namespace

TEST_CASE(
    "torchtitan Llama 3.1 8B FSDP eager, compiled and in Float8: each row within the measured error, the "
    "speed-ups between them within 8 %",
    "[llm_validation]") {
  std::map<std::string, Row> rows;
  for (const auto& cells : test::published_csv(kScenarios / "published-torchtitan.csv", 3)) {
    const TrainingReport r = run::run_scenario(load_scenario(kScenarios / cells[0])).report;
    const Row row{std::stod(cells[1]), r.utilization.tokens_per_second_per_gpu};
    INFO(cells[0] << ": " << row.predicted << " tokens/s/GPU against " << row.published);
    const bool context_rows = cells[0].find("-cp") != std::string::npos;
    const bool two_d_rows = cells[0].find("-2d") != std::string::npos;
    const bool eager_rows = cells[0].ends_with("gpu.yaml");  // 8gpu.yaml, 128gpu.yaml
    CHECK(std::abs(std::log(row.predicted / row.published)) <= std::log1p(context_rows ? kLargestCpError
                                                                          : two_d_rows ? kLargest2dError
                                                                          : eager_rows ? kEagerError
                                                                                       : kLargestError));
    rows[cells[0].substr(0, cells[0].size() - 5)] = row;
  }
  REQUIRE(rows.size() == 14);
  const auto speed_up = [&](const std::string& from, const std::string& to) {
    REQUIRE(rows.contains(from));
    REQUIRE(rows.contains(to));
    const Row& a = rows.at(from);
    const Row& b = rows.at(to);
    INFO(from << " -> " << to << ": predicted x" << b.predicted / a.predicted << ", published x"
              << b.published / a.published);
    CHECK(std::abs((b.predicted / a.predicted) / (b.published / a.published) - 1) <= kStepBound);
    CHECK(b.predicted > a.predicted);
  };
  for (const std::string gpus : {"8gpu", "128gpu"}) {
    const std::string eager = "torchtitan-llama31-8b-" + gpus;
    speed_up(eager, eager + "-compile");                      // published x1.157 and x1.162
    speed_up(eager + "-compile", eager + "-compile-float8");  // x1.280 and x1.286
  }
  // Async TP only ever helps: the 70B rows' published step is x1.057, the predicted one larger (above).
  const std::string two_d = "torchtitan-llama31-70b-256gpu-2d";
  CHECK(rows.at(two_d + "-asynctp").predicted > rows.at(two_d).predicted);
  // Each doubling of the sequence over twice the context ranks costs tokens/s: attention grows with it.
  for (const auto& [from, to] : {std::pair{"cp1", "cp2"}, std::pair{"cp2", "cp4"}, std::pair{"cp4", "cp8"}}) {
    const std::string prefix = "torchtitan-llama31-8b-8gpu-";
    INFO(from << " -> " << to);
    CHECK(rows.at(prefix + to).predicted < rows.at(prefix + from).predicted);
  }
}
