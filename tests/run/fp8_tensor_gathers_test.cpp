// Under a scaled precision the tensor group's all-gathers move the quantized activations (tensor_overlap.hpp):
// Transformer Engine fuses the FP8 cast into the norm before Megatron's sequence-parallel gather and casts the output
// gradient before gathering it; the reduce-scatters move the 16-bit outputs. Hand-worked on Llama 3 8B at TP 4.
#include <catch2/catch.hpp>

#include <string>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

// Llama 3 8B (32 blocks) at 2,048 tokens, TP 4 x DP 2 on one DGX H100, Megatron's distributed optimizer.
std::string tp_yaml(const std::string& precision, const std::string& parallelism_extra = "") {
  return "name: fp8-tp\n"
         "cluster: {gpu: H100-SXM-80GB, topology: \"dgx:nodes=1,gpus=8\", speed_spread: 0}\n"
         "model: {name: llama3-8b, batch_per_gpu: 1, sequence_length: 2048, precision: " +
         precision +
         ", optimizer: adam}\n"
         "training: {strategy: sync, iterations: 1}\n"
         "parallelism: {tensor: 4, data: auto, sharding: optimizer" +
         parallelism_extra + "}\n";
}

const GroupCommunication& tensor_communication(const TrainingReport& r) {
  for (const GroupCommunication& g : r.group_communication) {
    if (g.group == "tensor") return g;
  }
  FAIL("no tensor group");
  return r.group_communication.front();
}

TrainingReport report_of(const std::string& yaml) {
  return run::run_scenario(parse_scenario(yaml, "fp8-tp.yaml")).report;
}

}  // namespace

TEST_CASE("Megatron's FP8 all-gathers move half the bytes of its 16-bit reduce-scatters") {
  // Per block and micro-batch, in AllReduces' worth of the 2 x s x h-byte activation: forward gathers 1 and
  // scatters 1, backward output-gradient gathers 1, scatters 1 and the inputs' gathers again 1; the embedding's and
  // the head's AllReduce 2 a micro-batch. In BF16 all of it at 2 bytes, 5 x 32 + 2 = 162; in FP8 the three gathers'
  // worth at 1 byte: 2 x 32 + 2 + 3 x 32 / 2 = 114.
  const GroupCommunication bf16 = tensor_communication(report_of(tp_yaml("bf16")));
  const GroupCommunication fp8 = tensor_communication(report_of(tp_yaml("fp8")));
  CHECK(fp8.bytes_per_gpu / bf16.bytes_per_gpu == Approx(114.0 / 162.0).epsilon(1e-12));
  CHECK(fp8.exposed < bf16.exposed);
  // Beside the GEMMs (tp_comm_overlap) the same bytes move; less of them shows.
  const GroupCommunication overlapped = tensor_communication(report_of(tp_yaml("fp8", ", tp_comm_overlap: true")));
  CHECK(overlapped.bytes_per_gpu == fp8.bytes_per_gpu);
  CHECK(overlapped.exposed < fp8.exposed);
}

TEST_CASE("without sequence parallelism FP8 gathers nothing: the AllReduces move the 16-bit outputs") {
  const GroupCommunication bf16 = tensor_communication(report_of(tp_yaml("bf16", ", sequence_parallel: false")));
  const GroupCommunication fp8 = tensor_communication(report_of(tp_yaml("fp8", ", sequence_parallel: false")));
  CHECK(fp8.bytes_per_gpu == bf16.bytes_per_gpu);
}

TEST_CASE("PyTorch's tensor parallelism gathers its FP8 inputs, and its output gradients in 16 bits") {
  // FSDP beside TP 4 (torchao's float8 layers): forward gathers 1 at 1 byte; scatters 2 and output-gradient gathers
  // 1 at 2 bytes; embedding and head 2: (3 x 32 + 2 + 32 / 2) / (4 x 32 + 2) = 114 / 130.
  std::string bf16 = tp_yaml("bf16");
  std::string fp8 = tp_yaml("fp8");
  for (std::string* yaml : {&bf16, &fp8}) yaml->replace(yaml->find("sharding: optimizer"), 19, "sharding: full");
  CHECK(tensor_communication(report_of(fp8)).bytes_per_gpu / tensor_communication(report_of(bf16)).bytes_per_gpu ==
        Approx(114.0 / 130.0).epsilon(1e-12));
}
