// A workspace keeps the collectives its runs simulated, by what they depend on: a topology file edited between two
// runs is a new network (the stale-cache bug: a cache keyed by the file's path kept the old network's times), and
// the same scenario run twice is simulated once.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <unistd.h>

#include "syncsim/core/run_cost.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/topology/topology_spec.hpp"

using namespace syncsim;

namespace {

// Four GPUs on one switch, every link at `bandwidth`.
void write_switch_dot(const std::filesystem::path& file, const std::string& bandwidth) {
  std::ofstream out(file);
  out << "graph four {\n  sw [kind=network_switch];\n";
  for (int g = 0; g < 4; ++g) {
    out << fmt::format("  gpu{0} [kind=gpu, rank={0}];\n  gpu{0} -- sw [bw=\"{1}\", lat=\"5us\", kind=network];\n", g,
                       bandwidth);
  }
  out << "}\n";
}

Scenario file_scenario(const std::filesystem::path& dot) {
  return parse_scenario(fmt::format("name: four\n"
                                    "cluster: {{gpu: A100-SXM4-80GB, topology: \"file:path={}\"}}\n"
                                    "model: {{name: resnet50, batch_per_gpu: 64, precision: fp16}}\n"
                                    "training: {{strategy: sync, iterations: 3, overlap: false}}\n",
                                    dot.string()),
                        "four.yaml");
}

// One folder per process: two test runs on one machine (two build trees, ctest -j) must not share it.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("a topology file edited between two runs of one workspace gives the new network's times", "[workspace]") {
  const TempDir dir("syncsim-workspace-test-edit");
  const std::filesystem::path dot = dir.path / "four.dot";
  run::Workspace workspace;

  write_switch_dot(dot, "100Gbps");
  const TrainingReport fast = run::run_scenario(file_scenario(dot), workspace).report;
  write_switch_dot(dot, "1Gbps");  // same path, a hundred times slower
  const TrainingReport slow = run::run_scenario(file_scenario(dot), workspace).report;

  // ResNet-50's 51 MB of fp16 gradients over 1 Gbps: the AllReduce alone is hundreds of milliseconds.
  CHECK(slow.iteration_mean > fast.iteration_mean * 10);
  run::Workspace fresh;
  CHECK(to_json(slow) == to_json(run::run_scenario(file_scenario(dot), fresh).report));
}

TEST_CASE("the same scenario twice on one workspace is simulated once and reports the same", "[workspace]") {
  const TempDir dir("syncsim-workspace-test-twice");
  const std::filesystem::path dot = dir.path / "four.dot";
  write_switch_dot(dot, "100Gbps");
  run::Workspace workspace;

  const run::RunOutput first = run::run_scenario(file_scenario(dot), workspace);
  const std::size_t simulated = workspace.collectives().size();
  REQUIRE(simulated > 0);
  CHECK(workspace.collectives().hits() == 0);

  const run::RunOutput second = run::run_scenario(file_scenario(dot), workspace);
  CHECK(workspace.collectives().size() == simulated);  // nothing new
  CHECK(workspace.collectives().hits() == simulated);  // every collective found
  CHECK(to_json(second.report) == to_json(first.report));
  CHECK(to_json(run::run_scenario(file_scenario(dot)).report) == to_json(first.report));  // a fresh workspace
}

TEST_CASE("a topology's digest follows its contents, not its description", "[workspace]") {
  const auto pair = [](double gbps, double latency_ns) {
    Topology t;
    const NodeId g0 = t.add_node(Node{"gpu0", NodeKind::gpu, SimTime::zero(), std::nullopt});
    const NodeId g1 = t.add_node(Node{"gpu1", NodeKind::gpu, SimTime::zero(), std::nullopt});
    t.add_duplex_link(g0, g1, Bandwidth::from_gbps(gbps), SimTime::from_ns(latency_ns), LinkKind::network);
    return t;
  };
  const Topology a = pair(100, 5000);
  Topology renamed = a;
  renamed.set_description("another name for the same machine");
  CHECK(run::digest(renamed) == run::digest(a));
  CHECK(run::digest(pair(100, 5000)) == run::digest(a));
  CHECK_FALSE(run::digest(pair(1, 5000)) == run::digest(a));
  CHECK_FALSE(run::digest(pair(100, 5001)) == run::digest(a));  // 1 ns more latency
}

