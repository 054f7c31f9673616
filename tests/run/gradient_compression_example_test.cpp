// examples/vgg16-gradient-compression.yaml's conclusions, as its header states them, and compression's report
// against its closed forms on the run's own buckets.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {
namespace {

TrainingReport run_with(const std::string& compression, std::vector<std::string> more = {}) {
  more.push_back("training.gradient_compression=" + compression);
  const std::string file = std::string(SYNCSIM_EXAMPLES_DIR "/vgg16-gradient-compression.yaml");
  return run::run_scenario(load_scenario(file, more)).report;
}

std::int64_t updates_to_target(const TrainingReport& r) {
  REQUIRE(r.convergence.has_value());
  REQUIRE(r.convergence->updates_to_target.has_value());
  return *r.convergence->updates_to_target;
}

}  // namespace

TEST_CASE("vgg16-gradient-compression: on 25 Gb/s, PowerSGD with error feedback wins time to target") {
  const TrainingReport none = run_with("none");
  const TrainingReport fp16 = run_with("fp16");
  const TrainingReport powersgd = run_with("{kind: powersgd, rank: 1}");
  const TrainingReport powersgd_no_feedback = run_with("{kind: powersgd, rank: 1, error_feedback: false}");
  const TrainingReport topk = run_with("{kind: topk, ratio: 0.01}");
  const TrainingReport topk_no_feedback = run_with("{kind: topk, ratio: 0.01, error_feedback: false}");

  // Plain AllReduce is the bottleneck: most of the iteration is exposed communication.
  CHECK(none.exposed_communication_share > 0.8);
  CHECK_FALSE(none.compression.has_value());

  // fp16 of fp32 gradients: half the bus bytes, and about half the time.
  REQUIRE(fp16.compression.has_value());
  CHECK(fp16.compression->bus_bytes_per_gpu == Approx(fp16.compression->plain_bus_bytes_per_gpu / 2).epsilon(1e-9));
  CHECK(fp16.iteration_mean < none.iteration_mean.scaled(0.6));

  // PowerSGD rank 1: over 1,000x fewer bytes, the iteration near compute-bound, and the same updates to target.
  REQUIRE(powersgd.compression.has_value());
  CHECK(powersgd.compression->plain_bus_bytes_per_gpu > 1000 * powersgd.compression->bus_bytes_per_gpu);
  CHECK(powersgd.scaling_efficiency > 0.85);
  CHECK(powersgd.compression->encode > SimTime::zero());
  CHECK(updates_to_target(powersgd) <= updates_to_target(none) * 11 / 10);
  CHECK(*powersgd.convergence->time_to_target < none.convergence->time_to_target->scaled(0.2));
  // Without error feedback the low-rank gradient loses what it leaves out: more updates to the same loss.
  CHECK(updates_to_target(powersgd_no_feedback) > updates_to_target(powersgd) * 3 / 2);

  // top-k at 1%: the AllGather of values and indices is only a few times smaller than the AllReduce at 32 GPUs.
  REQUIRE(topk.compression.has_value());
  const double topk_gain = topk.compression->plain_bus_bytes_per_gpu / topk.compression->bus_bytes_per_gpu;
  CHECK(topk_gain > 2);
  CHECK(topk_gain < 5);
  CHECK(topk.iteration_mean < none.iteration_mean);
  CHECK(topk.iteration_mean > powersgd.iteration_mean);
  CHECK(updates_to_target(topk) <= updates_to_target(none) * 12 / 10);
  REQUIRE(topk_no_feedback.convergence.has_value());
  CHECK_FALSE(topk_no_feedback.convergence->time_to_target.has_value());
}

TEST_CASE("vgg16-gradient-compression: on one server's NVLink every hook is slower than none") {
  const std::vector<std::string> one_server{"cluster.topology.nodes=1"};
  const TrainingReport none = run_with("none", one_server);
  for (const char* kind : {"fp16", "powersgd", "topk"}) {
    CAPTURE(kind);
    CHECK(run_with(kind, one_server).iteration_mean > none.iteration_mean);
  }
}

TEST_CASE("vgg16-gradient-compression: top-k's AllGather grows with the job, past the plain AllReduce") {
  // At 1% of fp32 gradients top-k moves 0.01 d of the AllReduce's bus bytes: less at 32 GPUs, more at 128.
  const std::vector<std::string> sixteen_servers{"cluster.topology.nodes=16", "training.iterations=20"};
  const TrainingReport none = run_with("none", sixteen_servers);
  const TrainingReport topk = run_with("topk", sixteen_servers);
  REQUIRE(topk.compression.has_value());
  CHECK(topk.compression->bus_bytes_per_gpu ==
        Approx(0.01 * 128 * topk.compression->plain_bus_bytes_per_gpu).epsilon(0.01));
  CHECK(topk.iteration_mean > none.iteration_mean);
}

TEST_CASE("gradient compression's report: wire bytes by bucket, start_iteration's plain iterations") {
  const TrainingReport r = run_with("{kind: powersgd, rank: 2, start_iteration: 100}", {"training.iterations=200"});
  REQUIRE(r.compression.has_value());
  Bytes wire;
  for (const BucketReport& b : r.buckets) {
    REQUIRE(b.compressed.has_value());
    wire += b.compressed->wire_bytes;
    CHECK(b.compressed->sync_time > SimTime::zero());
  }
  CHECK(wire == r.compression->wire_bytes);
  // Half the iterations plain, half compressed: the data group's bytes are their mean.
  REQUIRE(r.group_communication.size() == 1);
  CHECK(r.group_communication[0].bytes_per_gpu ==
        Approx((r.compression->plain_bus_bytes_per_gpu + r.compression->bus_bytes_per_gpu) / 2).epsilon(1e-9));
  // The plain iterations come first: the 99th percentile is a plain one, the median a compressed one.
  CHECK(r.iteration_p99 > r.iteration_p50.scaled(3));
}

}  // namespace syncsim
