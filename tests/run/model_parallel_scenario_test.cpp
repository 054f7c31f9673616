// Model-parallel layouts end to end (parallelism.tensor, pipeline, context): Megatron's rank placement on the
// topology, the data-parallel bytes in closed form, tensor traffic on NVLink or on the network depending on where
// the layout puts it, the pipeline's bubble, and what the engine refuses.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/training/training_report.hpp"

using namespace syncsim;

namespace {

// Llama 3 8B on four 8-GPU H100 nodes with a rail per GPU.
constexpr const char* kModelParallelScenario = R"(
name: layouts
cluster:
  gpu: H100-SXM-80GB
  topology: {kind: dgx, nodes: 4, gpus: 8, nvlink_bw: 450GB/s, nic_bw: 400Gbps}
model: {name: llama3-8b, batch_per_gpu: 1, micro_batches: 8, sequence_length: 2048, precision: bf16}
training: {strategy: sync, iterations: 2}
)";

TrainingReport run_layout(const std::vector<std::string>& overrides) {
  return run::run_scenario(parse_scenario(kModelParallelScenario, "layouts.yaml", overrides)).report;
}

const GroupCommunication& group(const TrainingReport& r, const std::string& kind) {
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == kind) return g;
  }
  FAIL("no group " << kind);
  return r.group_communication.front();
}

constexpr double kLlama3_8bParams = 8'030'261'248;

}  // namespace

TEST_CASE("data-parallel bytes per GPU: 2 (d - 1)/d x G, G the rank's gradients under tensor x pipeline") {
  for (const auto& [t, p] : {std::pair{8, 1}, std::pair{4, 2}, std::pair{2, 4}}) {
    const TrainingReport r =
        run_layout({fmt::format("parallelism.tensor={}", t), fmt::format("parallelism.pipeline={}", p)});
    const double d = 32.0 / (t * p);
    // The mean over stages of a rank's gradient bytes: every parameter's gradient split over t x p ranks (a layer's
    // share rounded up, hence the tolerance), reduced from Megatron's FP32 buffer: 4 bytes each.
    const double g = 4 * kLlama3_8bParams / (t * p);
    CHECK(group(r, "data").bytes_per_gpu == Approx(2 * (d - 1) / d * g).epsilon(1e-6));
    CHECK(r.layout->data == static_cast<std::int64_t>(d));
    CHECK(r.global_batch == static_cast<std::int64_t>(d) * 8);
    // Reduced in BF16 (grad_reduce_in_fp32: false, NeMo's grad_sync_dtype: bf16): half the bytes.
    const TrainingReport bf16 =
        run_layout({fmt::format("parallelism.tensor={}", t), fmt::format("parallelism.pipeline={}", p),
                    "parallelism.grad_reduce_in_fp32=false"});
    CHECK(group(bf16, "data").bytes_per_gpu == Approx(2 * (d - 1) / d * g / 2).epsilon(1e-6));
  }
}

TEST_CASE("grad_reduce_in_fp32: false halves Megatron's gradient buffer, and PyTorch's engines refuse the key") {
  const TrainingReport fp32 = run_layout({"parallelism.tensor=8", "parallelism.sharding=optimizer"});
  const TrainingReport bf16 =
      run_layout({"parallelism.tensor=8", "parallelism.sharding=optimizer", "parallelism.grad_reduce_in_fp32=false"});
  // The FP32 main-grad buffer, whole on every rank: 4 bytes a parameter over 8 tensor ranks, or 2.
  CHECK(static_cast<double>(fp32.memory.gradients.value) == Approx(4 * kLlama3_8bParams / 8).epsilon(1e-3));
  CHECK(2 * bf16.memory.gradients.value == fp32.memory.gradients.value);
  CHECK(bf16.memory.weights == fp32.memory.weights);
  CHECK(bf16.memory.optimizer_state == fp32.memory.optimizer_state);
  CHECK_THROWS_WITH(run_layout({"parallelism.sharding=optimizer", "parallelism.grad_reduce_in_fp32=false"}),
                    Catch::Contains("parallelism.grad_reduce_in_fp32") && Catch::Contains("needs Megatron's layout"));
}

