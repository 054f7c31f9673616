// The copies PyTorch's tensor parallelism makes beside its collectives (dtensor_copies.cpp): one read and write of
// the micro-batch's activation per all-gather or reduce-scatter, under FSDP + TP (torchtitan's), and under async TP
// the copy of the rank's shard before each all-gather and the sum of the partials after each reduce-scatter, by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "resolved_scenario.hpp"  // sim/run/src
#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/run/workspace.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::filesystem::path kExample =
    std::filesystem::path(SYNCSIM_EXAMPLES_DIR) / "llama3-8b-tp-across-nodes.yaml";  // sequence 2,048

// One rank's forward and backward, summed over the layers, of Llama 3 8B on one node of 8 at TP 2, less what running
// the GEMMs in pieces beside tp_comm_overlap's chunks adds (split_gemms.cpp, its own test): the copies and sums alone.
std::pair<SimTime, SimTime> rank_passes(const std::string& sharding, std::int64_t batch, bool overlap = false,
                                        const std::vector<std::string>& more = {}) {
  std::vector<std::string> overrides{"cluster.speed_spread=0",
                                     "cluster.topology.nodes=1",
                                     "parallelism.pipeline=1",
                                     "parallelism.tensor=2",
                                     "model.micro_batches=1",
                                     "parallelism.sharding=" + sharding,
                                     "model.batch_per_gpu=" + std::to_string(batch),
                                     std::string("parallelism.tp_comm_overlap=") + (overlap ? "true" : "false")};
  overrides.insert(overrides.end(), more.begin(), more.end());
  const Scenario s = load_scenario(kExample, overrides);
  run::Workspace workspace;
  const run::ResolvedScenario context(s, workspace);
  const LayerTimes times = context.layer_times();
  std::pair<SimTime, SimTime> out;
  for (std::size_t l = 0; l < times.forward.size(); ++l) {
    out.first += times.forward[l];
    out.second += times.backward[l];
  }
  for (std::size_t b = 0; b < context.model().transformer()->blocks.size(); ++b) {
    for (const run::SplitGemmCost& run : context.split_gemm_costs(b, batch, context.rank_split())) {
      for (const SimTime extra : run.forward) out.first -= extra;
      for (const SimTime extra : run.backward) out.second -= extra;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("FSDP + TP copies the activation beside each tensor collective, Megatron's layout does not") {
  // Batch 2: each copy reads and writes 2 x 2,048 x 4,096 bf16 elements, 2 x 33,554,432 B, at the default efficiency
  // 0.7 of the H100's bandwidth, plus the 5 us kernel overhead. Copies per pass: the 32 blocks' QKV, projection, FC1
  // and FC2, the embedding and the head: 130, forward and backward alike.
  const double bandwidth = find_gpu("H100-SXM-80GB").memory_bandwidth.bytes_per_second;
  const SimTime copy = SimTime::from_seconds(2.0 * 33'554'432 / (bandwidth * kDefaultEfficiency)) + SimTime::from_us(5);
  const auto [fsdp_forward, fsdp_backward] = rank_passes("full", 2);
  const auto [megatron_forward, megatron_backward] = rank_passes("optimizer", 2);
  CHECK((fsdp_forward - megatron_forward).ps() == (copy * 130).ps());
  CHECK((fsdp_backward - megatron_backward).ps() == (copy * 130).ps());
  // At batch 1 the gathered chunks are in place: no copies.
  CHECK(rank_passes("full", 1) == rank_passes("optimizer", 1));
}

TEST_CASE("async TP copies each all-gather's own shard and sums each reduce-scatter's partials") {
  // Batch 1 (no copies of the case above), TP 2: the activation is 2,048 x 4,096 bf16 elements, 16,777,216 B, the
  // shard half of it. Per block and pass two all-gathers, each after a read and write of the shard (16,777,216 B),
  // and two reduce-scatters, each before the sum that reads the two partials and writes one (25,165,824 B): forward
  // at QKV and FC1 the copies and at the projection and FC2 the sums, backward the other way round; 32 blocks.
  const double bandwidth = find_gpu("H100-SXM-80GB").memory_bandwidth.bytes_per_second;
  const auto kernel = [&](double bytes) {
    return SimTime::from_seconds(bytes / (bandwidth * kDefaultEfficiency)) + SimTime::from_us(5);
  };
  const SimTime per_pass = (kernel(16'777'216) * 2 + kernel(25'165'824) * 2) * 32;
  const auto [async_forward, async_backward] = rank_passes("full", 1, true);
  const auto [plain_forward, plain_backward] = rank_passes("full", 1);
  CHECK((async_forward - plain_forward).ps() == per_pass.ps());
  CHECK((async_backward - plain_backward).ps() == per_pass.ps());
  // Megatron's layouts run Transformer Engine's userbuffers, which gather into and scatter from buffers of their own.
  CHECK(rank_passes("optimizer", 1, true) == rank_passes("optimizer", 1));
}

TEST_CASE("Transformer Engine's ring-exchange reduce-scatter sums its partials after the ring") {
  // Megatron's layout, batch 1, TP 2: a userbuffers configuration that runs the projection's reduce-scatter as a ring
  // adds, after the projection, the sum of its two partial chunks: it reads the 16,777,216 B activation and writes
  // the rank's half, 8,388,608 B, 32 blocks, forward only (the backward's output-gradient gathers sum nothing). FC2's
  // too doubles it. Under fp8 with fp8_buf the partials are FP8: 8,388,608 B read.
  const double bandwidth = find_gpu("H100-SXM-80GB").memory_bandwidth.bytes_per_second;
  const auto kernel = [&](double bytes) {
    return SimTime::from_seconds(bytes / (bandwidth * kDefaultEfficiency)) + SimTime::from_us(5);
  };
  const auto passes = [&](const std::string& config, const std::string& precision = "bf16") {
    return rank_passes("optimizer", 1, false,
                       {"parallelism.tp_comm_overlap=" + config, "model.precision=" + precision});
  };
  const auto [pipelined_forward, pipelined_backward] = passes("{}");
  const auto [ring_forward, ring_backward] = passes("{proj_fprop: {method: ring_exchange}}");
  CHECK((ring_forward - pipelined_forward).ps() == (kernel(16'777'216 + 8'388'608) * 32).ps());
  CHECK(ring_backward == pipelined_backward);
  const auto [both_forward, both_backward] =
      passes("{proj_fprop: {method: ring_exchange}, fc2_fprop: {method: ring_exchange}}");
  CHECK((both_forward - pipelined_forward).ps() == (kernel(16'777'216 + 8'388'608) * 64).ps());
  const auto [fp8_pipelined, fp8_pipelined_backward] = passes("{}", "fp8");
  const auto [fp8_ring, fp8_ring_backward] = passes("{proj_fprop: {method: ring_exchange, fp8_buf: 1}}", "fp8");
  CHECK((fp8_ring - fp8_pipelined).ps() == (kernel(8'388'608 + 8'388'608) * 32).ps());
}
