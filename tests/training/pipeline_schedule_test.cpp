// Pipeline schedules: the passes' order and the bubble's closed forms with free transfers.
#include <catch2/catch.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/training/pipeline_schedule.hpp"

using namespace syncsim;

namespace {
PipelineTimingSetup equal_stages(PipelineSchedule schedule, std::int64_t p, std::int64_t m, std::int64_t v,
                                 SimTime forward, SimTime backward) {
  PipelineTimingSetup s;
  s.schedule = schedule;
  s.stages = p;
  s.micro_batches = m;
  s.chunks = v;
  s.forward.assign(static_cast<std::size_t>(p), std::vector<SimTime>(static_cast<std::size_t>(v), forward));
  s.backward.assign(static_cast<std::size_t>(p), std::vector<SimTime>(static_cast<std::size_t>(v), backward));
  return s;
}
}  // namespace

TEST_CASE("1F1B warms up p - s - 1 forwards, then alternates", "[pipeline]") {
  const auto order = pipeline_order(PipelineSchedule::one_f_one_b, 1, 4, 6, 1);
  REQUIRE(order.size() == 12);
  // Stage 1 of 4: two warm-up forwards, then F2 B0 F3 B1 F4 B2 F5 B3, then B4 B5.
  CHECK_FALSE(order[0].backward);
  CHECK_FALSE(order[1].backward);
  CHECK_FALSE(order[2].backward);
  CHECK(order[2].micro_batch == 2);
  CHECK(order[3].backward);
  CHECK(order[3].micro_batch == 0);
  CHECK(order[10].backward);
  CHECK(order[11].micro_batch == 5);
  // The last stage has no warm-up.
  CHECK(pipeline_order(PipelineSchedule::one_f_one_b, 3, 4, 6, 1)[1].backward);
}

TEST_CASE("1F1B's and GPipe's bubble is (p - 1)/(m + p - 1) with equal stages and free transfers", "[pipeline]") {
  for (const PipelineSchedule schedule : {PipelineSchedule::one_f_one_b, PipelineSchedule::gpipe}) {
    for (const auto& [p, m] : {std::pair{4, 8}, std::pair{8, 32}, std::pair{2, 1}, std::pair{16, 3}}) {
      const SimTime f = SimTime::from_us(1000);
      const SimTime b = SimTime::from_us(2000);
      const PipelineTiming t = time_pipeline(equal_stages(schedule, p, m, 1, f, b));
      CHECK(t.end == (f + b) * (m + p - 1));
      CHECK(t.bubble_fraction == Approx(static_cast<double>(p - 1) / static_cast<double>(m + p - 1)).epsilon(1e-12));
    }
  }
}

TEST_CASE("the interleaved schedule cuts the bubble to (p - 1)/(v m + p - 1)", "[pipeline]") {
  const std::int64_t p = 4;
  const std::int64_t m = 8;
  for (const std::int64_t v : {2, 3}) {
    const SimTime f = SimTime::from_us(1200.0 / static_cast<double>(v));
    const SimTime b = SimTime::from_us(2400.0 / static_cast<double>(v));
    const PipelineTiming t = time_pipeline(equal_stages(PipelineSchedule::interleaved, p, m, v, f, b));
    CHECK(t.bubble_fraction == Approx(static_cast<double>(p - 1) / static_cast<double>(v * m + p - 1)).epsilon(1e-9));
  }
  CHECK_THROWS_WITH(pipeline_order(PipelineSchedule::interleaved, 0, 4, 6, 2), Catch::Contains("multiples of the 4"));
  CHECK_THROWS_WITH(pipeline_order(PipelineSchedule::one_f_one_b, 0, 4, 8, 2), Catch::Contains("interleaved"));
}

TEST_CASE("transfers between stages lengthen the pipeline by a hop per stage each way", "[pipeline]") {
  const SimTime f = SimTime::from_us(1000);
  const SimTime b = SimTime::from_us(2000);
  const SimTime hop = SimTime::from_us(10);
  PipelineTimingSetup s = equal_stages(PipelineSchedule::one_f_one_b, 4, 1, 1, f, b);
  s.transfer = hop;
  // One micro-batch runs down and back up: 4 forwards, 4 backwards and 3 hops each way.
  CHECK(time_pipeline(s).end == f * 4 + b * 4 + hop * 6);
}

TEST_CASE("a stage waits for its chunk's parameters and for its own previous iteration", "[pipeline]") {
  PipelineTimingSetup s =
      equal_stages(PipelineSchedule::one_f_one_b, 2, 2, 1, SimTime::from_us(10), SimTime::from_us(20));
  s.device_free = {SimTime::from_us(100), SimTime::zero()};
  s.parameters_ready = {{SimTime::zero()}, {SimTime::from_us(500)}};
  const PipelineTiming t = time_pipeline(s);
  CHECK(t.first_start[0] == SimTime::from_us(100));
  CHECK(t.first_start[1] == SimTime::from_us(500));
}
