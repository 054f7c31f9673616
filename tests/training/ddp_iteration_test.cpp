// One synchronous DDP iteration: compute, bucketed AllReduce overlapped with backward, gradient accumulation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "hand_worked_setup.hpp"
#include "syncsim/compute/model_catalog.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology_spec.hpp"
#include "syncsim/training/ddp_iteration.hpp"

using namespace syncsim;
using syncsim::test::bucket;
using syncsim::test::hand_worked;
using syncsim::test::ms;

TEST_CASE("overlap off: iteration = forward + backward + bucket collectives + optimizer, exactly", "[ddp]") {
  // Forward 4 ms, backward 8 ms (ends at 12); AllReduces back to back 12-17, 17-18, 18-20; optimizer 20-21.
  const IterationTimeline t = simulate_ddp_iteration(hand_worked(false, 1));
  CHECK(t.iteration == ms(4) + ms(8) + ms(5 + 1 + 2) + ms(1));
  CHECK(t.compute == ms(12));
  CHECK(t.communication == ms(8));
  CHECK(t.exposed_communication == ms(8));
  CHECK(t.optimizer_start == ms(20));
  REQUIRE(t.buckets.size() == 3);
  CHECK(t.buckets[0].start == ms(12));
  CHECK(t.buckets[1].start == ms(17));
  CHECK(t.buckets[2].end == ms(20));
}

TEST_CASE("overlap on: a hand-worked timeline with three buckets", "[ddp]") {
  // Forward 0-4. Backward in reverse: layer 3 4-6, layer 2 6-8, layer 1 8-10, layer 0 10-12.
  // Bucket 0 ({3}) ready at 6, runs 6-11. Bucket 1 ({2,1}) ready at 10 but the stream is busy: 11-12.
  // Bucket 2 ({0}) ready at 12: 12-14. Optimizer 14-15. Exposed communication 15 - 12 - 1 = 2 ms.
  const IterationTimeline t = simulate_ddp_iteration(hand_worked(true, 1));
  REQUIRE(t.buckets.size() == 3);
  CHECK(t.buckets[0].ready == ms(6));
  CHECK(t.buckets[0].start == ms(6));
  CHECK(t.buckets[0].end == ms(11));
  CHECK(t.buckets[0].bytes == Bytes{100});
  CHECK(t.buckets[1].ready == ms(10));
  CHECK(t.buckets[1].start == ms(11));
  CHECK(t.buckets[1].end == ms(12));
  CHECK(t.buckets[2].ready == ms(12));
  CHECK(t.buckets[2].start == ms(12));
  CHECK(t.buckets[2].end == ms(14));
  CHECK(t.backward_end == ms(12));
  CHECK(t.optimizer_start == ms(14));
  CHECK(t.iteration == ms(15));
  CHECK(t.compute == ms(12));
  CHECK(t.communication == ms(8));
  CHECK(t.exposed_communication == ms(2));
  CHECK(t.optimizer == ms(1));

  // Phase spans: 4 forwards in order, then 4 backwards in reverse order, contiguous.
  REQUIRE(t.phases.size() == 8);
  CHECK(t.phases[0].phase == ComputePhase::forward);
  CHECK(t.phases[0].layer == 0);
  CHECK(t.phases[3].end == ms(4));
  CHECK(t.phases[4].phase == ComputePhase::backward);
  CHECK(t.phases[4].layer == 3);
  CHECK(t.phases[4].start == ms(4));
  CHECK(t.phases[4].end == ms(6));
  CHECK(t.phases[7].layer == 0);
  CHECK(t.phases[7].end == ms(12));
  for (std::size_t i = 1; i < t.phases.size(); ++i) CHECK(t.phases[i].start == t.phases[i - 1].end);
}

