#include "gpu_kernel_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string_view>

namespace syncsim::compute_detail {

namespace {

// Streaming multiprocessors (AMD: compute units) and board power, from each part's whitepaper or datasheet: Kepler
// GK210 whitepaper (13 SMX per GPU; the K80 board's 300 W is for two GPUs), P100 whitepaper (56 SMs, 300 W SXM2),
// V100 whitepaper (80, 300 W SXM2), A100 whitepaper (108; 400 W SXM datasheet), H100 whitepaper (132 SXM5, 114
// PCIe; datasheet 700 W SXM, 350 W PCIe, 400 W NVL; the 96 GB SXM of Meta's Grand Teton hosts is the same board,
// which Meta runs capped at 500 W), H200 datasheet (700 W), Blackwell (148 SMs per GPU as S.
// Bekman's ml-engineering compute/accelerator/README.md @744d01e tabulates them; DGX B200 datasheet 1,000 W per GPU,
// HGX B300 1,100 W, GB200 NVL72 1,200 W, GB300 NVL72 1,400 W), MI300X data sheet (304 CUs, 750 W), MI355X page (256
// CUs, 1,400 W), L40S datasheet (142 SMs, 350 W), Ada whitepaper (RTX 4090: 128 SMs, 450 W), Turing whitepaper
// (RTX 2080 Ti: 68 SMs, 250 W).
struct Hardware {
  std::string_view gpu;
  int multiprocessors;
  double board_power_watts;
};
constexpr Hardware kHardware[] = {
    {"K80", 13, 150},
    {"P100-SXM2-16GB", 56, 300},
    {"V100-SXM2-16GB", 80, 300},
    {"V100-SXM2-32GB", 80, 300},
    {"A100-SXM4-40GB", 108, 400},
    {"A100-SXM4-80GB", 108, 400},
    {"H100-SXM-80GB", 132, 700},
    {"H100-SXM-96GB", 132, 700},
    {"H100-PCIe-80GB", 114, 350},
    {"H100-NVL-94GB", 132, 400},
    {"H200-SXM-141GB", 132, 700},
    {"B200-SXM-180GB", 148, 1000},
    {"GB200-186GB", 148, 1200},
    {"B300-SXM-288GB", 148, 1100},
    {"GB300-288GB", 148, 1400},
    {"MI300X-192GB", 304, 750},
    {"MI355X-288GB", 256, 1400},
    {"L40S", 142, 350},
    {"RTX-2080-Ti", 68, 250},
    {"RTX-4090", 128, 450},
};

// BF16 maximum achievable matmul throughput and its shape (validation/sources/kernels.md, 1a). S. Bekman,
// ml-engineering compute/accelerator/README.md @744d01e, "Maximum Achievable Matmul FLOPS" (torch matmul, best shape
// of a brute-force search): A100 SXM 271.2 TFLOP/s at 1024x10240x5120, H100 SXM 794.5 at 2048x2048x13312, B200
// 1,745.0 at 1792x16128x3072, B300 1,769.0 at 12288x18432x1024. H200: 791.7 at 8192^3, measured by syncsim
// (validation/measurements/2026-11-29-1xH200). MI300X: AMD, "Measuring Max-Achievable FLOPs - Part 2" (ROCm blogs,
// 2025-02-28), hipBLASLt 708 at 4096x4864x32896. A part with the same tensor cores and no measurement of its own
// takes its sibling's fraction (A100 40 GB, H100 96 GB, PCIe and NVL, GB200, GB300).
struct BestGemmOf {
  std::string_view gpu;
  BestGemm best;
};
constexpr BestGemm kA100{271.2 / 312, 1024, 10240, 5120};
constexpr BestGemm kH100{794.5 / 989.4, 2048, 2048, 13312};
constexpr BestGemm kB200{1745.0 / 2250, 1792, 16128, 3072};
constexpr BestGemm kB300{1769.0 / 2250, 12288, 18432, 1024};
constexpr BestGemmOf kBestGemms[] = {
    {"A100-SXM4-40GB", kA100},
    {"A100-SXM4-80GB", kA100},
    {"H100-SXM-80GB", kH100},
    {"H100-SXM-96GB", kH100},
    {"H100-PCIe-80GB", kH100},
    {"H100-NVL-94GB", kH100},
    {"H200-SXM-141GB", {791.7 / 989.4, 8192, 8192, 8192}},
    {"B200-SXM-180GB", kB200},
    {"GB200-186GB", kB200},
    {"B300-SXM-288GB", kB300},
    {"GB300-288GB", kB300},
    {"MI300X-192GB", {708 / 1307.4, 4096, 4864, 32896}},
};

// Flash attention forward, head dimension 128, 16k tokens, no mask, over the dense BF16 peak (kernels.md, 3):
// Dao-AILab/flash-attention README @0251105 charts. A100: FlashAttention-2 203 of 312 TFLOP/s (forward and backward;
// PyTorch's scaled_dot_product_attention runs the same kernel). H100 SXM: cuDNN 595 of 989 (the FlashAttention-3
// chart's cuDNN bars; Transformer Engine's fused attention on Hopper is cuDNN's) and FlashAttention-2 338 (what
// PyTorch's scaled_dot_product_attention runs on Hopper). B200: FlashAttention-4 reaches 1,605 TFLOP/s and is 1.3x
// cuDNN 9.13 (together.ai, "FlashAttention-4", 2026-03), so cuDNN about 1,235 of 2,250. Siblings share their
// sibling's figures; the B300 is left out (Blackwell Ultra doubled the exponential units attention is bound by).
struct AttentionOf {
  std::string_view gpu;
  FlashAttentionRates rates;
};
constexpr double kA100Flash2 = 203.0 / 312;
constexpr FlashAttentionRates kHopper{.fused = 595.0 / 989.4, .eager = 338.0 / 989.4};
constexpr FlashAttentionRates kBlackwell{.fused = 1605.0 / 1.3 / 2250, .eager = std::nullopt};
constexpr AttentionOf kAttention[] = {
    {"A100-SXM4-40GB", {kA100Flash2, kA100Flash2}},
    {"A100-SXM4-80GB", {kA100Flash2, kA100Flash2}},
    {"H100-SXM-80GB", kHopper},
    {"H100-SXM-96GB", kHopper},
    {"H100-PCIe-80GB", kHopper},
    {"H100-NVL-94GB", kHopper},
    {"H200-SXM-141GB", kHopper},
    {"B200-SXM-180GB", kBlackwell},
    {"GB200-186GB", kBlackwell},
};

// What a matmul that saturates the board keeps of its burst rate (GpuSpec::sustained_matmul; kernels.md, 1b): S.
// Bekman's maximum sustainable matmul FLOPS (MSMF: the rate a shape holds over a window once the board sits at its
// power limit) over his maximum achievable (MAMF: a short burst at the boost clock), ml-engineering
// compute/accelerator/README.md, "Maximum Achievable and Sustainable Matmul FLOPS" (mamf-finder.py v4, 2026): H200
// BF16 755 of 834 TFLOP/s; B200 1,429 of 1,745 (its clock settling near 1,450 MHz from a 1,965 MHz boost at
// 1,000 W). A part with the same die on another board takes its sibling's fraction carried to its own board power by
// the clock's cube-root law (power_clock_factor), at most 1: the H100 SXM (700 W, the H200's board) 0.905, the
// H100 NVL (400 W) 0.757, the H100 PCIe (350 W) 0.718, the GB200 (1,200 W) 0.870; and Blackwell Ultra, whose BF16
// and FP8 tensor cores are the B200's (the same peaks at the same process), the B300 (1,100 W) 0.845 and the GB300
// (1,400 W) 0.916. The A100 has no published MSMF and keeps its burst rate; AMD's MI300X anchor is already a
// sustained one (hipBLASLt timed at the clock the GEMM held, 1,207 of 2,100 MHz).
struct SustainedOf {
  std::string_view gpu;
  double fraction;
  double at_watts;  // the board power it was measured at
};
constexpr double kHopperSustained = 755.0 / 834;
constexpr double kBlackwellSustained = 1429.0 / 1745;
constexpr SustainedOf kSustained[] = {
    {"H100-SXM-80GB", kHopperSustained, 700},   {"H100-SXM-96GB", kHopperSustained, 700},
    {"H100-PCIe-80GB", kHopperSustained, 700},  {"H100-NVL-94GB", kHopperSustained, 700},
    {"H200-SXM-141GB", kHopperSustained, 700},  {"B200-SXM-180GB", kBlackwellSustained, 1000},
    {"GB200-186GB", kBlackwellSustained, 1000}, {"B300-SXM-288GB", kBlackwellSustained, 1000},
    {"GB300-288GB", kBlackwellSustained, 1000},
};

// The row of `table` for the GPU named `gpu`, or nullptr.
template <typename Row, std::size_t N>
const Row* row_of(const Row (&table)[N], std::string_view gpu) {
  for (const Row& row : table) {
    if (row.gpu == gpu) return &row;
  }
  return nullptr;
}

}  // namespace

void add_kernel_data(std::vector<GpuCatalogEntry>& catalog) {
  for (GpuCatalogEntry& entry : catalog) {
    GpuSpec& gpu = entry.spec;
    if (const Hardware* h = row_of(kHardware, gpu.name)) {
      gpu.multiprocessors = h->multiprocessors;
      gpu.board_power_watts = h->board_power_watts;
    }
    if (const BestGemmOf* b = row_of(kBestGemms, gpu.name)) gpu.best_gemm = b->best;
    if (const AttentionOf* a = row_of(kAttention, gpu.name)) gpu.flash_attention = a->rates;
    const SustainedOf* sustained = row_of(kSustained, gpu.name);
    if (sustained && gpu.board_power_watts) {
      gpu.sustained_matmul =
          std::min(1.0, sustained->fraction * std::cbrt(*gpu.board_power_watts / sustained->at_watts));
    }
  }
}

}  // namespace syncsim::compute_detail
