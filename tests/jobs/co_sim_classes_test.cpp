// Classes of alike rings in the co-simulation (co_sim_classes.hpp): components of rings that share no link, alike
// ones simulated once, give the full co-simulation's times to the picosecond; copies of a ring run as one ring of
// k-fold bytes give them up to floating-point order.
//
// The fabric: dgx nodes=8 of 8 GPUs, rail-optimized, radix 4 (a rail's leaves hold 2 nodes each) and 2:1
// oversubscribed (one uplink a leaf). Two jobs of 4 nodes, interleaved over the leaves: a on nodes 0, 2, 4, 6 and b on
// 1, 3, 5, 7. Each job runs, on every rail t, one ring over GPU t of its nodes as NCCL's 8 channels (copies: one GPU
// a server). Rail t's rings of a and b cross the same leaf uplinks of rail t, and no other rail's: 8 components of
// 2 x 8 channels, alike under the rotation of the rails, so 1 class; with copies, 2 channels simulated.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <limits>

#include "co_sim_classes.hpp"
#include "jobs_yaml.hpp"
#include "multi_job_sim.hpp"
#include "syncsim/collectives/ring_plan.hpp"
#include "syncsim/run/multi_job_run.hpp"
#include "syncsim/topology/topology_spec.hpp"

namespace syncsim {
namespace {

constexpr const char* kFabric = "dgx:nodes=8,gpus=8,radix=4,oversub=2,nic_bw=400Gbps";
constexpr std::uint64_t kNoCopies = std::numeric_limits<std::uint64_t>::max();

run::CoJob rail_rings(const Topology& topology, const std::vector<std::size_t>& nodes, SimTime compute,
                      SimTime offset) {
  run::CoJob job;
  job.compute = compute;
  job.offset = offset;
  const auto plan = std::make_shared<RingPlan>(CollectiveOp::allreduce, nodes.size(), Bytes{8 << 20});
  for (std::size_t rail = 0; rail < 8; ++rail) {
    std::vector<NodeId> gpus;
    for (const std::size_t n : nodes) gpus.push_back(topology.gpu(8 * n + rail));
    for (int channel = 0; channel < 8; ++channel) job.collectives.push_back({plan, gpus});
  }
  return job;
}

std::vector<run::CoJob> two_jobs(const Topology& topology, SimTime compute_a = SimTime::from_us(900),
                                 SimTime compute_b = SimTime::from_us(1300)) {
  return {rail_rings(topology, {0, 2, 4, 6}, compute_a, SimTime::zero()),
          rail_rings(topology, {1, 3, 5, 7}, compute_b, SimTime::from_us(250))};
}

run::CoSimResult simulate(const Topology& topology, Router& router, const std::vector<run::CoJob>& jobs) {
  return run::co_simulate(topology, router, jobs, {}, run::CoSimOptions{6, true, 1});
}

TEST_CASE("co-simulation classes: alike rail components simulated once give the full run's picoseconds",
          "[jobs][classes]") {
  const Topology topology = build_topology(kFabric);
  Router router(topology);
  const std::vector<run::CoJob> jobs = two_jobs(topology);
  const run::CoSimClasses classes = run::co_sim_classes(jobs, router, {}, kNoCopies);
  CHECK(classes.channels == 128);
  CHECK(classes.components == 8);
  CHECK(classes.classes == 1);
  CHECK(classes.simulated == 16);  // rail 0's rings of both jobs, every channel
  REQUIRE(classes.jobs.size() == 2);
  CHECK(classes.jobs[0].collectives.size() == 8);
  CHECK(classes.jobs[1].offset == SimTime::from_us(250));

  const run::CoSimResult full = simulate(topology, router, jobs);
  const run::CoSimResult reduced = simulate(topology, router, classes.jobs);
  CHECK(reduced.window_start == full.window_start);
  CHECK(reduced.window_end == full.window_end);
  CHECK(reduced.slowest == full.slowest);
  for (std::size_t j = 0; j < 2; ++j) {
    CHECK(reduced.jobs[j].iterations == full.jobs[j].iterations);
    CHECK(reduced.jobs[j].mean == full.jobs[j].mean);
  }
  // The jobs meet: each is slower than alone.
  const run::CoSimResult alone = simulate(topology, router, {jobs[0]});
  CHECK(full.jobs[0].mean > alone.jobs[0].mean);

  // Communication-bound (no compute): a job's next rings start at the instant its last ring ends, amid the other
  // job's events of that instant.
  const std::vector<run::CoJob> wire = two_jobs(topology, SimTime::zero(), SimTime::zero());
  const run::CoSimResult wire_full = simulate(topology, router, wire);
  const run::CoSimResult wire_reduced =
      simulate(topology, router, run::co_sim_classes(wire, router, {}, kNoCopies).jobs);
  CHECK(wire_reduced.window_end == wire_full.window_end);
  for (std::size_t j = 0; j < 2; ++j) CHECK(wire_reduced.jobs[j].mean == wire_full.jobs[j].mean);
}

TEST_CASE("co-simulation classes: copies as one ring of k-fold bytes, within floating-point order", "[jobs][classes]") {
  const Topology topology = build_topology(kFabric);
  Router router(topology);
  const std::vector<run::CoJob> jobs = two_jobs(topology);
  const run::CoSimClasses classes = run::co_sim_classes(jobs, router, {}, 0);
  CHECK(classes.classes == 1);
  CHECK(classes.simulated == 2);
  CHECK(classes.transfers == 128 * 4 * 6);
  CHECK(classes.simulated_transfers == 2 * 4 * 6);
  REQUIRE(classes.jobs[1].collectives.size() == 1);
  CHECK(classes.jobs[1].collectives[0].copies == 8);

  const run::CoSimResult full = simulate(topology, router, jobs);
  const run::CoSimResult copied = simulate(topology, router, classes.jobs);
  CHECK(copied.window_start == full.window_start);
  CHECK(copied.window_end.seconds() == Approx(full.window_end.seconds()).epsilon(1e-9));
  for (std::size_t j = 0; j < 2; ++j) {
    CHECK(copied.jobs[j].iterations == full.jobs[j].iterations);
    CHECK(copied.jobs[j].mean.seconds() == Approx(full.jobs[j].mean.seconds()).epsilon(1e-9));
  }
}

TEST_CASE("co-simulation classes: a component that background crosses is a class of its own", "[jobs][classes]") {
  const Topology topology = build_topology(kFabric);
  Router router(topology);
  const std::vector<run::CoJob> jobs = two_jobs(topology);
  // The first link of rail 3's ring of job a (GPU 3 of node 0 to its NIC).
  const Route& route = router.route(topology.gpu(3), topology.gpu(8 * 2 + 3));
  const run::CoSimClasses classes = run::co_sim_classes(jobs, router, {route.links.front()}, 0);
  CHECK(classes.components == 8);
  CHECK(classes.classes == 2);
  CHECK(classes.simulated == 2 + 16);  // rail 0's with copies as one, rail 3's every channel
}

TEST_CASE("co-simulation classes: a plan that is not a ring AllReduce leaves every channel", "[jobs][classes]") {
  const Topology topology = build_topology(kFabric);
  Router router(topology);
  std::vector<run::CoJob> jobs = two_jobs(topology);
  jobs[1].collectives.front().plan = std::make_shared<RingPlan>(CollectiveOp::all_gather, 4, Bytes{8 << 20});
  const run::CoSimClasses classes = run::co_sim_classes(jobs, router, {}, 0);
  CHECK(classes.simulated == 128);
  CHECK(classes.jobs[1].collectives.size() == 64);
}

// End to end: two tensor-parallel jobs (TP 8: data-parallel groups of one GPU a node, on one rail each), spread, with
// and without classes (and with them, each job alone for one iteration): the same report, byte for byte; with
// background on one node's NIC, too.
std::string rail_jobs(const std::string& extra) {
  const std::string job =
      "parallelism: {tensor: 8}, model: {name: llama3-8b, batch_per_gpu: 1, sequence_length: "
      "2048, precision: bf16}}\n";
  return fmt::format(
             "seed: 3\ncluster: {{gpu: H100-SXM-80GB, topology: \"{}\"}}\njobs:\n"
             "  - {{name: a, gpus: 32, {}  - {{name: b, gpus: 32, {}placement: spread\nwindow_iterations: 4\n",
             kFabric, job, job) +
         extra;
}

TEST_CASE("co-simulation classes: run_jobs with classes equals the full co-simulation, byte for byte",
          "[jobs][classes]") {
  for (const std::string extra : {"", "background: [{between: [0, 3], rate: 100Gbps}]\n"}) {
    const std::optional<JobsScenario> scenario = parse_jobs_scenario(rail_jobs(extra), "jobs.yaml");
    REQUIRE(scenario);
    const JobsReport fast = run::run_jobs(*scenario);
    const JobsReport full = run::run_jobs(*scenario, run::JobsRunOptions{.classes = false});
    CHECK(jobs_json(fast).dump() == jobs_json(full).dump());
    CHECK(fast.jobs[0].slowdown > 1.0);
    // Copies as one in every component: the same times up to floating-point order.
    const JobsReport copied = run::run_jobs(*scenario, run::JobsRunOptions{.copies_min_transfers = 0});
    for (std::size_t j = 0; j < 2; ++j) {
      CHECK(copied.jobs[j].iteration_time.seconds() == Approx(full.jobs[j].iteration_time.seconds()).epsilon(1e-9));
      CHECK(copied.jobs[j].alone_iteration_time.seconds() ==
            Approx(full.jobs[j].alone_iteration_time.seconds()).epsilon(1e-9));
    }
  }
}

}  // namespace
}  // namespace syncsim