TEST_CASE("without overlap every bucket waits for its chunk's whole backward: the same bytes, more exposed") {
  // The model-parallel engine under each sharding level, then the sharded engines: ZeRO-1 without a layout, and
  // FSDP beside tensor parallelism.
  const std::vector<std::vector<std::string>> layouts = {
      {"parallelism.tensor=4", "parallelism.pipeline=2", "parallelism.sharding=none"},
      {"parallelism.tensor=4", "parallelism.pipeline=2", "parallelism.sharding=optimizer"},
      {"parallelism.tensor=4", "parallelism.pipeline=2", "parallelism.sharding=gradients"},
      {"parallelism.sharding=optimizer"},
      {"parallelism.tensor=4", "parallelism.sharding=full"}};
  for (const std::vector<std::string>& layout : layouts) {
    INFO(layout.back());
    const TrainingReport overlapped = run_layout(layout);
    std::vector<std::string> serial = layout;
    serial.emplace_back("training.overlap=false");
    const TrainingReport after = run_layout(serial);
    CHECK(group(after, "data").bytes_per_gpu == group(overlapped, "data").bytes_per_gpu);
    CHECK(group(after, "data").exposed > group(overlapped, "data").exposed);
    CHECK(after.iteration_mean > overlapped.iteration_mean);
  }
}

TEST_CASE("tensor groups of 8 stay on each node's NVLink, of 16 they cross the network and name it") {
  // 100 Gb/s rails: a node's network is a ninth of its NVLink (with 400 Gb/s rails, nearly as fast as NCCL's NVLink
  // rings, a 16-way tensor group across two nodes costs about what an 8-way one does inside one).
  // No data parallelism (tensor x pipeline = the 32 GPUs), so the network carries the pipeline's transfers only.
  const TrainingReport inside =
      run_layout({"parallelism.tensor=8", "parallelism.pipeline=4", "cluster.topology.nic_bw=100Gbps"});
  REQUIRE_FALSE(inside.busiest_links.empty());
  for (const LinkReport& link : inside.busiest_links) CHECK(link.link_class == "nvlink");
  const TrainingReport across =
      run_layout({"parallelism.tensor=16", "parallelism.pipeline=2", "cluster.topology.nic_bw=100Gbps"});
  CHECK(across.busiest_links.front().link_class == "network");
  CHECK(group(across, "tensor").exposed > group(inside, "tensor").exposed * 2);
  CHECK(across.samples_per_second < inside.samples_per_second);
  CHECK(across.bottleneck.bound == "communication");
  CHECK_THAT(across.bottleneck.resource, Catch::Contains("inter-node network"));
}

TEST_CASE(
    "a tensor AllReduce's bytes per GPU: 2 (t - 1)/t x b s h x 2 bytes, 5 per block and 2 more, per micro-batch") {
  // Megatron's sequence parallelism: 2 allreduces' worth forward, 3 backward (its 2 and the column-parallel inputs
  // all-gathered again for the weight gradients, one allreduce's worth); the embedding's and the head's.
  const TrainingReport r = run_layout({"parallelism.tensor=8"});
  const double message = 1.0 * 2048 * 4096 * 2;
  const double per_rank = 8 * (5 * 32 + 2) * message * 2 * 7 / 8;
  CHECK(group(r, "tensor").bytes_per_gpu == Approx(per_rank).epsilon(1e-12));
}

TEST_CASE("a pipeline of 4 stages and 8 micro-batches idles at least (p - 1)/(m + p - 1) of its time") {
  // 5 blocks on the last stage, which also runs the LM head and the loss (128,256 logits a token), 9 on the others:
  // stages of about equal time, fast transfers.
  const TrainingReport r = run_layout({"parallelism.pipeline=4", "parallelism.decoder_last_pipeline_num_layers=5"});
  REQUIRE(r.layout);
  CHECK(r.layout->bubble_fraction >= 3.0 / 11.0 - 1e-9);
  CHECK(r.layout->bubble_fraction < 3.0 / 11.0 + 0.1);
  // Megatron's even split gives the last stage 8 blocks beside them, and the pipeline waits for it.
  const TrainingReport even = run_layout({"parallelism.pipeline=4"});
  CHECK(even.layout->bubble_fraction > r.layout->bubble_fraction);
  // Interleaving two chunks per stage cuts it.
  const TrainingReport interleaved =
      run_layout({"parallelism.pipeline=4", "parallelism.schedule=interleaved", "parallelism.virtual_stages=2"});
  CHECK(interleaved.layout->bubble_fraction < even.layout->bubble_fraction);
  CHECK(interleaved.samples_per_second > even.samples_per_second);
  // The shares, bubble included, add up.
  const double shares = r.compute_share + r.optimizer_share + r.exposed_communication_share + r.idle_share +
                        r.pipeline_bubble_share + r.overlap_interference_share;
  CHECK(shares == Approx(1).epsilon(1e-9));
}

