#pragma once
// The hand-worked DDP setup shared by the training tests: four layers, forward 1 ms and backward 2 ms each
// (F = 4, B = 8); buckets {3} 100 B, {2, 1} 200 B, {0} 300 B with AllReduce times 5, 1 and 2 ms (sum T = 8);
// optimizer step O = 1 ms. `calls`, when given, counts AllReduce-time queries.
#include <map>
#include <vector>

#include "syncsim/training/ddp_iteration.hpp"

namespace syncsim::test {

inline SimTime ms(std::int64_t v) {
  return SimTime::from_ps(v * 1'000'000'000);
}

inline GradientBucket bucket(std::int64_t bytes, std::vector<std::size_t> layers) {
  const std::size_t ready = layers.back();
  return {Bytes{bytes}, std::move(layers), ready};
}

inline DdpSetup hand_worked(bool overlap, std::int64_t micro_batches = 1, int* calls = nullptr) {
  DdpSetup setup;
  setup.layers.forward = {ms(1), ms(1), ms(1), ms(1)};
  setup.layers.backward = {ms(2), ms(2), ms(2), ms(2)};
  setup.buckets.buckets = {bucket(100, {3}), bucket(200, {2, 1}), bucket(300, {0})};
  setup.collective_time = [calls](CollectiveOp, Bytes size) {
    if (calls != nullptr) ++*calls;
    static const std::map<std::int64_t, SimTime> table{{100, ms(5)}, {200, ms(1)}, {300, ms(2)}};
    return table.at(size.value);
  };
  setup.overlap = overlap;
  setup.micro_batches = micro_batches;
  setup.optimizer_step = ms(1);
  return setup;
}

}  // namespace syncsim::test
