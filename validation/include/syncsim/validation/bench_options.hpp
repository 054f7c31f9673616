#pragma once
// The options both real benchmarks take (syncsim-bench-mpi, syncsim-bench-nccl), spelled as nccl-tests spells them,
// and the files they write.
//
//   -b MIN -e MAX -f FACTOR   size sweep, as nccl-tests (K, M, G are powers of 1024); or
//   --sizes MIN:MAX[:FACTOR]  the same in syncsim's notation (size_range.hpp)
//   -w WARMUP -n ITERS        warm-up and timed iterations per size and placement
//   -c 0|1                    check results (default 1)
//   --op allreduce,all_gather | all
//   -r ROOT                   root of broadcast and reduce
//   --json FILE               {"tool": ..., "results": [one NcclTestsLog per op, nccl_tests_json.hpp], ...}
//   --out-dir DIR             DIR/<nccl-tests program>.log per op (e.g. all_reduce_perf.log) and DIR/results.json
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"
#include "syncsim/collectives/size_range.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace CLI {
class App;
}

namespace syncsim {

// The flags as given, before checking.
struct BenchFlags {
  std::string min_bytes = "8";
  std::string max_bytes = "32M";
  std::string factor = "2";
  std::string sizes;
  int warmup_iters = 5;
  int iters = 20;
  int check = 1;
  std::string ops = "allreduce";
  int root = 0;
  std::string json_path;
  std::string out_dir;
};

void add_bench_options(CLI::App& app, BenchFlags& flags);

// The most warm-up or timed iterations a benchmark takes per size and placement (nccl-tests' defaults: 5 and 20).
inline constexpr int kMaxBenchIters = 100000;

// Checked flags: throws InputError naming the flag (`-b`, `--sizes`, `--op`, ...) for bad values: sizes below 1
// byte, a factor that is not finite or does not advance (or takes more than kMaxSizeSteps steps), iterations
// outside 0 (1 for -n) .. kMaxBenchIters, -c other than 0 or 1, a negative root.
struct BenchPlan {
  std::vector<CollectiveOp> ops;
  SizeRange range;
  std::vector<Bytes> sizes;
  int warmup_iters = 5;
  int iters = 20;
  bool check = true;
  int root = 0;
  std::string json_path;
  std::string out_dir;
};
BenchPlan make_bench_plan(const BenchFlags& flags);

// "allreduce,all_gather", "all", or one name; throws InputError for an unknown one.
std::vector<CollectiveOp> parse_collective_list(std::string_view text);

// Writes --json and --out-dir outputs as syncsim writes every output (syncsim/core/output_file.hpp): each file
// complete or not at all, a FIFO or device written through, every error with its reason.
// `extra` holds what the tool adds to the JSON object beside "tool" and "results" (versions, devices, compute).
void write_bench_outputs(const BenchPlan& plan, const std::string& tool, const std::vector<NcclTestsLog>& logs,
                         const nlohmann::json& extra);

}  // namespace syncsim
