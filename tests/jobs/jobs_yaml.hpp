#pragma once
// Scenarios the jobs tests share: jobs whose compute is nothing (an inline GPU too fast to measure), so that an
// iteration is its ring AllReduce alone, on small fat trees with no latency, so that every time is bytes / rate.
#include <string>

namespace syncsim::jobs_test {

// 25e6 fp32 parameters: a 100 MB gradient; one FLOP a sample on a 1e9 TFLOP/s GPU: compute rounds to no time.
inline std::string wire_job(const std::string& name, int gpus, const std::string& extra = "") {
  return "  - {name: " + name + ", gpus: " + std::to_string(gpus) +
         ", model: {name: wire, layers: [{name: w, params: 25e6, forward_flops: 1}], batch_per_gpu: 1, "
         "kernel_overhead: 0s, efficiency: 1}" +
         extra + "}\n";
}

// A job whose compute is ResNet-50's on an A100, for the DDP cases.
inline std::string ddp_job(const std::string& name, int gpus) {
  return "  - {name: " + name + ", gpus: " + std::to_string(gpus) + ", model: {name: resnet50, batch_per_gpu: 64}}\n";
}

inline constexpr const char* kInstantGpu = "{name: instant, peak_tflops: 1e9, mem_bw: 1000000000TB/s, mem: 80GB}";

// 8 GPUs under 4 leaves of 2, one spine: each leaf has one uplink for two GPUs (2:1 oversubscribed).
inline std::string two_tier_cluster(const std::string& gpu = kInstantGpu, int gpus = 8) {
  return "cluster:\n  gpu: " + gpu + "\n  topology: \"fattree:n=" + std::to_string(gpus) +
         ",radix=4,bw=100Gbps,oversub=2\"\n";
}

}  // namespace syncsim::jobs_test
