// Transformer Engine's SM-driven userbuffers collectives move no faster than their SMs (tensor_overlap.hpp,
// one_sm_time): a bulk all-gather on few SMs shows beside its GEMM where the same one on more hides, and an
// NVSwitch that multicasts (NVLink SHARP) lets each rank's SMs move its own shard only. Llama 3 8B at 8,192 tokens,
// TP 8 on one DGX H100, the backward's bulk gathers on `sms` SMs.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

// The run with `parallelism_extra` after the layout's keys, on an NVSwitch with multicast `nvls` (on or off).
TrainingReport run_scenario_with(const std::string& parallelism_extra, const std::string& nvls = "on") {
  const std::string text =
      "name: ub\n"
      "cluster: {gpu: H100-SXM-80GB, topology: \"dgx:nodes=1,gpus=8,nvls=" +
      nvls +
      "\", speed_spread: 0}\n"
      "model: {name: llama3-8b, batch_per_gpu: 1, sequence_length: 8192, precision: bf16, optimizer: adam}\n"
      "training: {strategy: sync, iterations: 1}\n"
      "parallelism: {tensor: 8, data: auto, sharding: optimizer" +
      parallelism_extra + "}\n";
  return run::run_scenario(parse_scenario(text, "ub.yaml")).report;
}

TrainingReport run_with(int sms, const std::string& nvls) {
  const std::string bulk = "{method: bulk, num_sm: " + std::to_string(sms) + "}";
  return run_scenario_with(", tp_comm_overlap: {qkv_dgrad: " + bulk + ", fc1_dgrad: " + bulk + "}", nvls);
}

SimTime exposed_tensor(int sms, const std::string& nvls) {
  const TrainingReport r = run_with(sms, nvls);
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == "tensor") return g.exposed;
  }
  FAIL("no tensor group");
  return SimTime::zero();
}

}  // namespace

TEST_CASE("userbuffers' bulk all-gathers on fewer SMs show more, and multicast lets fewer SMs keep up") {
  // Without multicast a rank's SMs bring in 7/8 of the 64 MiB input, 1.6 ms on one SM at 36.7 GB/s, against a
  // QKV data-gradient product of about 0.1 ms: one SM shows most of it, 16 SMs hide it.
  const SimTime one_unicast = exposed_tensor(1, "off");
  const SimTime sixteen_unicast = exposed_tensor(16, "off");
  CHECK(one_unicast > exposed_tensor(2, "off"));
  CHECK(exposed_tensor(2, "off") > sixteen_unicast);
  // On the NVSwitch that multicasts each rank stores its own eighth once: seven times less for its SMs.
  const SimTime one_multicast = exposed_tensor(1, "on");
  CHECK(one_multicast < one_unicast);
  CHECK(exposed_tensor(16, "on") <= one_multicast);
}

TEST_CASE("the layout's report names each userbuffers overlap, and the SMs that would keep its pace") {
  // On 1 SM without multicast QKV's gathered input takes 1.6 ms at its SM's pace: more than at its own rate, which
  // the report says how many SMs keep (one SM's time over the own rate, rounded up); FC1's likewise. The rings, on
  // the copy engines, have no such count.
  const TrainingReport r = run_with(1, "off");
  REQUIRE(r.layout);
  const std::vector<TensorOverlapReport>& layers = r.layout->tensor_overlap;
  REQUIRE(layers.size() == 10);
  const TensorOverlapReport& qkv = layers[4];
  CHECK(qkv.layer == "qkv_dgrad");
  CHECK(qkv.method == "bulk");
  CHECK(qkv.sms == 1);
  CHECK(qkv.collective > qkv.own_rate);
  REQUIRE(qkv.sms_to_keep_pace);
  CHECK(*qkv.sms_to_keep_pace == (qkv.collective.ps() + qkv.own_rate.ps() - 1) / qkv.own_rate.ps());
  // It outlasts its GEMM on the SMs it leaves: it adds its difference with the GEMM, the SMs' cost a part of it.
  CHECK(qkv.exposed + qkv.sm_cost == qkv.collective - qkv.gemm);
  CHECK(layers[7].layer == "fc1_dgrad");
  CHECK(layers[7].collective > layers[7].own_rate);
  CHECK(layers[0].layer == "qkv_fprop");
  CHECK(layers[0].sms == 0);
  CHECK_FALSE(layers[0].sms_to_keep_pace);
  // Without tp_comm_overlap there is nothing to name.
  const TrainingReport plain = run_scenario_with("");
  REQUIRE(plain.layout);
  CHECK(plain.layout->tensor_overlap.empty());
}

TEST_CASE("a run with userbuffers holds their buffers outside the allocator, and TE's workspace three times") {
  // Llama 3 8B at 8,192 tokens, TP 8, bf16: ten buffers of 8,192 x 4,096 elements, 2 bytes each, 640 MiB; TE's
  // initialize_ub repeats its 32 MiB + 1 KiB cuBLAS workspace for three GEMM streams. Without the overlap neither.
  const TrainingReport r = run_with(16, "on");
  CHECK(r.memory.userbuffers.value == 10LL * 8192 * 4096 * 2);
  const TrainingReport plain = run_scenario_with("");
  CHECK(plain.memory.userbuffers.value == 0);
  CHECK(r.memory.workspaces.value - plain.memory.workspaces.value == 2 * ((32LL << 20) + 1024));
  CHECK(r.memory.total.value - plain.memory.total.value >= r.memory.userbuffers.value);
}
