// syncsim-bench-nccl: real NCCL collectives on the local GPUs, swept over message sizes and printed in nccl-tests'
// table layout; with --compute, a compute calibration (compute_bench.hpp: cuBLAS GEMMs per precision and shape,
// memory bandwidth, optionally a sustained GEMM + copy loop) too.
//
//   syncsim-bench-nccl -b 8 -e 8G -f 2 --op all --compute --out-dir measurements/
//   syncsim-bench-nccl --compute-only --gemm-shapes 4096x6144x4096,4096x4096x4096 --gemm-sustained 30
//
// One process drives every local GPU (ncclCommInitAll), one rank per GPU. With --out-dir, NCCL's own view is
// recorded beside the results: its topology (NCCL_TOPO_DUMP_FILE), its rings and trees (NCCL_GRAPH_DUMP_FILE)
// and its INIT/GRAPH/TUNING log (NCCL_DEBUG_FILE). Without a GPU it says so in one line and exits 77 (ctest's
// skip code); flags are checked before that, so a bad flag exits 2 on any machine. Exit codes: 0 success, 2 bad
// flags, 1 CUDA/NCCL failure or wrong results.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "compute_bench.hpp"
#include "cuda_check.hpp"
#include "nccl_collective.hpp"
#include "syncsim/collectives/nccl_tests_table.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/bench_options.hpp"
#include "syncsim/validation/nccl_tests_writer.hpp"