TEST_CASE(
    "a degraded network's collectives are kept under its own state: never the intact network's, found again "
    "by the next run",
    "[workspace]") {
  const auto scenario = [](const std::string& degraded) {
    return parse_scenario(
        "name: degraded\n"
        "cluster: {gpu: A100-SXM4-80GB, topology: {kind: dgx, nodes: 2, gpus: 4, nic_bw: 100Gbps}}\n"
        "model: {name: resnet50, batch_per_gpu: 32, precision: fp16}\n"
        "training: {strategy: sync, algorithm: ring, iterations: 6}\n" +
            degraded,
        "degraded.yaml");
  };
  const std::string window = "degraded_links:\n  - {between: [nic0, leaf0], factor: 0.1, from: 0s, until: 1h}\n";
  run::Workspace workspace;
  const TrainingReport intact = run::run_scenario(scenario(""), workspace).report;
  const std::size_t intact_entries = workspace.collectives().size();
  const TrainingReport slow = run::run_scenario(scenario(window), workspace).report;
  // The degraded state is a network of its own: new entries, and a slower iteration than the intact one's.
  const std::size_t degraded_entries = workspace.collectives().size();
  CHECK(degraded_entries > intact_entries);
  CHECK(slow.iteration_mean > intact.iteration_mean);
  // Run again: every degraded collective is found, and the report is the one a fresh workspace gives.
  const std::size_t hits = workspace.collectives().hits();
  const TrainingReport again = run::run_scenario(scenario(window), workspace).report;
  CHECK(workspace.collectives().size() == degraded_entries);
  CHECK(workspace.collectives().hits() > hits);
  CHECK(to_json(again) == to_json(slow));
  CHECK(to_json(run::run_scenario(scenario(window)).report) == to_json(slow));
}

TEST_CASE("symmetry classes off give the same report byte for byte", "[workspace]") {
  const Scenario scenario = parse_scenario(
      "name: symmetric\n"
      "cluster: {gpu: H100-SXM-80GB, topology: {kind: dgx, nodes: 64, gpus: 8}}\n"
      "model: {name: resnet50, batch_per_gpu: 64, precision: bf16}\n"
      "training: {strategy: sync, algorithm: ring, iterations: 2}\n",
      "symmetric.yaml");
  run::Workspace on;
  run::Workspace off;
  off.set_symmetry(false);
  CHECK(to_json(run::run_scenario(scenario, on).report) == to_json(run::run_scenario(scenario, off).report));
}

TEST_CASE("a thread's next run on an equal topology takes over its router, another thread or topology does not",
          "[workspace]") {
  run::Workspace workspace;
  auto first = std::make_shared<const Topology>(build_topology("fattree:n=16,radix=8,tiers=2,bw=100Gbps"));
  auto equal = std::make_shared<const Topology>(build_topology("fattree:n=16,radix=8,tiers=2,bw=100Gbps"));
  auto other = std::make_shared<const Topology>(build_topology("fattree:n=16,radix=8,tiers=2,bw=200Gbps"));
  REQUIRE(run::digest(*first) == run::digest(*equal));
  const std::shared_ptr<Router> kept = workspace.router(first, run::digest(*first), 1'000'000);
  const Route& route = kept->gpu_route(0, 15);

  // The same contents on the same thread: the kept router, routes and all, over the kept topology.
  auto taken = equal;
  const std::shared_ptr<Router> again = workspace.router(taken, run::digest(*equal), 1'000'000);
  CHECK(again == kept);
  CHECK(taken == first);
  CHECK(&again->gpu_route(0, 15) == &route);

  // Another thread gets its own.
  std::shared_ptr<Router> elsewhere;
  std::thread([&] {
    auto mine = equal;
    elsewhere = workspace.router(mine, run::digest(*equal), 1'000'000);
  }).join();
  CHECK(elsewhere != kept);

  // Another network replaces the thread's router; the first is built again when asked again.
  auto changed = other;
  CHECK(workspace.router(changed, run::digest(*other), 1'000'000) != kept);
  CHECK(changed == other);
  CHECK(workspace.router(taken, run::digest(*first), 1'000'000) != kept);
}

TEST_CASE("a kept router's route-search budget starts again for each run that takes it over", "[workspace]") {
  run::Workspace workspace;
  auto topology = std::make_shared<const Topology>(build_topology("fattree:n=64,radix=16,tiers=2,bw=100Gbps"));
  const run::TopologyDigest key = run::digest(*topology);
  // Every GPU's route to GPU `to`: a run's searches; runs to different GPUs search as much as each other.
  const auto search = [](Router& router, std::size_t to) {
    for (std::size_t g = 0; g < 64; ++g) {
      if (g != to) router.gpu_route(g, to);
    }
  };
  // The smallest power of two one run's searches fit in: two runs' do not.
  std::uint64_t budget = 1;
  for (;; budget *= 2) {
    Router sized(*topology, budget);
    try {
      search(sized, 0);
      break;
    } catch (const RunCostExceeded&) {
    }
  }
  for (std::size_t run = 0; run < 4; ++run) {
    const std::shared_ptr<Router> router = workspace.router(topology, key, budget);
    CHECK_NOTHROW(search(*router, run));
  }
}
