// The example scenarios in examples/ each answer one question (their header comment says which, and docs/tour.md
// walks through them). These tests run each through run_scenario and hold its conclusion, so that an example
// whose story stops being true fails here rather than misleading a reader.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

const std::filesystem::path kExamples = SYNCSIM_EXAMPLES_DIR;

TrainingReport run_example(const std::string& file, const std::vector<std::string>& overrides = {}) {
  return run::run_scenario(load_scenario(kExamples / file, overrides)).report;
}

double per_iteration_ms(SimTime total, std::int64_t iterations) {
  return total.us() / 1e3 / static_cast<double>(iterations);
}

}  // namespace

TEST_CASE("resnet50-dgx-8gpu: one NVLink node scales ResNet-50 almost perfectly", "[examples]") {
  // 8 A100s on an NVSwitch; 51 MB of fp16 gradients per iteration AllReduce at NVLink speed, hidden behind
  // backward: at least 90 % of 8 x one GPU.
  const TrainingReport r = run_example("resnet50-dgx-8gpu.yaml");
  CHECK(r.workers == 8);
  CHECK(r.scaling_efficiency >= 0.9);
  CHECK(r.scaling_efficiency <= 1.0);
  CHECK(r.memory.fits);
}

TEST_CASE("bert-large-two-pods: 32 GPUs across a thin link are slower than 16 in one pod", "[examples]") {
  // Two pods of 16 GPUs joined by one 25 Gbps link. BERT-large's 670 MB of fp16 gradients per iteration cross that
  // link with 32 workers (2 x 31/32 x 670 MB each way at 3.125 GB/s: over 0.4 s, about three times the compute);
  // with 16 they stay inside a pod on 200 Gbps rails and hide behind backward.
  const TrainingReport pod = run_example("bert-large-two-pods.yaml", {"cluster.workers=16"});
  const TrainingReport both = run_example("bert-large-two-pods.yaml");
  REQUIRE(pod.workers == 16);
  REQUIRE(both.workers == 32);
  CHECK(both.samples_per_second < pod.samples_per_second);
  CHECK(pod.scaling_efficiency >= 0.9);
  CHECK(both.scaling_efficiency < 0.5);
  // The cause is communication, not compute: the same per-GPU work, but most of the 32-GPU iteration is spent
  // waiting for the AllReduce.
  CHECK(both.single_gpu_iteration == pod.single_gpu_iteration);
  CHECK(both.exposed_communication_share > 0.5);
  CHECK(pod.exposed_communication_share < 0.1);
  // The lower bound from the link alone: each direction carries at least 2 (n-1)/n of the gradient bytes per ring
  // pass, so an iteration cannot be shorter than that over 3.125 GB/s.
  const double gradient_bytes = 2.0 * static_cast<double>(both.params);  // fp16
  const double link_seconds = 2.0 * 31.0 / 32.0 * gradient_bytes / 3.125e9;
  CHECK(per_iteration_ms(both.total, both.iterations) >= 1e3 * link_seconds);

  SECTION("ResNet-50 (25 M parameters, 13 x fewer gradient bytes) still gains from the second pod") {
    const std::vector<std::string> resnet = {"model.name=resnet50", "model.sequence_length=", "model.batch_per_gpu=64"};
    std::vector<std::string> sixteen = resnet;
    sixteen.push_back("cluster.workers=16");
    const TrainingReport r16 = run_example("bert-large-two-pods.yaml", sixteen);
    const TrainingReport r32 = run_example("bert-large-two-pods.yaml", resnet);
    CHECK(r32.samples_per_second > r16.samples_per_second);
    CHECK(r32.scaling_efficiency < r16.scaling_efficiency);
  }
}

TEST_CASE("bert-large-v100-16gb: the memory check says what does not fit and by how much", "[examples]") {
  // fp32 Adam: 16 B/parameter (5.4 GB) plus 1.74 GB of activations per 512-token sample, 8 samples: about 19.3 GB
  // against 16 GiB (17.2 GB).
  const TrainingReport fp32 = run_example("bert-large-v100-16gb.yaml");
  REQUIRE_FALSE(fp32.memory.fits);
  CHECK(fp32.memory.shortfall.value > 0);
  CHECK(fp32.memory.shortfall.value == fp32.memory.total.value - fp32.memory.capacity.value);
  // The activations are the bulk of it, so they are what to shrink.
  CHECK(fp32.memory.activations.value > fp32.memory.shortfall.value);
  CHECK(fp32.memory.activations.value >
        fp32.memory.weights.value + fp32.memory.gradients.value + fp32.memory.optimizer_state.value);

  SECTION("half the batch with two micro-batches fits, with the same global batch and nearly the same speed") {
    const TrainingReport accumulate =
        run_example("bert-large-v100-16gb.yaml", {"model.batch_per_gpu=4", "model.micro_batches=2"});
    CHECK(accumulate.memory.fits);
    CHECK(accumulate.memory.shortfall.value == 0);
    CHECK(accumulate.global_batch == fp32.global_batch);
    CHECK(accumulate.samples_per_second >= 0.95 * fp32.samples_per_second);
  }
  SECTION("mixed precision fits and runs on the tensor cores, several times faster") {
    const TrainingReport fp16 = run_example("bert-large-v100-16gb.yaml", {"model.precision=fp16"});
    CHECK(fp16.memory.fits);
    CHECK(fp16.memory.activations.value < fp32.memory.activations.value);
    CHECK(fp16.global_batch == fp32.global_batch);
    CHECK(fp16.samples_per_second > 3 * fp32.samples_per_second);
  }
}