namespace syncsim {
namespace {

constexpr const char* kTool = "syncsim-bench-nccl";

struct Options {
  BenchFlags bench;
  int gpus = 0;  // 0: all
  bool compute = false;
  bool compute_only = false;
  std::vector<int> gemm_sizes{1024, 2048, 4096, 8192};
  std::vector<std::string> gemm_shapes;  // as given; empty: the defaults (gemm_shapes.hpp)
  int gemm_sustained_s = 0;
};

// The most seconds --gemm-sustained takes: an hour is far beyond any clock's settling time.
constexpr int kMaxSustainedSeconds = 3600;

cuda::ComputeOptions compute_options(const Options& options, const BenchPlan& plan) {
  cuda::ComputeOptions compute;
  compute.gemm_sizes = options.gemm_sizes;
  compute.gemm_shapes = options.gemm_shapes.empty() ? cuda::default_gemm_shapes()
                                                    : cuda::parse_gemm_shapes(options.gemm_shapes, "--gemm-shapes");
  compute.sustained_seconds = options.gemm_sustained_s;
  compute.warmup = std::max(plan.warmup_iters, 1);
  compute.iters = plan.iters;
  if (compute.sustained_seconds > 0 && !options.compute && !options.compute_only) {
    throw InputError("the sustained GEMM loop is part of the compute calibration: add --compute or --compute-only",
                     SourceLocation{"--gemm-sustained"});
  }
  return compute;
}

std::string version_text(int code) {
  // NCCL 2.9 and later encode major * 10000 + minor * 100 + patch; CUDA major * 1000 + minor * 10.
  return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
}

std::string cuda_version_text(int code) {
  return fmt::format("{}.{}", code / 1000, code % 1000 / 10);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

// NCCL reads these at init: its topology, its graphs and its tuning decisions land beside the results.
nlohmann::json record_nccl_view(const std::string& out_dir) {
  const std::string dir = std::filesystem::absolute(out_dir).string();
  const nlohmann::json files = {{"topology", dir + "/nccl-topo.xml"},
                                {"graph", dir + "/nccl-graph.xml"},
                                {"debug_log", dir + "/nccl-debug.%h.%p.log"}};
  ::setenv("NCCL_TOPO_DUMP_FILE", files["topology"].get<std::string>().c_str(), 1);
  ::setenv("NCCL_GRAPH_DUMP_FILE", files["graph"].get<std::string>().c_str(), 1);
  ::setenv("NCCL_DEBUG", "INFO", 1);
  ::setenv("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,TUNING,ENV", 1);
  ::setenv("NCCL_DEBUG_FILE", files["debug_log"].get<std::string>().c_str(), 1);
  return files;
}

nlohmann::json describe_devices(const std::vector<int>& devices, std::vector<NcclTestsRank>& ranks) {
  nlohmann::json list = nlohmann::json::array();
  const std::string host = host_name();
  for (std::size_t r = 0; r < devices.size(); ++r) {
    cudaDeviceProp props{};
    SYNCSIM_CUDA(cudaGetDeviceProperties(&props, devices[r]));
    char bus[32] = {};
    SYNCSIM_CUDA(cudaDeviceGetPCIBusId(bus, sizeof(bus), devices[r]));
    ranks.push_back({static_cast<int>(r), host, ::getpid(), devices[r], bus, props.name});
    list.push_back({{"device", devices[r]},
                    {"name", props.name},
                    {"bus_id", bus},
                    {"memory_bytes", props.totalGlobalMem},
                    {"multiprocessors", props.multiProcessorCount},
                    {"compute_capability", fmt::format("{}.{}", props.major, props.minor)}});
  }
  return list;
}

NcclTestsLog measure(CollectiveOp op, const BenchPlan& plan, cuda::NcclDevices& devices,
                     const std::vector<NcclTestsRank>& ranks) {
  NcclTestsLog log;
  log.source = kTool;
  log.collective = op;
  log.rank_list = ranks;
  describe_system(log);
  log.parameters = format_nccl_tests_parameters(plan.range.min, plan.range.max, plan.range.factor, plan.warmup_iters,
                                                plan.iters, plan.check);
  const auto n = static_cast<std::size_t>(log.ranks);
  cuda::NcclCollective collective(op, devices, plan.root, make_row(op, n, plan.sizes.back(), plan.root).count);
  std::int64_t wrong = 0;
  for (const Bytes size : plan.sizes) {
    const CollectiveRow shape = make_row(op, n, size, plan.root);
    if (!log.rows.empty() && shape.size.value == log.rows.back().size_bytes) continue;  // rounded to the same size
    NcclTestsRow row{shape.size.value, shape.count, shape.type, shape.redop, shape.root, {}, {}, 0};
    for (const bool in_place : {false, true}) {
      collective.fill(shape.count, in_place);
      const double seconds = collective.time(shape.count, in_place, plan.warmup_iters, plan.iters);
      std::optional<std::int64_t> found;
      if (plan.check && collective.checks(in_place)) found = collective.check(shape.count, in_place);
      wrong += found.value_or(0);
      (in_place ? row.in_place : row.out_of_place) = measured_placement(op, log.ranks, row.size_bytes, seconds, found);
    }
    log.rows.push_back(row);
  }
  log.out_of_bounds = wrong;
  log.avg_busbw_gbps = average_busbw_gbps(log);
  return log;
}

int run(const Options& options, const BenchPlan& plan, const cuda::ComputeOptions& compute_plan) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::cerr << kTool << ": no CUDA GPU available ("
              << (status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount found 0 devices") << ")\n";
    return 77;
  }
  if (options.gpus > count) {
    throw InputError(fmt::format("{} GPUs asked for, {} found", options.gpus, count), SourceLocation{"--gpus"});
  }
  std::vector<int> devices(static_cast<std::size_t>(options.gpus > 0 ? options.gpus : count));
  for (std::size_t i = 0; i < devices.size(); ++i) devices[i] = static_cast<int>(i);
  if (plan.root >= static_cast<int>(devices.size())) {
    throw InputError(fmt::format("root {} is not one of the {} ranks", plan.root, devices.size()),
                     SourceLocation{"-r"});
  }