TEST_CASE("model-parallel runs are deterministic") {
  const auto json = [] {
    return to_json(run_layout({"parallelism.tensor=4", "parallelism.pipeline=2", "parallelism.sharding=optimizer"}))
        .dump();
  };
  CHECK(json() == json());
}

TEST_CASE("what model-parallel runs do not simulate yet is refused at its key") {
  CHECK_THROWS_WITH(run_layout({"parallelism.pipeline=2", "training.communication=parameter_server"}),
                    Catch::Contains("parameter servers are not simulated yet with a model-parallel layout"));
  CHECK_THROWS_WITH(run_layout({"parallelism.pipeline=4", "parallelism.schedule=interleaved",
                                "parallelism.virtual_stages=2", "model.micro_batches=6"}),
                    Catch::Contains("parallelism.schedule: the interleaved schedule needs model.micro_batches in "
                                    "multiples of the 4 pipeline stages, got 6"));
}

TEST_CASE("full checkpointing runs each block's forward again in backward, its tensor AllReduces too") {
  const TrainingReport none = run_layout({"parallelism.tensor=8"});
  const TrainingReport full = run_layout({"parallelism.tensor=8", "parallelism.activation_checkpointing=full"});
  // Two more AllReduces per block and micro-batch: 5 x 32 + 2 becomes 7 x 32 + 2.
  CHECK(group(full, "tensor").bytes_per_gpu / group(none, "tensor").bytes_per_gpu ==
        Approx((7.0 * 32 + 2) / (5.0 * 32 + 2)).epsilon(1e-12));
  CHECK(full.per_worker[0].compute > none.per_worker[0].compute);
  CHECK(full.memory.activations < none.memory.activations);
  CHECK(full.layout->hardware_flops_utilization > full.layout->model_flops_utilization);
  CHECK(none.layout->hardware_flops_utilization == none.layout->model_flops_utilization);
  CHECK(full.samples_per_second < none.samples_per_second);
}

TEST_CASE(
    "expert parallelism: all-to-all bytes per GPU in closed form, experts' state split, refused where it cannot be") {
  constexpr const char* kMixtral = R"(
name: moe
cluster:
  gpu: H100-SXM-80GB
  topology: {kind: dgx, nodes: 2, gpus: 8, nvlink_bw: 450GB/s, nic_bw: 400Gbps}
model: {name: mixtral-8x7b, batch_per_gpu: 1, micro_batches: 2, sequence_length: 1024, precision: bf16}
training: {strategy: sync, iterations: 2}
parallelism: {expert: 8, sharding: optimizer}
)";
  const auto run = [&](const std::vector<std::string>& overrides) {
    return run::run_scenario(parse_scenario(kMixtral, "moe.yaml", overrides)).report;
  };
  const TrainingReport r = run({});
  // Per MoE block (32) and micro-batch (2): dispatch and combine forward and backward, each of the rank's
  // 1,024 tokens x 2 routed copies x 4,096 x 2 bytes, of which 7/8 leave the rank.
  const double routed = 1024.0 * 2 * 4096 * 2;
  CHECK(group(r, "expert").bytes_per_gpu == Approx(2 * 32 * 4 * routed * 7 / 8).epsilon(1e-12));
  REQUIRE(r.layout);
  CHECK(r.layout->expert == 8);
  // Each GPU holds one expert of each block: far less than all eight.
  const MemoryReport replicated = run::scenario_memory(parse_scenario(kMixtral, "moe.yaml", {"parallelism.expert=1"}));
  CHECK(r.memory.weights.value * 4 < replicated.weights.value);
  CHECK_THROWS_WITH(run({"parallelism.expert=16"}), Catch::Contains("parallelism.expert"));
  CHECK_THROWS_WITH(run_layout({"parallelism.expert=2"}), Catch::Contains("has no routed experts"));
}