TEST_CASE("gradient accumulation over 4 micro-batches: compute x4, one sync", "[ddp]") {
  // Three silent micro-batches (0-36 ms), then the hand-worked iteration shifted by 36 ms: 36 + 15 = 51 ms.
  int calls = 0;
  const IterationTimeline on = simulate_ddp_iteration(hand_worked(true, 4, &calls));
  CHECK(calls == 3);  // one AllReduce per bucket, not per micro-batch
  CHECK(on.compute == ms(48));
  CHECK(on.communication == ms(8));
  CHECK(on.iteration == ms(51));
  CHECK(on.buckets[0].ready == ms(42));
  CHECK(on.phases.size() == 32);
  CHECK(on.phases.back().micro_batch == 3);
  const IterationTimeline off = simulate_ddp_iteration(hand_worked(false, 4));
  CHECK(off.iteration == ms(48) + ms(8) + ms(1));
}

TEST_CASE("overlap on never beats its bounds (200 random iterations)", "[ddp][property]") {
  // System: n layers with random forward/backward times, the reverse-ordered layers cut into random contiguous
  // buckets with random AllReduce times, k micro-batches, a random optimizer step. With F, B, C, O the summed
  // forward, backward, collective and optimizer times, S = (k-1)(F+B) and r_j bucket j's ready time measured from
  // the last backward's start:
  //   overlap off = k(F+B) + C + O                                        (exact)
  //   overlap on <= overlap off
  //   overlap on >= S + F + max(B, r_0 + C) + O  >= max(compute, communication) + O
  //                 (compute is never hidden; no collective starts before the first bucket is ready)
  //   overlap on == S + F + max(B, max_j (r_j + sum_{i>=j} T_i)) + O      (the FIFO stream's closed form)
  std::mt19937_64 rng(20240601);
  std::uniform_int_distribution<std::int64_t> time_ps(0, 1'000'000'000);
  for (int trial = 0; trial < 200; ++trial) {
    INFO("trial " << trial);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 30)(rng);
    DdpSetup setup;
    for (std::size_t i = 0; i < n; ++i) {
      setup.layers.forward.push_back(SimTime::from_ps(time_ps(rng)));
      setup.layers.backward.push_back(SimTime::from_ps(time_ps(rng)));
    }
    std::vector<SimTime> collective;  // by bucket; bucket j has j + 1 bytes so the size is a key
    GradientBucket open;
    for (std::size_t i = n; i-- > 0;) {
      open.layers.push_back(i);
      if (i == 0 || std::bernoulli_distribution(0.4)(rng)) {
        open.ready_after_layer = i;
        open.bytes = Bytes{static_cast<std::int64_t>(setup.buckets.buckets.size()) + 1};
        setup.buckets.buckets.push_back(open);
        open = GradientBucket{};
        collective.push_back(SimTime::from_ps(2 * time_ps(rng)));
      }
    }
    setup.collective_time = [&collective](CollectiveOp, Bytes size) {
      return collective.at(static_cast<std::size_t>(size.value - 1));
    };
    setup.micro_batches = std::uniform_int_distribution<std::int64_t>(1, 4)(rng);
    setup.optimizer_step = SimTime::from_ps(time_ps(rng));

    SimTime f, b, c;
    for (std::size_t i = 0; i < n; ++i) {
      f += setup.layers.forward[i];
      b += setup.layers.backward[i];
    }
    for (const SimTime t : collective) c += t;
    const std::int64_t k = setup.micro_batches;
    const SimTime o = setup.optimizer_step;
    const SimTime silent = (f + b) * (k - 1);
    // r_j: backward time from the last backward's start until bucket j's ready layer has run.
    std::vector<SimTime> ready;
    for (const GradientBucket& bkt : setup.buckets.buckets) {
      SimTime r;
      for (std::size_t i = n; i-- > bkt.ready_after_layer;) r += setup.layers.backward[i];
      ready.push_back(r);
    }

    setup.overlap = false;
    const IterationTimeline off = simulate_ddp_iteration(setup);
    CHECK(off.iteration == (f + b) * k + c + o);
    setup.overlap = true;
    const IterationTimeline on = simulate_ddp_iteration(setup);
    CHECK(on.iteration <= off.iteration);
    CHECK(on.iteration >= silent + f + std::max(b, ready.front() + c) + o);
    CHECK(on.iteration >= std::max(on.compute, on.communication) + o);
    CHECK(on.compute == (f + b) * k);
    CHECK(on.communication == c);
    CHECK(on.exposed_communication >= SimTime::zero());
    CHECK(on.exposed_communication <= c);
    SimTime tail = b;
    SimTime suffix;
    for (std::size_t j = ready.size(); j-- > 0;) {
      suffix += collective[j];
      tail = std::max(tail, ready[j] + suffix);
    }
    CHECK(on.iteration == silent + f + tail + o);
  }
}

