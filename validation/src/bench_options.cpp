#include "syncsim/validation/bench_options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"
#include "syncsim/validation/nccl_tests_json.hpp"
#include "syncsim/validation/nccl_tests_writer.hpp"

namespace syncsim {

namespace {

// Runs a parser, adding the flag as the error's location.
template <class F>
auto for_flag(const char* flag, F&& parse) {
  try {
    return parse();
  } catch (const InputError& e) {
    throw e.at(SourceLocation{flag});
  }
}

[[noreturn]] void bad_flag(const char* flag, const std::string& message) {
  throw InputError(message, SourceLocation{flag});
}

}  // namespace

void add_bench_options(CLI::App& app, BenchFlags& flags) {
  app.add_option("-b,--minbytes", flags.min_bytes, "Smallest size (nccl-tests' -b; K, M, G are powers of 1024)")
      ->capture_default_str();
  app.add_option("-e,--maxbytes", flags.max_bytes, "Largest size (nccl-tests' -e)")->capture_default_str();
  app.add_option("-f,--stepfactor", flags.factor, "Size multiplier between steps (nccl-tests' -f)")
      ->capture_default_str();
  app.add_option("--sizes", flags.sizes, "MIN:MAX[:FACTOR], instead of -b/-e/-f");
  app.add_option("-w,--warmup_iters", flags.warmup_iters, "Warm-up iterations per size and placement")
      ->capture_default_str();
  app.add_option("-n,--iters", flags.iters, "Timed iterations per size and placement")->capture_default_str();
  app.add_option("-c,--check", flags.check, "Check results: 1 on, 0 off (#wrong prints N/A)")->capture_default_str();
  app.add_option(
         "--op", flags.ops,
         "Collectives: allreduce, reduce_scatter, all_gather, broadcast, reduce, alltoall, a comma list, or all")
      ->capture_default_str();
  app.add_option("-r,--root", flags.root, "Root rank of broadcast and reduce")->capture_default_str();
  app.add_option("--json", flags.json_path, "Write all results as JSON to this file");
  app.add_option("--out-dir", flags.out_dir, "Write <program>.log per collective and results.json here");
}

std::vector<CollectiveOp> parse_collective_list(std::string_view text) {
  if (text == "all") {
    return {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
            CollectiveOp::broadcast, CollectiveOp::reduce,         CollectiveOp::alltoall};
  }
  std::vector<CollectiveOp> ops;
  while (true) {
    const std::size_t comma = text.find(',');
    const CollectiveOp op = parse_collective_op(text.substr(0, comma));
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return ops;
}

BenchPlan make_bench_plan(const BenchFlags& flags) {
  BenchPlan plan;
  if (!flags.sizes.empty()) {
    plan.range = for_flag("--sizes", [&] { return parse_size_range(flags.sizes); });
  } else {
    plan.range.min = for_flag("-b", [&] { return parse_bytes(flags.min_bytes); });
    plan.range.max = for_flag("-e", [&] { return parse_bytes(flags.max_bytes); });
    plan.range.factor = for_flag("-f", [&] { return parse_number(flags.factor); });
    if (plan.range.min.value < 1) bad_flag("-b", fmt::format("sizes start at 1 byte, got '{}'", flags.min_bytes));
    if (plan.range.max < plan.range.min) {
      bad_flag("-e", fmt::format("the largest size {} is below the smallest {}", flags.max_bytes, flags.min_bytes));
    }
    if (plan.range.min < plan.range.max && !(plan.range.factor > 1.0)) {
      bad_flag("-f", fmt::format("the sweep does not advance: factor {} must be above 1", flags.factor));
    }
    // Finite, and not so close to 1 that the sweep takes more than kMaxSizeSteps sizes (size_range.hpp).
    for_flag("-f", [&] {
      check_size_range(plan.range, fmt::format("{}:{}:{}", flags.min_bytes, flags.max_bytes, flags.factor));
    });
  }
  plan.sizes = expand(plan.range);
  if (flags.warmup_iters < 0) bad_flag("-w", fmt::format("expected 0 or more iterations, got {}", flags.warmup_iters));
  if (flags.iters < 1) bad_flag("-n", fmt::format("expected 1 or more iterations, got {}", flags.iters));
  // Every iteration is a real collective of up to the largest size, per size and placement: beyond this a typo
  // (-n 20000000) would hold the GPUs for days.
  if (flags.warmup_iters > kMaxBenchIters) {
    bad_flag("-w", fmt::format("expected at most {} iterations, got {}", kMaxBenchIters, flags.warmup_iters));
  }
  if (flags.iters > kMaxBenchIters) {
    bad_flag("-n", fmt::format("expected at most {} iterations, got {}", kMaxBenchIters, flags.iters));
  }
  if (flags.check != 0 && flags.check != 1) bad_flag("-c", fmt::format("expected 0 or 1, got {}", flags.check));
  if (flags.root < 0) bad_flag("-r", fmt::format("expected a rank (0 or more), got {}", flags.root));
  plan.ops = for_flag("--op", [&] { return parse_collective_list(flags.ops); });
  plan.warmup_iters = flags.warmup_iters;
  plan.iters = flags.iters;
  plan.check = flags.check == 1;
  plan.root = flags.root;
  plan.json_path = flags.json_path;
  plan.out_dir = flags.out_dir;
  return plan;
}

void write_bench_outputs(const BenchPlan& plan, const std::string& tool, const std::vector<NcclTestsLog>& logs,
                         const nlohmann::json& extra) {
  nlohmann::json document = extra.is_object() ? extra : nlohmann::json::object();
  document["tool"] = tool;
  document["results"] = nlohmann::json::array();
  for (const NcclTestsLog& log : logs) document["results"].push_back(to_json(log));
  const std::string json_text = document.dump(2) + "\n";
  const auto write_text = [](const std::string& path, const std::string& text) {
    write_file_atomically(path, [&](std::ostream& out) { out << text; });
  };
  if (!plan.out_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(plan.out_dir, error);
    if (error) {
      throw InputError(fmt::format("cannot create the directory: {}", error.message()), SourceLocation{plan.out_dir});
    }
  }
  if (!plan.json_path.empty()) write_text(plan.json_path, json_text);
  if (plan.out_dir.empty()) return;
  for (const NcclTestsLog& log : logs) {
    std::ostringstream text;
    write_nccl_tests_log(text, log);
    write_text(fmt::format("{}/{}.log", plan.out_dir, nccl_tests_name(log.collective)), text.str());
  }
  write_text(plan.out_dir + "/results.json", json_text);
}

}  // namespace syncsim