// Full sharding beside a layout: FSDP + TP per unit without a pipeline, per chunk and iteration with one.
TEST_CASE("FSDP beside tensor parallelism gathers every unit twice and reduce-scatters it once per micro-batch") {
  const TrainingReport full = run_layout({"parallelism.tensor=8", "parallelism.sharding=full"});
  const TrainingReport zero1 = run_layout({"parallelism.tensor=8", "parallelism.sharding=optimizer"});
  REQUIRE(full.layout);
  CHECK(full.layout->data == 4);
  CHECK(full.layout->sharding == "full");
  CHECK(full.global_batch == 4 * 8);
  // 3 m (d - 1)/d x G, G the rank's bf16 gradients (each unit's share rounded up, hence the tolerance).
  const double g = 2 * kLlama3_8bParams / 8;
  CHECK(group(full, "data").bytes_per_gpu == Approx(3 * 8 * 3.0 / 4 * g).epsilon(1e-6));
  // PyTorch's tensor parallelism keeps the gathered inputs its products took: 4 allreduces' worth a block against
  // Megatron's 5 (its backward gathers the inputs again), and the 2 of the embedding and the head.
  CHECK(group(full, "tensor").bytes_per_gpu / group(zero1, "tensor").bytes_per_gpu ==
        Approx((4.0 * 32 + 2) / (5.0 * 32 + 2)).epsilon(1e-12));
  // Weights and gradients sharded over the 4 data-parallel ranks (plus two units gathered whole); ZeRO-1 beside
  // tensor parallelism is Megatron's distributed optimizer, whose gradients are FP32 main grads, twice bf16's.
  CHECK(static_cast<double>(full.memory.gradients.value) ==
        Approx(static_cast<double>(zero1.memory.gradients.value) / 8).epsilon(1e-3));
  CHECK(full.memory.weights < zero1.memory.weights);
  CHECK(full.memory.optimizer_state == zero1.memory.optimizer_state);
  // Twelve times the parameters on the network per step, against ZeRO-1's two.
  CHECK(full.samples_per_second < zero1.samples_per_second);
  CHECK(group(full, "data").exposed > group(zero1, "data").exposed);
  const double shares = full.compute_share + full.optimizer_share + full.exposed_communication_share + full.idle_share +
                        full.overlap_interference_share + full.framework_overhead_share + full.pipeline_bubble_share;
  CHECK(shares == Approx(1).epsilon(1e-9));
  CHECK(to_json(full).dump() == to_json(run_layout({"parallelism.tensor=8", "parallelism.sharding=full"})).dump());
}

TEST_CASE("full sharding under a pipeline: each chunk stays gathered through the iteration, ZeRO-1's bytes") {
  const TrainingReport full = run_layout({"parallelism.pipeline=4", "parallelism.sharding=full"});
  const TrainingReport zero1 = run_layout({"parallelism.pipeline=4", "parallelism.sharding=optimizer"});
  CHECK(group(full, "data").bytes_per_gpu == Approx(group(zero1, "data").bytes_per_gpu).epsilon(1e-12));
  // The state ZeRO-1 keeps. ZeRO-1 beside a pipeline is Megatron's distributed optimizer, whose gradients are FP32
  // main grads; FSDP (torchtitan's) under a pipeline accumulates the micro-batches' unsynced whole gradients in its
  // FP32 reduce dtype: the same bytes.
  CHECK(full.memory.weights == zero1.memory.weights);
  CHECK(full.memory.optimizer_state == zero1.memory.optimizer_state);
  CHECK(full.memory.gradients == zero1.memory.gradients);
  // The parameters start as shards, so the first iteration waits for their gathers.
  CHECK(full.samples_per_second < zero1.samples_per_second);
}

TEST_CASE("what full sharding beside a layout does not simulate yet is refused at its key") {
  CHECK_THROWS_WITH(run_layout({"parallelism.tensor=8", "parallelism.sharding=full", "parallelism.shard_group=2"}),
                    Catch::Contains("parallelism.shard_group: HSDP's shard groups are not simulated yet"));
  CHECK_THROWS_WITH(run_layout({"parallelism.tensor=4", "parallelism.expert=2", "parallelism.sharding=full"}),
                    Catch::Contains("parallelism.expert: expert parallelism with full sharding and no pipeline"));
  // FSDP shards over data x context: nothing to shard over only when both are 1.
  CHECK_THROWS_WITH(
      run_layout({"parallelism.tensor=32", "parallelism.sharding=full"}),
      Catch::Contains("parallelism.sharding") && Catch::Contains("at least 2 ranks to shard over (data x context)"));
}

