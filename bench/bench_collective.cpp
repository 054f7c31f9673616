// Wall time and peak memory of one simulated collective, e.g.
//   bench_collective --topology switch:n=1024,bw=100Gbps,lat=5us --size 1GiB [--per-flow] [--op allreduce]
//                    [--channels auto|N]
// prints one line: topology, op, size, path, simulated time, flows, events, wall seconds, peak RSS in MB.
// Without --channels, one ring on the executor (time_collective); with it, NCCL-style channels through
// simulate_collective (several channels run in lockstep, lockstep_runner.hpp; events are not counted there).
// bench/compare.sh runs the matrix that docs/performance.md reports.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "syncsim/collectives/collective_executor.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/topology_spec.hpp"

int main(int argc, char** argv) {
  std::string spec = "switch:n=1024,bw=100Gbps,lat=5us";
  std::string size_text = "1GiB";
  std::string op_text = "allreduce";
  bool per_flow = false;
  std::optional<std::string> channels_text;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--topology" && i + 1 < argc) {
      spec = argv[++i];
    } else if (arg == "--size" && i + 1 < argc) {
      size_text = argv[++i];
    } else if (arg == "--op" && i + 1 < argc) {
      op_text = argv[++i];
    } else if (arg == "--channels" && i + 1 < argc) {
      channels_text = argv[++i];
    } else if (arg == "--per-flow") {
      per_flow = true;
    } else {
      std::cerr
          << "usage: bench_collective [--topology SPEC] [--size SIZE] [--op OP] [--per-flow] [--channels auto|N]\n";
      return 2;
    }
  }
  try {
    const auto wall_start = std::chrono::steady_clock::now();
    const syncsim::Topology topology = syncsim::build_topology(spec, "--topology");
    syncsim::Router router(topology);
    const auto op = syncsim::parse_collective_op(op_text);
    syncsim::CollectiveTiming timing;
    std::string path = per_flow ? "per-flow" : "bulk";
    if (channels_text) {
      syncsim::CollectiveSpec collective;
      collective.op = op;
      collective.size = syncsim::parse_bytes(size_text);
      collective.algorithm = syncsim::Algorithm::ring;
      collective.bulk = !per_flow;
      if (*channels_text != "auto") collective.channels = static_cast<std::uint32_t>(std::stoul(*channels_text));
      const syncsim::CollectiveOutcome outcome = syncsim::simulate_collective(router, collective);
      timing.time = outcome.time;
      timing.stats = outcome.stats;
      path = fmt::format("{}x{}", outcome.channels, per_flow ? "per-flow" : "lockstep");
    } else {
      const syncsim::RingPlan plan(op, topology.gpu_count(), syncsim::parse_bytes(size_text));
      syncsim::ExecutorOptions options;
      options.bulk = !per_flow;
      timing = syncsim::time_collective(router, plan, options);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    fmt::print("{:<36} {:<10} {:>8} {:<11} sim {:>12} flows {:>10} events {:>10} wall {:7.3f} s peak_rss {:6.1f} MB\n",
               spec, op_text, size_text, path, syncsim::format_duration(timing.time), timing.stats.flows, timing.events,
               wall, static_cast<double>(usage.ru_maxrss) / 1024.0);
  } catch (const syncsim::InputError& e) {
    std::cerr << "bench_collective: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