TEST_CASE("resnet50 on one 8-GPU DGX A100 node, fp16, batch 64: sane relations", "[ddp][e2e]") {
  const Topology topology = build_topology("dgx:nodes=1,gpus=8");
  Router router(topology);
  CollectiveSpec spec;  // AllReduce on all 8 GPUs, algorithm and channels chosen as NCCL would
  spec.op = CollectiveOp::allreduce;
  spec.ranks = 8;
  CachedAllReduce allreduce(router, spec);
  const ComputeModel compute(find_gpu("A100-SXM4-80GB"), Precision::fp16);
  const ModelSpec model = find_model("resnet50");
  constexpr std::int64_t kBatch = 64;

  DdpSetup setup;
  setup.layers = layer_times(compute, model, kBatch);
  setup.buckets = make_buckets(model, kDdpDefaultBucketCap, Precision::fp16);
  setup.collective_time = [&allreduce](CollectiveOp, Bytes size) { return allreduce(size); };
  setup.optimizer_step = compute.optimizer_step(model.params(), Optimizer::momentum);
  const IterationTimeline on = simulate_ddp_iteration(setup);
  setup.overlap = false;
  const IterationTimeline off = simulate_ddp_iteration(setup);

  CHECK(setup.buckets.buckets.size() >= 3);
  CHECK(allreduce.simulated() <= setup.buckets.buckets.size());
  CHECK(on.compute == compute.forward(model, kBatch) + compute.backward(model, kBatch));
  CHECK(on.iteration > on.compute);
  CHECK(on.communication > SimTime::zero());
  CHECK(on.exposed_communication >= SimTime::zero());
  CHECK(on.exposed_communication <= on.communication);
  CHECK(on.iteration <= off.iteration);
  CHECK(off.iteration == off.compute + off.communication + off.optimizer);
  // Overlap hides some of the communication: the first buckets finish while backward still runs.
  CHECK(on.buckets.front().end < on.backward_end);
  const double samples_per_second = 8.0 * kBatch / on.iteration.seconds();
  CHECK(std::isfinite(samples_per_second));
  CHECK(samples_per_second > 0);
  CHECK(samples_per_second < 8.0 * kBatch / on.compute.seconds());
}

TEST_CASE("malformed DDP setups are rejected", "[ddp]") {
  DdpSetup mismatched = hand_worked(true, 1);
  mismatched.layers.backward.pop_back();
  CHECK_THROWS_AS(simulate_ddp_iteration(mismatched), InputError);
  DdpSetup no_batches = hand_worked(true, 0);
  CHECK_THROWS_AS(simulate_ddp_iteration(no_batches), InputError);
  DdpSetup no_collective = hand_worked(true, 1);
  no_collective.collective_time = nullptr;
  CHECK_THROWS_AS(simulate_ddp_iteration(no_collective), InputError);
  DdpSetup out_of_range = hand_worked(true, 1);
  out_of_range.buckets.buckets[0].ready_after_layer = 9;
  CHECK_THROWS_AS(simulate_ddp_iteration(out_of_range), InputError);
  DdpSetup negative = hand_worked(true, 1);
  negative.layers.forward[0] = SimTime::from_ps(-1);
  CHECK_THROWS_AS(simulate_ddp_iteration(negative), InputError);
}
