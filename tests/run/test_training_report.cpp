#include <catch2/catch.hpp>

#include "syncsim/training/training_report.hpp"

using namespace syncsim;

namespace {

TrainingReport sample_report() {
  TrainingReport r;
  r.scenario = "demo";
  r.workers = 2;
  r.total = SimTime::from_ps(10'000'000);  // 10 us
  r.iteration_mean = SimTime::from_ps(1'234'567);
  r.per_worker = {{.compute = SimTime::from_ps(6'000'000),
                   .optimizer = SimTime::from_ps(1'000'000),
                   .exposed_communication = SimTime::from_ps(3'000'000),
                   .straggler_wait = SimTime::zero(),
                   .framework_overhead = SimTime::zero(),
                   .overlap_interference = SimTime::zero(),
                   .pipeline_bubble = SimTime::zero(),
                   .updates = std::nullopt},
                  {.compute = SimTime::from_ps(4'000'000),
                   .optimizer = SimTime::from_ps(1'000'000),
                   .exposed_communication = SimTime::from_ps(3'000'000),
                   .straggler_wait = SimTime::from_ps(2'000'000),
                   .framework_overhead = SimTime::zero(),
                   .overlap_interference = SimTime::zero(),
                   .pipeline_bubble = SimTime::zero(),
                   .updates = std::nullopt}};
  BucketReport b;
  b.bytes = Bytes{4096};
  b.allreduce_time = SimTime::from_ps(61'363'206);
  b.algorithm = "ring";
  b.channels = 2;
  r.buckets.push_back(b);
  r.memory.fits = false;
  r.memory.allocated = Bytes{15};
  r.memory.reserved = Bytes{17};
  r.memory.cuda_context = Bytes{2};
  r.memory.nccl_buffers = Bytes{1};
  r.memory.total = Bytes{20};
  r.memory.capacity = Bytes{16};
  r.memory.shortfall = Bytes{4};
  return r;
}

}  // namespace

TEST_CASE("compute_shares averages over workers and sums to one") {
  TrainingReport r = sample_report();
  compute_shares(r);
  CHECK(r.compute_share == Approx(0.5));
  CHECK(r.optimizer_share == Approx(0.1));
  CHECK(r.exposed_communication_share == Approx(0.3));
  CHECK(r.idle_share == Approx(0.1));
  CHECK(r.compute_share + r.optimizer_share + r.exposed_communication_share + r.idle_share == Approx(1.0));
}

TEST_CASE("compute_shares of an empty run are zero") {
  TrainingReport r;
  compute_shares(r);
  CHECK(r.compute_share == 0);
  CHECK(r.idle_share == 0);
}

TEST_CASE("to_json puts units in key names and prints exact microseconds") {
  TrainingReport r = sample_report();
  compute_shares(r);
  const nlohmann::ordered_json j = to_json(r);
  CHECK(j.begin().key() == "scenario");
  CHECK(j["iteration_time_us"]["mean"].dump() == "1.234567");
  CHECK(j["total_us"].dump() == "10.0");
  CHECK(j["buckets"][0]["bytes"] == 4096);
  CHECK(j["buckets"][0]["allreduce_us"].dump() == "61.363206");
  CHECK(j["buckets"][0]["protocol"].is_null());
  CHECK(j["per_worker"][1]["idle_us"].dump() == "2.0");
  CHECK(j["memory"]["fits"] == false);
  CHECK(j["memory"]["shortfall_bytes"] == 4);
  // Both peaks as the allocator reports them, and what lies outside it.
  CHECK(j["memory"]["allocated_bytes"] == 15);
  CHECK(j["memory"]["reserved_bytes"] == 17);
  CHECK(j["memory"]["cuda_context_bytes"] == 2);
  CHECK(j["memory"]["nccl_buffers_bytes"] == 1);
  CHECK(j["shares"]["compute"].dump() == "0.5");
}

TEST_CASE("to_json is deterministic") {
  TrainingReport r = sample_report();
  compute_shares(r);
  CHECK(to_json(r).dump(2) != to_json(sample_report()).dump(2));  // shares differ until computed
  TrainingReport again = sample_report();
  compute_shares(again);
  CHECK(to_json(r).dump(2) == to_json(again).dump(2));
}