TEST_CASE("a replica's context ranks reduce their gradients together: the data-parallel groups are data x context") {
  // Megatron's gradient buffers reduce over DATA_PARALLEL_GROUP_WITH_CP and torchtitan's FSDP shards over its
  // dp_shard_cp mesh: the c context ranks of a replica hold the same weights and compute their gradients on different
  // tokens. TP 8 x CP 2 over 32 GPUs leaves d = 2, so each gradient is reduced over d x c = 4 ranks: 2 (4 - 1)/4 G.
  for (const char* sharding : {"none", "optimizer", "full"}) {
    INFO(sharding);
    const TrainingReport r =
        run_layout({"parallelism.tensor=8", "parallelism.context=2", fmt::format("parallelism.sharding={}", sharding)});
    const double g = 2 * kLlama3_8bParams / 8;
    // FSDP gathers each unit twice per micro-batch besides its reduce-scatter: (2 + 1) of the half-allreduce's bytes
    // each micro-batch, against ZeRO's one reduce-scatter and one gather per iteration. Megatron's layouts reduce
    // from their FP32 buffer: the all-reduce moves 2 G, ZeRO-1's reduce-scatter 2 G and its gather of the BF16
    // parameters G.
    const std::string level = sharding;
    const double per_iteration = level == "full" ? 8 * 3.0 / 2 : level == "optimizer" ? 3.0 / 2 : 2;
    CHECK(group(r, "data").bytes_per_gpu == Approx(per_iteration * 2 * 3 / 4 * g).epsilon(1e-6));
    CHECK(r.layout->data == 2);
    CHECK(r.global_batch == 2 * 8);  // the context ranks share their samples
  }
  // With no data parallelism at all (TP 8 x CP 4), the context ranks still reduce, and ZeRO and FSDP shard over them.
  for (const char* sharding : {"optimizer", "full"}) {
    INFO(sharding);
    const TrainingReport r =
        run_layout({"parallelism.tensor=8", "parallelism.context=4", fmt::format("parallelism.sharding={}", sharding)});
    CHECK(group(r, "data").bytes_per_gpu > 0);
    // Adam's 12 bytes a parameter, over tensor x context ranks.
    CHECK(static_cast<double>(r.memory.optimizer_state.value) == Approx(12 * kLlama3_8bParams / 8 / 4).epsilon(1e-3));
  }
}

TEST_CASE("TP communication overlap hides tensor collectives behind the GEMMs and moves the same bytes") {
  // TP 8 inside each node: the block's GEMMs (8B at 2,048 tokens, split 8 ways) outlast its all-gathers and
  // reduce-scatters on NVLink, so what stays exposed is their first chunks and the reduce-scatters' SM share.
  const std::vector<std::string> layout{"parallelism.tensor=8", "parallelism.pipeline=4"};
  std::vector<std::string> overlapped = layout;
  overlapped.push_back("parallelism.tp_comm_overlap=true");
  const TrainingReport plain = run_layout(layout);
  const TrainingReport overlap = run_layout(overlapped);
  const GroupCommunication& before = group(plain, "tensor");
  const GroupCommunication& after = group(overlap, "tensor");
  CHECK(after.bytes_per_gpu == before.bytes_per_gpu);
  CHECK(after.exposed > SimTime::zero());
  CHECK(after.exposed < before.exposed.scaled(0.5));
  CHECK(overlap.iteration_mean < plain.iteration_mean);
  CHECK(after.collectives.find("tp_comm_overlap") != std::string::npos);
  // The compute is the same: what the overlap saves is at most the exposed tensor time it hides.
  CHECK(plain.iteration_mean - overlap.iteration_mean <= before.exposed - after.exposed + SimTime::from_us(1));
}

TEST_CASE("selective_op recomputes part of each block: its time and memory lie between none's and full's") {
  const auto run_with = [](const char* checkpointing) {
    return run_layout({"parallelism.tensor=8", "parallelism.pipeline=4",
                       std::string("parallelism.activation_checkpointing=") + checkpointing});
  };
  const TrainingReport none = run_with("none");
  const TrainingReport op = run_with("selective_op");
  const TrainingReport full = run_with("full");
  CHECK(none.iteration_mean < op.iteration_mean);
  CHECK(op.iteration_mean < full.iteration_mean);
  CHECK(full.memory.activations < op.memory.activations);
  CHECK(op.memory.activations < none.memory.activations);
  // The recomputed forward counts in the hardware FLOPs, not the model's.
  CHECK(op.utilization.hardware_flops_utilization > op.utilization.model_flops_utilization);
  CHECK(op.utilization.hardware_flops_utilization / op.utilization.model_flops_utilization <
        full.utilization.hardware_flops_utilization / full.utilization.model_flops_utilization);
}