TEST_CASE("resnet50-straggler: one slow GPU makes all eight wait", "[examples]") {
  // Synchronous SGD with overlap off: iteration = max over ranks (forward + backward) + AllReduce + optimizer. Rank
  // 3 computes 1.5x slower, so every iteration lasts at least 1.5x a healthy rank's compute.
  const TrainingReport slow = run_example("resnet50-straggler.yaml");
  const TrainingReport healthy = run_example("resnet50-straggler.yaml", {"stragglers.slow="});
  REQUIRE(slow.per_worker.size() == 8);
  REQUIRE_FALSE(slow.overlap);
  const auto iterations = slow.iterations;
  const double healthy_compute_ms = per_iteration_ms(slow.per_worker[0].compute, iterations);
  const double slow_compute_ms = per_iteration_ms(slow.per_worker[3].compute, iterations);
  CHECK(slow_compute_ms == Approx(1.5 * healthy_compute_ms).epsilon(1e-6));
  CHECK(slow.iteration_mean.us() / 1e3 >= slow_compute_ms);
  CHECK(slow.iteration_mean.us() / 1e3 >= 1.4 * healthy.iteration_mean.us() / 1e3);
  CHECK(slow.samples_per_second < healthy.samples_per_second / 1.4);

  // The seven healthy ranks wait out the difference: half their own compute time.
  for (std::size_t r = 0; r < slow.per_worker.size(); ++r) {
    if (r == 3) {
      CHECK(slow.per_worker[r].straggler_wait == SimTime::zero());
    } else {
      CHECK(slow.per_worker[r].straggler_wait.us() == Approx(0.5 * slow.per_worker[r].compute.us()).epsilon(0.01));
    }
  }

  SECTION("one slow GPU costs as much as eight slow ones") {
    std::string all_slow = "stragglers.slow=[";
    for (int r = 0; r < 8; ++r) {
      all_slow += std::string(r == 0 ? "" : ", ") + "{rank: " + std::to_string(r) + ", factor: 1.5}";
    }
    all_slow += "]";
    const TrainingReport everyone = run_example("resnet50-straggler.yaml", {all_slow});
    CHECK(slow.samples_per_second == Approx(everyone.samples_per_second).epsilon(0.01));
    CHECK(everyone.idle_share < 0.01);
    CHECK(slow.idle_share > 0.25);
  }
}

