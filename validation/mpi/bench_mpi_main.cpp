// syncsim-bench-mpi: real MPI collectives over CPU ranks, swept over message sizes and printed in nccl-tests'
// table layout, so the calibration pipeline runs end to end on real measurements on machines without GPUs.
//
//   mpirun -np 4 syncsim-bench-mpi -b 8 -e 64M -f 2 -w 5 -n 20 --op allreduce --out-dir out/
//
// Each rank is one "device" (`device` = its index on its host, `[cpu]`, the CPU model). Times are per operation,
// averaged over the timed iterations and then over the ranks, as nccl-tests does. Exit codes: 0 success, 2 bad
// flags, 1 wrong results (after writing them).
#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mpi_collective.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/bench_options.hpp"
#include "syncsim/validation/nccl_tests_writer.hpp"

namespace syncsim {
namespace {

constexpr const char* kTool = "syncsim-bench-mpi";
constexpr int kNameChars = 256;  // host and CPU names as gathered, truncated

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return "CPU " + line.substr(colon + 2);
    }
  }
  return "CPU";
}

// Every rank's host, pid and CPU, gathered on all ranks (each rank builds the same log).
std::vector<NcclTestsRank> gather_ranks(int ranks) {
  std::vector<char> host(kNameChars, '\0');
  int length = 0;
  std::vector<char> processor(MPI_MAX_PROCESSOR_NAME + 1, '\0');
  MPI_Get_processor_name(processor.data(), &length);
  std::copy_n(processor.begin(), std::min(length, kNameChars - 1), host.begin());
  std::vector<char> cpu(kNameChars, '\0');
  const std::string model = cpu_model();
  std::copy_n(model.begin(), std::min<std::size_t>(model.size(), kNameChars - 1), cpu.begin());
  const long long pid = ::getpid();

  std::vector<char> hosts(static_cast<std::size_t>(kNameChars) * ranks);
  std::vector<char> cpus(static_cast<std::size_t>(kNameChars) * ranks);
  std::vector<long long> pids(static_cast<std::size_t>(ranks));
  MPI_Allgather(host.data(), kNameChars, MPI_CHAR, hosts.data(), kNameChars, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Allgather(cpu.data(), kNameChars, MPI_CHAR, cpus.data(), kNameChars, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Allgather(&pid, 1, MPI_LONG_LONG, pids.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);

  std::vector<NcclTestsRank> list;
  for (int r = 0; r < ranks; ++r) {
    NcclTestsRank rank;
    rank.rank = r;
    rank.host = std::string(hosts.data() + static_cast<std::ptrdiff_t>(r) * kNameChars);
    rank.pid = pids[static_cast<std::size_t>(r)];
    rank.device = static_cast<int>(
        std::count_if(list.begin(), list.end(), [&](const NcclTestsRank& other) { return other.host == rank.host; }));
    rank.bus_id = "cpu";
    rank.device_name = std::string(cpus.data() + static_cast<std::ptrdiff_t>(r) * kNameChars);
    list.push_back(rank);
  }
  return list;
}

// Warm-up, then `iters` timed operations; the time per operation averaged over ranks.
double time_placement(MpiCollective& collective, std::int64_t count, bool in_place, const BenchPlan& plan, int ranks) {
  for (int i = 0; i < plan.warmup_iters; ++i) collective.run(count, in_place);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < plan.iters; ++i) collective.run(count, in_place);
  double seconds = (MPI_Wtime() - start) / plan.iters;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return seconds / ranks;
}

std::int64_t check_placement(MpiCollective& collective, std::int64_t count, bool in_place) {
  collective.fill(count, in_place);
  collective.run(count, in_place);
  long long wrong = collective.count_wrong(count);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return wrong;
}

NcclTestsLog measure(CollectiveOp op, const BenchPlan& plan, const std::vector<NcclTestsRank>& ranks) {
  NcclTestsLog log;
  log.source = kTool;
  log.collective = op;
  log.rank_list = ranks;
  describe_system(log);
  log.parameters = format_nccl_tests_parameters(plan.range.min, plan.range.max, plan.range.factor, plan.warmup_iters,
                                                plan.iters, plan.check);
  const auto n = static_cast<std::size_t>(log.ranks);
  const CollectiveRow largest = make_row(op, n, plan.sizes.back(), plan.root);
  MpiCollective collective(op, MPI_COMM_WORLD, plan.root, largest.count);
  for (const Bytes size : plan.sizes) {
    const CollectiveRow shape = make_row(op, n, size, plan.root);
    if (!log.rows.empty() && shape.size.value == log.rows.back().size_bytes) continue;  // rounded to the same size
    NcclTestsRow row;
    row.size_bytes = shape.size.value;
    row.count = shape.count;
    row.type = shape.type;
    row.redop = shape.redop;
    row.root = shape.root;
    for (const bool in_place : {false, true}) {
      collective.fill(shape.count, in_place);  // sane values to time on
      const double seconds = time_placement(collective, shape.count, in_place, plan, log.ranks);
      const std::optional<std::int64_t> wrong =
          plan.check ? std::optional<std::int64_t>(check_placement(collective, shape.count, in_place)) : std::nullopt;
      (in_place ? row.in_place : row.out_of_place) = measured_placement(op, log.ranks, row.size_bytes, seconds, wrong);
    }
    log.rows.push_back(row);
  }
  std::int64_t wrong = 0;
  for (const NcclTestsRow& row : log.rows) {
    wrong += static_cast<std::int64_t>(row.out_of_place.wrong.value_or(0) + row.in_place.wrong.value_or(0));
  }
  log.out_of_bounds = wrong;
  log.avg_busbw_gbps = average_busbw_gbps(log);
  return log;
}

std::string mpi_library() {
  std::vector<char> text(MPI_MAX_LIBRARY_VERSION_STRING + 1, '\0');
  int length = 0;
  MPI_Get_library_version(text.data(), &length);
  std::string version(text.data());
  return version.substr(0, version.find_first_of("\n,"));
}

int run(int argc, char** argv, int rank, int ranks) {
  CLI::App app{"Real MPI collectives over CPU ranks, printed as nccl-tests prints its tables.", kTool};
  BenchFlags flags;
  flags.max_bytes = "32M";
  add_bench_options(app, flags);
  app.footer("Example: mpirun -np 4 syncsim-bench-mpi -b 8 -e 64M -f 2 --op allreduce,all_gather --out-dir out");
  BenchPlan plan;
  try {
    app.parse(argc, argv);
    plan = make_bench_plan(flags);
    if (plan.root >= ranks) {
      throw InputError(fmt::format("root {} is not one of the {} ranks", plan.root, ranks), SourceLocation{"-r"});
    }
    for (const CollectiveOp op : plan.ops) {
      if (make_row(op, static_cast<std::size_t>(ranks), plan.sizes.back(), plan.root).count > INT_MAX) {
        throw InputError("MPI counts are int: the largest size is too large", SourceLocation{"-e"});
      }
    }
  } catch (const CLI::Success& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (rank == 0) std::cerr << kTool << ": error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const InputError& e) {
    if (rank == 0) std::cerr << kTool << ": error: " << e.what() << '\n';
    return 2;
  }

  const std::vector<NcclTestsRank> rank_list = gather_ranks(ranks);
  std::vector<NcclTestsLog> logs;
  std::int64_t wrong = 0;
  for (const CollectiveOp op : plan.ops) {
    logs.push_back(measure(op, plan, rank_list));
    wrong += logs.back().out_of_bounds.value_or(0);
    if (rank == 0) {
      write_nccl_tests_log(std::cout, logs.back());
      std::cout.flush();
    }
  }
  if (rank != 0) return wrong == 0 ? 0 : 1;
  try {
    nlohmann::json extra = {
        {"mpi_library", mpi_library()}, {"iterations", plan.iters}, {"warmup_iterations", plan.warmup_iters}};
    write_bench_outputs(plan, kTool, logs, extra);
  } catch (const InputError& e) {
    std::cerr << kTool << ": error: " << e.what() << '\n';
    return 2;
  }
  if (wrong != 0) {
    std::cerr << kTool << ": " << wrong << " wrong result elements: the MPI library returned wrong results\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace syncsim

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int code = syncsim::run(argc, argv, rank, ranks);
  // Rank 0 alone prints errors; no rank exits before it has, since mpirun kills the other ranks as soon as one
  // exits non-zero and an unprinted message would be lost.
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}