  nlohmann::json extra;
  if (!plan.out_dir.empty()) {
    std::filesystem::create_directories(plan.out_dir);
    extra["nccl_files"] = record_nccl_view(plan.out_dir);
  }
  int nccl_version = 0;
  int runtime_version = 0;
  int driver_version = 0;
  SYNCSIM_NCCL(ncclGetVersion(&nccl_version));
  SYNCSIM_CUDA(cudaRuntimeGetVersion(&runtime_version));
  SYNCSIM_CUDA(cudaDriverGetVersion(&driver_version));
  extra["nccl_version"] = version_text(nccl_version);
  extra["cuda_runtime_version"] = cuda_version_text(runtime_version);
  extra["cuda_driver_version"] = cuda_version_text(driver_version);
  extra["host"] = host_name();
  extra["iterations"] = plan.iters;
  extra["warmup_iterations"] = plan.warmup_iters;
  std::vector<NcclTestsRank> ranks;
  extra["devices"] = describe_devices(devices, ranks);
  std::cout << fmt::format("# {}: NCCL {}, CUDA runtime {}, driver {}, {} GPU(s)\n", kTool,
                           extra["nccl_version"].get<std::string>(), extra["cuda_runtime_version"].get<std::string>(),
                           extra["cuda_driver_version"].get<std::string>(), devices.size());

  std::vector<NcclTestsLog> logs;
  std::int64_t wrong = 0;
  if (!options.compute_only) {
    cuda::NcclDevices nccl(devices);
    for (const CollectiveOp op : plan.ops) {
      logs.push_back(measure(op, plan, nccl, ranks));
      wrong += logs.back().out_of_bounds.value_or(0);
      write_nccl_tests_log(std::cout, logs.back());
      std::cout.flush();
    }
  }
  if (options.compute || options.compute_only) {
    const cuda::ComputeCalibration compute = cuda::measure_compute(devices.front(), compute_plan);
    cuda::print_compute(std::cout, compute);
    extra["compute"] = cuda::to_json(compute);
  }
  write_bench_outputs(plan, kTool, logs, extra);
  if (wrong != 0) {
    std::cerr << kTool << ": " << wrong << " wrong result elements: NCCL returned wrong results\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace syncsim

int main(int argc, char** argv) {
  using namespace syncsim;
  CLI::App app{"Real NCCL collectives on the local GPUs, printed as nccl-tests prints its tables.", kTool};
  Options options;
  add_bench_options(app, options.bench);
  app.add_option("--gpus", options.gpus, "Use the first N GPUs (default: all)")->check(CLI::NonNegativeNumber);
  app.add_flag("--compute", options.compute,
               "Also measure GEMM throughput per precision and shape, and memory bandwidth");
  app.add_flag("--compute-only", options.compute_only, "Only the compute calibration, no collectives");
  app.add_option("--gemm-sizes", options.gemm_sizes, "Square GEMM sizes of the compute calibration")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--gemm-shapes", options.gemm_shapes,
                 "GEMM shapes MxNxK of the compute calibration, timed in bf16 and fp8 (cuBLASLt, TN); 'none' for none "
                 "(default: the forward GEMMs of Llama 3 8B/70B/405B on one TP rank, 48 shapes)")
      ->delimiter(',');
  app.add_option("--gemm-sustained", options.gemm_sustained_s,
                 "Seconds of a sustained bf16 8192^3 GEMM + 1 GiB copy loop, TFLOP/s per second (default 0: off)")
      ->check(CLI::Range(0, kMaxSustainedSeconds));
  app.footer("Example: syncsim-bench-nccl -b 8 -e 8G -f 2 --op all --compute --out-dir measurements/h200");
  BenchPlan plan;
  cuda::ComputeOptions compute;
  try {
    app.parse(argc, argv);
    plan = make_bench_plan(options.bench);
    compute = compute_options(options, plan);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << kTool << ": error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << kTool << ": error: " << e.what() << '\n';
    return 2;
  }
  try {
    return run(options, plan, compute);
  } catch (const InputError& e) {
    std::cerr << kTool << ": error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << kTool << ": " << e.what() << '\n';
    return 1;
  }
}