TEST_CASE("llama7b-sharding: 16 bytes per parameter do not fit an 80 GB GPU until ZeRO shards them", "[examples]") {
  // 6.74 B parameters x 16 bytes (bf16 weights and gradients, fp32 master weights and Adam moments) = 100.4 GiB.
  const TrainingReport replicated = run_example("llama7b-sharding.yaml");
  CHECK_FALSE(replicated.memory.fits);
  CHECK(replicated.memory.weights.value + replicated.memory.gradients.value + replicated.memory.optimizer_state.value ==
        16 * 6'738'415'616LL);
  const auto memory = [](const char* sharding) {
    std::string set = "parallelism.sharding=";
    set += sharding;
    return run::scenario_memory(load_scenario(kExamples / "llama7b-sharding.yaml", {set}));
  };
  const MemoryReport zero1 = memory("optimizer");
  const MemoryReport zero3 = memory("full");
  CHECK(zero1.fits);  // the 12 bytes of optimizer state per parameter, over 16 ranks
  CHECK(zero3.fits);
  CHECK(zero3.total < zero1.total);
  CHECK(zero1.activations == replicated.memory.activations);  // sharding keeps every activation
}

TEST_CASE("llama3-70b-layouts: TP 8 x PP 4 with ZeRO-1 fits and keeps its tensor traffic on NVLink", "[examples]") {
  const TrainingReport r = run_example("llama3-70b-layouts.yaml");
  REQUIRE(r.layout);
  CHECK(r.memory.fits);
  CHECK(r.layout->data == 8);
  // Every tensor group is one node: the busiest links are NVLink, and the tensor collectives are what is exposed
  // most; the data-parallel ones hide mostly behind the last backward passes.
  for (const LinkReport& link : r.busiest_links) CHECK(link.link_class == "nvlink");
  REQUIRE(r.group_communication.size() == 3);
  CHECK(r.group_communication[1].group == "tensor");
  CHECK(r.group_communication[1].exposed > r.group_communication[0].exposed);
  // 16 micro-batches through 4 stages: at least 3/19 of the pipeline idles.
  CHECK(r.layout->bubble_fraction >= 3.0 / 19.0);
  CHECK(r.layout->model_flops_utilization > 0.3);
  CHECK(r.layout->model_flops_utilization < 0.6);
  // FSDP alone over the 256 GPUs does not fit: 4,096 tokens' activations of 80 blocks without checkpointing.
  const MemoryReport fsdp = run::scenario_memory(
      load_scenario(kExamples / "llama3-70b-layouts.yaml",
                    {"parallelism.tensor=1", "parallelism.pipeline=1", "parallelism.sharding=full"}));
  CHECK_FALSE(fsdp.fits);
  CHECK(fsdp.activations > fsdp.capacity);
  // With full checkpointing and one micro-batch it fits, and moves 3 (d - 1)/d x G per GPU, G the bf16 gradients.
  const TrainingReport checkpointed = run_example(
      "llama3-70b-layouts.yaml", {"parallelism.tensor=1", "parallelism.pipeline=1", "parallelism.sharding=full",
                                  "model.micro_batches=1", "parallelism.activation_checkpointing=full"});
  CHECK(checkpointed.memory.fits);
  REQUIRE(checkpointed.group_communication.size() == 1);
  CHECK(checkpointed.group_communication[0].bytes_per_gpu ==
        Approx(3 * 255.0 / 256 * 2 * 70'553'706'496.0).epsilon(1e-9));
  // FSDP beside tensor groups of a node (torchtitan's 2D): the same 80 blocks, 4 samples per rank, fits too.
  const TrainingReport fsdp_tp = run_example(
      "llama3-70b-layouts.yaml", {"parallelism.pipeline=1", "parallelism.sharding=full", "model.micro_batches=1",
                                  "model.batch_per_gpu=4", "parallelism.activation_checkpointing=full"});
  CHECK(fsdp_tp.memory.fits);
  REQUIRE(fsdp_tp.layout);
  CHECK(fsdp_tp.layout->data == 32);
  CHECK(fsdp_tp.layout->hardware_flops_utilization > fsdp_tp.layout->model_flops_utilization);
}

TEST_CASE("llama3-8b-tp-across-nodes: tensor groups over two nodes make the network the bottleneck", "[examples]") {
  const TrainingReport across = run_example("llama3-8b-tp-across-nodes.yaml");
  CHECK(across.bottleneck.bound == "communication");
  CHECK(across.bottleneck.link_class == "network");
  CHECK(across.exposed_communication_share > 0.5);
  // Tensor groups of a node's 8 GPUs, and the pipeline deeper instead: more than twice as fast.
  const TrainingReport inside =
      run_example("llama3-8b-tp-across-nodes.yaml", {"parallelism.tensor=8", "parallelism.pipeline=4"});
  CHECK(inside.samples_per_second > 2 * across.samples_per_second);
  // What is left to fix is inside the node: tensor-parallel AllReduces on NVLink, no longer the network.
  CHECK(inside.bottleneck.link_class != "network");
}

TEST_CASE("llama3-8b-hsdp: on 100 Gb/s HSDP beats full sharding over all 64 GPUs, on 400 Gb/s they are close",
          "[examples]") {
  const auto rate = [](const std::vector<std::string>& overrides) {
    return run_example("llama3-8b-hsdp.yaml", overrides).samples_per_second;
  };
  const double hsdp_slow = rate({});
  const double fsdp_slow = rate({"parallelism.shard_group=all"});
  CHECK(hsdp_slow > 1.05 * fsdp_slow);
  const double hsdp_fast = rate({"cluster.topology.nic_bw=400Gbps"});
  const double fsdp_fast = rate({"cluster.topology.nic_bw=400Gbps", "parallelism.shard_group=all"});
  CHECK(std::abs(hsdp_fast / fsdp_fast - 1) < 0.03);
  CHECK(fsdp_fast > fsdp_slow);
}

TEST_CASE("mixtral-expert-parallel: one expert per GPU fits where replicated experts do not", "[examples]") {
  const TrainingReport r = run_example("mixtral-expert-parallel.yaml");
  CHECK(r.memory.fits);
  const MemoryReport replicated =
      run::scenario_memory(load_scenario(kExamples / "mixtral-expert-parallel.yaml", {"parallelism.expert=1"}));
  CHECK_FALSE(replicated.fits);
  REQUIRE(r.group_communication.size() == 2);
  CHECK(r.group_communication[1].group == "expert");
  CHECK(r.group_communication[1].bytes_per_gpu > 0);
  CHECK(r.layout->model_flops_utilization > 0.3);
}
