#include "syncsim/compute/gpu_spec.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <utility>

#include "gpu_kernel_data.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

constexpr double kTera = 1e12;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;

GpuSpec spec(std::string name, int compute_capability, PrecisionPeaks peaks, double mem_bw_gb_per_s,
             std::int64_t memory_gib) {
  return GpuSpec{std::move(name), peaks, Bandwidth::from_gb_per_s(mem_bw_gb_per_s), Bytes{memory_gib * kGiB},
                 compute_capability};
}

// NVLink / Infinity Fabric per GPU and direction (half the datasheet's bidirectional figure) and the GPUs of one
// domain as sold. Sources: P100 datasheet (2016) NVLink 160 GB/s, DGX-1 of 8; V100 datasheet (2018) NVLink 300 GB/s,
// DGX-1 of 8; A100 datasheet (2021) 600 GB/s, HGX of 8; H100 datasheet (2023) SXM 900 GB/s, HGX of 8, PCIe and NVL 600
// GB/s over a bridge of 2; H200 datasheet (2024) 900 GB/s; DGX B200 and HGX B300 datasheets 1.8 TB/s per GPU, 8; GB200
// NVL72 datasheet (2024) 1.8 TB/s per GPU, 130 TB/s over 72; MI300X data sheet (2023) 896 GB/s of Infinity Fabric (7
// links), a platform of 8; GB300 NVL72 (2025) 1.8 TB/s per GPU, 72; MI355X (2025) 7 Infinity Fabric links of 153.6
// GB/s, 1,075.2 GB/s, a platform of 8; GeForce RTX 2080 Ti NVLink bridge 100 GB/s, 2. The L40S and RTX 4090 have no
// NVLink.
//
// The reference node's network (nic_gbps per GPU, 0: no reference node) and host PCIe (pcie_gb_s per direction):
// DGX-1 (P100, V100) 4 EDR InfiniBand ports of 100 Gb/s for 8 GPUs and PCIe Gen3 x16; DGX A100 8 ConnectX-6 HDR
// of 200 Gb/s and Gen4; DGX H100 and H200 8 ConnectX-7 of 400 Gb/s and Gen5; DGX B200 8 ConnectX-7 of 400 Gb/s and
// Gen5; DGX B300 8 ConnectX-8 of 800 Gb/s. The PCIe and consumer parts have no reference node.
//
// The reference node's host memory (host_memory_gib, DDR DIMMs, binary-sized): DGX-1 datasheets (P100, V100) 512
// GB; DGX A100 datasheet (2020) 1 TB with the 320 GB of A100 40 GB, 2 TB with the 640 GB of A100 80 GB; DGX H100
// and DGX H200 datasheets 2 TB; DGX B200 datasheet 2 TB (4 TB optional); DGX B300 2 TB. The host-memory tier of a
// recommendation model's tables gives each GPU its node's memory over the node's GPUs (embedding_tiers.hpp).
struct Interconnect {
  std::string_view gpu;
  double gb_per_s_each_way;
  int domain_gpus;
  double nic_gbps = 0;
  double pcie_gb_s = 0;
  std::int64_t host_memory_gib = 0;
};
constexpr Interconnect kInterconnects[] = {
    {"P100-SXM2-16GB", 80, 8, 50, 16, 512},
    {"V100-SXM2-16GB", 150, 8, 50, 16, 512},
    {"V100-SXM2-32GB", 150, 8, 50, 16, 512},
    {"A100-SXM4-40GB", 300, 8, 200, 32, 1024},
    {"A100-SXM4-80GB", 300, 8, 200, 32, 2048},
    {"H100-SXM-80GB", 450, 8, 400, 64, 2048},
    {"H100-SXM-96GB", 450, 8, 400, 64, 2048},
    {"H100-PCIe-80GB", 300, 2},
    {"H100-NVL-94GB", 300, 2},
    {"H200-SXM-141GB", 450, 8, 400, 64, 2048},
    {"B200-SXM-180GB", 900, 8, 400, 64, 2048},
    {"GB200-186GB", 900, 72},
    {"B300-SXM-288GB", 900, 8, 800, 64, 2048},
    {"GB300-288GB", 900, 72},
    {"MI300X-192GB", 448, 8},
    {"MI355X-288GB", 537.6, 8},
    {"RTX-2080-Ti", 50, 2},
};

// Maximum achievable matmul throughput, FP8 over BF16, each as a fraction of its dense peak (GpuSpec::
// scaled_gemm_ratio). S. Bekman, "Machine Learning Engineering", compute/accelerator/README.md (@744d01e), the
// "Maximum Achievable Matmul FLOPS" table (torch matmul, best shape of a brute-force search): H100 SXM BF16 794.5
// (0.803), FP8 1,402.6 (0.709); H200 FP8 1,453.4 (0.734) against the BF16 791.7 (0.800) syncsim measured on an H200
// (validation/measurements/2026-11-29-1xH200); B200 BF16 1,745.0 (0.776), FP8 3,432.5 (0.763); B300 BF16 1,769.0
// (0.786), FP8 3,353.3 (0.745). AMD, "Measuring Max-Achievable FLOPs - Part 2" (ROCm blogs, 2025-02-28),
// hipBLASLt on MI300X: BF16 708 (0.542), FP8 1,273 (0.487). A part with the same tensor cores and no measurement of
// its own takes its sibling's: the H100 PCIe, NVL and 96 GB the H100 SXM's, GB200 the B200's, GB300 the B300's. The
// L40S, the RTX 4090 and the MI355X have none published.
struct ScaledGemmRatio {
  std::string_view gpu;
  double ratio;
};
constexpr ScaledGemmRatio kScaledGemmRatios[] = {
    {"H100-SXM-80GB", 0.709 / 0.803}, {"H100-SXM-96GB", 0.709 / 0.803},  {"H100-PCIe-80GB", 0.709 / 0.803},
    {"H100-NVL-94GB", 0.709 / 0.803}, {"H200-SXM-141GB", 0.734 / 0.800}, {"B200-SXM-180GB", 0.763 / 0.776},
    {"GB200-186GB", 0.763 / 0.776},   {"B300-SXM-288GB", 0.745 / 0.786}, {"GB300-288GB", 0.745 / 0.786},
    {"MI300X-192GB", 0.487 / 0.542},
};

void add_scaled_gemm_ratios(std::vector<GpuCatalogEntry>& catalog) {
  for (GpuCatalogEntry& entry : catalog) {
    for (const ScaledGemmRatio& measured : kScaledGemmRatios) {
      if (measured.gpu == entry.spec.name) entry.spec.scaled_gemm_ratio = measured.ratio;
    }
  }
}

void add_interconnects(std::vector<GpuCatalogEntry>& catalog) {
  for (GpuCatalogEntry& entry : catalog) {
    for (const Interconnect& link : kInterconnects) {
      if (link.gpu != entry.spec.name) continue;
      entry.spec.nvlink_bandwidth = Bandwidth::from_gb_per_s(link.gb_per_s_each_way);
      entry.spec.nvlink_domain_gpus = link.domain_gpus;
      if (link.nic_gbps > 0) entry.spec.node_nic_bandwidth = Bandwidth::from_gbps(link.nic_gbps);
      if (link.pcie_gb_s > 0) entry.spec.node_pcie_bandwidth = Bandwidth::from_gb_per_s(link.pcie_gb_s);
      if (link.host_memory_gib > 0) entry.spec.node_host_memory = Bytes{link.host_memory_gib * kGiB};
    }
  }
}

// Every hardware constant of the catalog, with its source. Memory sizes are the datasheet's nominal capacity read
// as GiB (HBM and GDDR devices are binary-sized; nvidia-smi shows an A100-80GB as 81920 MiB); the driver keeps a
// few hundred MiB of that for itself, which memory_check does not subtract.
std::vector<GpuCatalogEntry> build_catalog() {
  std::vector<GpuCatalogEntry> catalog;
  // NVIDIA Tesla K80 datasheet (2014): two GK210 GPUs per board, each its own device (an AWS p2.8xlarge has 8 of
  // them on 4 boards): per GPU half the board's "up to 8.73 TFLOPS" FP32 with GPU Boost, 12 GB of GDDR5 at
  // 240 GB/s. Kepler has no FP16 arithmetic (fp16 tensors only as storage) and no NVLink.
  catalog.push_back({spec("K80", 37, {.fp32 = 4.365 * kTera, .tf32 = 4.365 * kTera}, 240, 12),
                     {"Tesla-K80", "K80-12GB"},
                     "NVIDIA Tesla K80 datasheet (2014), per GK210 GPU (half a board), with GPU Boost"});
  // NVIDIA Tesla P100 datasheet (2016), SXM2 (NVLink) column: FP32 10.6, FP16 21.2 TFLOPS (no tensor cores),
  // HBM2 16 GB at 732 GB/s; NVLink 160 GB/s bidirectional. Pascal has no TF32 or BF16.
  catalog.push_back(
      {spec("P100-SXM2-16GB", 60, {.fp32 = 10.6 * kTera, .tf32 = 10.6 * kTera, .fp16 = 21.2 * kTera}, 732, 16),
       {"P100", "P100-SXM2", "Tesla-P100-SXM2-16GB"},
       "NVIDIA Tesla P100 datasheet (2016), SXM2"});
  // NVIDIA Tesla V100 GPU Accelerator datasheet (2018), SXM2 column: FP32 15.7 TFLOPS, Tensor Performance
  // 125 TFLOPS (FP16 with FP32 accumulate), HBM2 16 or 32 GB at 900 GB/s. Volta has neither TF32 nor BF16.
  const PrecisionPeaks volta{.fp32 = 15.7 * kTera, .tf32 = 15.7 * kTera, .fp16 = 125 * kTera, .bf16 = std::nullopt};
  catalog.push_back({spec("V100-SXM2-16GB", 70, volta, 900, 16),
                     {"V100-16GB", "V100-SXM2-16G"},
                     "NVIDIA Tesla V100 datasheet (2018), SXM2"});
  catalog.push_back({spec("V100-SXM2-32GB", 70, volta, 900, 32),
                     {"V100-32GB", "V100-SXM2-32G"},
                     "NVIDIA Tesla V100 datasheet (2018), SXM2"});
  // NVIDIA A100 Tensor Core GPU datasheet (2021), SXM columns: FP32 19.5, TF32 156, BF16 312, FP16 312 TFLOPS
  // (the 312/624 starred figures are with sparsity); HBM2 40 GB at 1,555 GB/s, HBM2e 80 GB at 2,039 GB/s.
  const PrecisionPeaks ampere{.fp32 = 19.5 * kTera, .tf32 = 156 * kTera, .fp16 = 312 * kTera, .bf16 = 312 * kTera};
  catalog.push_back({spec("A100-SXM4-40GB", 80, ampere, 1555, 40),
                     {"A100-40GB", "A100-SXM-40GB"},
                     "NVIDIA A100 datasheet (2021), SXM"});
  catalog.push_back({spec("A100-SXM4-80GB", 80, ampere, 2039, 80),
                     {"A100-80GB", "A100-SXM-80GB"},
                     "NVIDIA A100 datasheet (2021), SXM"});
  // NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM: FP32 67 TFLOPS; TF32 989, BF16/FP16 1,979 TFLOPS are
  // "with sparsity" — the dense values are the H100 architecture whitepaper's (2022, table 3, SXM5): TF32 494.7,
  // FP16/BF16 with FP32 accumulate 989.4. HBM3 80 GB at 3.35 TB/s.
  // FP8 (E4M3/E5M2, per-tensor scales): 3,958* TFLOPS, dense 1,978.9 (whitepaper table 3). Hopper has no
  // block-scaled (MX) or FP4 tensor-core formats.
  const PrecisionPeaks hopper{
      .fp32 = 67 * kTera, .tf32 = 494.7 * kTera, .fp16 = 989.4 * kTera, .bf16 = 989.4 * kTera, .fp8 = 1978.9 * kTera};
  catalog.push_back({spec("H100-SXM-80GB", 90, hopper, 3350, 80),
                     {"H100-SXM", "H100-SXM5", "H100-80GB-HBM3"},
                     "NVIDIA H100 datasheet (2023), H100 SXM; dense tensor peaks from the H100 whitepaper"});
  // Meta's Grand Teton hosts (torchtitan's docs/performance.md, where its Llama 3.1 benchmarks ran): H100s with
  // 96 GB of HBM2e at 2.4 TB/s, eight to a host fully connected by NVLink, 400 Gb/s of RDMA per GPU; the H100 SXM's
  // compute (the board runs at a 500 W power limit by default, which the peaks do not show).
  catalog.push_back({spec("H100-SXM-96GB", 90, hopper, 2400, 96),
                     {"H100-96GB-HBM2e", "H100-96GB"},
                     "torchtitan docs/performance.md (Grand Teton: 96 GB HBM2e at 2.4 TB/s); compute as H100 SXM"});
  // The same datasheet, H100 PCIe column: FP32 51 TFLOPS, TF32 756*, BF16/FP16 1,513* TFLOPS (* = with sparsity:
  // dense is half), FP8 3,026*, HBM2e 80 GB at 2 TB/s. nvidia-smi names it "NVIDIA H100 PCIe".
  catalog.push_back(
      {spec(
           "H100-PCIe-80GB", 90,
           {.fp32 = 51 * kTera, .tf32 = 378 * kTera, .fp16 = 756.5 * kTera, .bf16 = 756.5 * kTera, .fp8 = 1513 * kTera},
           2000, 80),
       {"H100-PCIe"},
       "NVIDIA H100 datasheet (2023), H100 PCIe; dense = half the sparse tensor peaks"});
  // The same datasheet, H100 NVL column (one GPU of the NVLink-bridged pair): FP32 60 TFLOPS, TF32 835*, BF16/FP16
  // 1,671* TFLOPS, FP8 3,341*, HBM3 94 GB at 3.9 TB/s. nvidia-smi: "NVIDIA H100 NVL".
  catalog.push_back({spec("H100-NVL-94GB", 90,
                          {.fp32 = 60 * kTera,
                           .tf32 = 417.5 * kTera,
                           .fp16 = 835.5 * kTera,
                           .bf16 = 835.5 * kTera,
                           .fp8 = 1670.5 * kTera},
                          3900, 94),
                     {"H100-NVL"},
                     "NVIDIA H100 datasheet (2023), H100 NVL; dense = half the sparse tensor peaks"});
  // NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM: the H100 SXM's compute (FP32 67, TF32 989*, BF16/FP16
  // 1,979*, FP8 3,958* TFLOPS, * = with sparsity; dense as H100 SXM) with HBM3e 141 GB at 4.8 TB/s.
  catalog.push_back({spec("H200-SXM-141GB", 90, hopper, 4800, 141),
                     {"H200", "H200-SXM", "H200-141GB"},
                     "NVIDIA H200 datasheet (2024), H200 SXM"});
  // Blackwell (compute capability 10.0). NVIDIA DGX B200 datasheet (2024), eight GPUs: FP32 600 TFLOPS (non-tensor
  // dense), TF32 18*, FP16/BF16 36*, FP8 72*, FP4 144* PFLOPS (* = with sparsity), 1,440 GB of HBM3e at 64 TB/s: per
  // GPU FP32 75, TF32 1,125, FP16/BF16 2,250, FP8 4,500, FP4 9,000 dense TFLOPS, 180 GB at 8 TB/s. Blackwell's
  // tensor cores apply MX and NVFP4 block scales at the FP8 and FP4 rates. nvidia-smi: "NVIDIA B200".
  const PrecisionPeaks blackwell{.fp32 = 75 * kTera,
                                 .tf32 = 1125 * kTera,
                                 .fp16 = 2250 * kTera,
                                 .bf16 = 2250 * kTera,
                                 .fp8 = 4500 * kTera,
                                 .mxfp8 = 4500 * kTera,
                                 .nvfp4 = 9000 * kTera,
                                 .mxfp4 = 9000 * kTera};
  catalog.push_back({spec("B200-SXM-180GB", 100, blackwell, 8000, 180),
                     {"B200", "B200-SXM", "B200-180GB"},
                     "NVIDIA DGX B200 datasheet (2024), per GPU; dense = half the sparse tensor peaks"});
  // NVIDIA GB200 NVL72 datasheet (2024), 72 GPUs: FP32 5,760 TFLOPS, TF32 180*, FP16/BF16 360*, FP8 720*, FP4
  // 1,440* PFLOPS, up to 13.4 TB of HBM3e at 576 TB/s: per GPU FP32 80, TF32 1,250, FP16/BF16 2,500, FP8 5,000, FP4
  // 10,000 dense TFLOPS, 186 GB at 8 TB/s (the Grace CPU's LPDDR5X is not GPU memory here). nvidia-smi: "NVIDIA
  // GB200".
  const PrecisionPeaks grace_blackwell{.fp32 = 80 * kTera,
                                       .tf32 = 1250 * kTera,
                                       .fp16 = 2500 * kTera,
                                       .bf16 = 2500 * kTera,
                                       .fp8 = 5000 * kTera,
                                       .mxfp8 = 5000 * kTera,
                                       .nvfp4 = 10000 * kTera,
                                       .mxfp4 = 10000 * kTera};
  catalog.push_back({spec("GB200-186GB", 100, grace_blackwell, 8000, 186),
                     {"GB200", "GB200-NVL72"},
                     "NVIDIA GB200 NVL72 datasheet (2024), per GPU; dense = half the sparse tensor peaks"});
  // Blackwell Ultra (compute capability 10.3). NVIDIA HGX B300 datasheet (2025), eight GPUs: FP32 600 TFLOPS, TF32
  // 18*, FP16/BF16 36*, FP8 72* PFLOPS (the B200's: Blackwell Ultra raised FP4 and attention, not these), FP4
  // printed "144 | 108" PFLOPS (sparse | dense: Blackwell Ultra's FP4 row is not halved), 2.3 TB of HBM3e at 64 TB/s:
  // per GPU 13,500 dense FP4 TFLOPS, 288 GB at 8 TB/s. MXFP4 is taken at the NVFP4 rate, as CUTLASS's Blackwell
  // GEMMs run both block-scaled FP4 kinds (validation/sources/gpu-peaks.md; not published apart for SM103).
  PrecisionPeaks blackwell_ultra = blackwell;
  blackwell_ultra.nvfp4 = 13500 * kTera;
  blackwell_ultra.mxfp4 = 13500 * kTera;
  catalog.push_back({spec("B300-SXM-288GB", 103, blackwell_ultra, 8000, 288),
                     {"B300", "B300-SXM", "B300-288GB"},
                     "NVIDIA HGX B300 datasheet (2025), per GPU; dense = half the sparse tensor peaks"});
  // NVIDIA GB300 NVL72 page and Blackwell Ultra datasheet (2025), per GPU: FP32 80 TFLOPS, TF32 2.5*, FP16/BF16 5*,
  // FP8 10* PFLOPS (* = with sparsity), FP4 "20 | 15" PFLOPS (sparse | dense), 288 GB of HBM3e at 8 TB/s (the
  // datasheet's per-GPU table prints 279 GB usable); NVLink 5 at 1.8 TB/s in a 72-GPU domain, one ConnectX-8 of
  // 800 Gb/s per GPU. MXFP4 at the NVFP4 rate, as for the B300. nvidia-smi: "NVIDIA GB300".
  PrecisionPeaks grace_blackwell_ultra = grace_blackwell;
  grace_blackwell_ultra.nvfp4 = 15000 * kTera;
  grace_blackwell_ultra.mxfp4 = 15000 * kTera;
  catalog.push_back({spec("GB300-288GB", 103, grace_blackwell_ultra, 8000, 288),
                     {"GB300", "GB300-NVL72"},
                     "NVIDIA GB300 NVL72 page and Blackwell Ultra datasheet (2025), per GPU; dense tensor peaks"});
  // AMD Instinct MI300X data sheet (2023): FP32 vector 163.4 TFLOPS, TF32 matrix 653.7, FP16/BF16 matrix 1,307.4,
  // FP8 2,614.9 dense TFLOPS (twice that with sparsity; CDNA 3's FP8 is the FNUZ encoding, per-tensor scaled, no MX
  // formats), HBM3 192 GB at 5.3 TB/s. Not a CUDA device: no compute capability, so no NCCL ceiling (RCCL's tuning
  // is its own). rocm-smi/RCCL: "AMD Instinct MI300X".
  catalog.push_back({GpuSpec{"MI300X-192GB",
                             {.fp32 = 163.4 * kTera,
                              .tf32 = 653.7 * kTera,
                              .fp16 = 1307.4 * kTera,
                              .bf16 = 1307.4 * kTera,
                              .fp8 = 2614.9 * kTera},
                             Bandwidth::from_gb_per_s(5300),
                             Bytes{192 * kGiB},
                             std::nullopt},
                     {"MI300X"},
                     "AMD Instinct MI300X data sheet (2023)"});
  // AMD Instinct MI355X product page and CDNA 4 whitepaper (2025): 256 CUs at 2.4 GHz; FP32 157.3 TFLOPS, FP16/BF16
  // 2.5 PFLOPS (256 x 4,096 FLOP per clock x 2.4 GHz = 2,516.6 dense), OCP FP8 and MXFP8 5,033, MXFP6 and MXFP4
  // 10,066 dense TFLOPS (the launch's 20.1 PFLOPS is with sparsity); no TF32 matrix path (tf32 runs as FP32) and no
  // NVFP4; 288 GB of HBM3E at 8 TB/s, 1,400 W. rocm-smi: "AMD Instinct MI355X".
  catalog.push_back({GpuSpec{"MI355X-288GB",
                             {.fp32 = 157.3 * kTera,
                              .tf32 = 157.3 * kTera,
                              .fp16 = 2516.6 * kTera,
                              .bf16 = 2516.6 * kTera,
                              .fp8 = 5033.2 * kTera,
                              .mxfp8 = 5033.2 * kTera,
                              .mxfp4 = 10066.3 * kTera},
                             Bandwidth::from_gb_per_s(8000),
                             Bytes{288 * kGiB},
                             std::nullopt},
                     {"MI355X"},
                     "AMD Instinct MI355X product page and CDNA 4 whitepaper (2025)"});
  // NVIDIA L40S datasheet (2023): FP32 91.6, TF32 Tensor 183 (366*), BF16/FP16 Tensor 362.05 (733*), FP8 Tensor 733
  // (1,466*) TFLOPS; GDDR6 48 GB at 864 GB/s.
  catalog.push_back({spec("L40S", 89,
                          {.fp32 = 91.6 * kTera,
                           .tf32 = 183 * kTera,
                           .fp16 = 362.05 * kTera,
                           .bf16 = 362.05 * kTera,
                           .fp8 = 733 * kTera},
                          864, 48),
                     {"L40S-48GB"},
                     "NVIDIA L40S datasheet (2023)"});
  // NVIDIA Turing GPU architecture whitepaper (2018), appendix A, GeForce RTX 2080 Ti at reference clocks: FP32
  // 13.4 TFLOPS, FP16 Tensor with FP32 accumulate 53.8 TFLOPS (107.6 with FP16 accumulate); GDDR6 11 GB at
  // 616 GB/s. Turing has neither TF32 nor BF16.
  catalog.push_back(
      {spec("RTX-2080-Ti", 75, {.fp32 = 13.4 * kTera, .tf32 = 13.4 * kTera, .fp16 = 53.8 * kTera, .bf16 = std::nullopt},
            616, 11),
       {"2080Ti", "RTX-2080Ti"},
       "NVIDIA Turing architecture whitepaper (2018), appendix A"});
  // NVIDIA Ada GPU architecture whitepaper (2022), appendix A, GeForce RTX 4090: FP32 82.6 TFLOPS, TF32 Tensor
  // 82.6 (165.2*), FP16 and BF16 Tensor with FP32 accumulate 165.2 (330.4*), FP8 Tensor with FP32 accumulate 330.3
  // (660.6*; whitepaper v2.02's corrected figure) TFLOPS; GDDR6X 24 GB at 1,008 GB/s.
  catalog.push_back({spec("RTX-4090", 89,
                          {.fp32 = 82.6 * kTera,
                           .tf32 = 82.6 * kTera,
                           .fp16 = 165.2 * kTera,
                           .bf16 = 165.2 * kTera,
                           .fp8 = 330.3 * kTera},
                          1008, 24),
                     {"4090"},
                     "NVIDIA Ada architecture whitepaper (2022), appendix A"});
  add_interconnects(catalog);
  add_scaled_gemm_ratios(catalog);
  compute_detail::add_kernel_data(catalog);
  return catalog;
}

// Families with several catalog members: a name we recognise but cannot resolve alone.
constexpr std::pair<std::string_view, std::string_view> kAmbiguous[] = {
    {"v100", "V100-SXM2-16GB or V100-SXM2-32GB"},
    {"v100sxm2", "V100-SXM2-16GB or V100-SXM2-32GB"},
    {"a100", "A100-SXM4-40GB or A100-SXM4-80GB"},
    {"a100sxm4", "A100-SXM4-40GB or A100-SXM4-80GB"},
    {"h100", "H100-SXM-80GB, H100-PCIe-80GB or H100-NVL-94GB"},
    {"h10080gb", "H100-SXM-80GB or H100-PCIe-80GB"}};

// Lower case without separators, and without the vendor and brand words nvidia-smi (and rocm-smi) put in front
// ("NVIDIA GeForce RTX 4090" -> "rtx4090", "Tesla V100-SXM2-16GB" -> "v100sxm216gb", "AMD Instinct MI300X" ->
// "mi300x"), so that the device name an nccl-tests log prints finds its GPU.
std::string normalize(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (std::string_view prefix : {"nvidia", "tesla", "geforce", "amd", "instinct"}) {
    if (out.starts_with(prefix) && out.size() > prefix.size()) out.erase(0, prefix.size());
  }
  return out;
}

void require_positive(double value, std::string_view what, const std::string& gpu) {
  if (!(value > 0) || !std::isfinite(value)) {
    throw InputError(fmt::format("GPU '{}': {} must be a positive number, got {}", gpu, what, value));
  }
}

}  // namespace

std::optional<double> GpuSpec::peak(Precision precision) const {
  switch (precision) {
    case Precision::fp32:
      return peaks.fp32;
    case Precision::tf32:
      return peaks.tf32;
    case Precision::fp16:
      return peaks.fp16;
    case Precision::bf16:
      return peaks.bf16;
    case Precision::fp8:
      return peaks.fp8;
    case Precision::mxfp8:
      return peaks.mxfp8;
    case Precision::nvfp4:
      return peaks.nvfp4;
    case Precision::mxfp4:
      return peaks.mxfp4;
  }
  return std::nullopt;
}

std::string GpuSpec::supported_precisions() const {
  std::string supported;
  for (Precision p : kAllPrecisions) {
    if (!peak(p) || !peak(companion_precision(p))) continue;
    supported += supported.empty() ? "" : ", ";
    supported += to_string(p);
  }
  return supported;
}

double GpuSpec::require_peak(Precision precision) const {
  const Precision companion = companion_precision(precision);
  if (auto value = peak(precision); value && peak(companion)) return *value;
  if (!peak(precision)) {
    throw InputError(fmt::format("GPU '{}' has no {} arithmetic; it supports {}", name, to_string(precision),
                                 supported_precisions()));
  }
  throw InputError(fmt::format("GPU '{}' runs {} beside {}, which it lacks; it supports {}", name, to_string(precision),
                               to_string(companion), supported_precisions()));
}

GpuSpec make_gpu_spec(std::string name, PrecisionPeaks peaks, Bandwidth memory_bandwidth, Bytes memory) {
  if (name.empty()) throw InputError("a GPU definition needs a name");
  GpuSpec gpu{std::move(name), peaks, memory_bandwidth, memory, std::nullopt};
  for (Precision p : kAllPrecisions) {
    const std::optional<double> value = gpu.peak(p);
    if (p == Precision::fp32 || value) {
      require_positive(value.value_or(0), fmt::format("the {} peak FLOP/s", to_string(p)), gpu.name);
    }
  }
  require_positive(memory_bandwidth.bytes_per_second, "the memory bandwidth", gpu.name);
  if (memory.value <= 0) throw InputError(fmt::format("GPU '{}': the memory size must be positive", gpu.name));
  return gpu;
}

std::span<const GpuCatalogEntry> gpu_catalog() {
  static const std::vector<GpuCatalogEntry> catalog = build_catalog();
  return catalog;
}

GpuSpec find_gpu(std::string_view name) {
  const std::string wanted = normalize(name);
  for (const auto& entry : gpu_catalog()) {
    if (normalize(entry.spec.name) == wanted) return entry.spec;
    for (std::string_view alias : entry.aliases) {
      if (normalize(alias) == wanted) return entry.spec;
    }
  }
  for (const auto& [family, members] : kAmbiguous) {
    if (family == wanted) throw InputError(fmt::format("GPU '{}' is ambiguous: say {}", name, members));
  }
  std::string names;
  for (const auto& entry : gpu_catalog()) {
    names += names.empty() ? "" : ", ";
    names += entry.spec.name;
  }
  throw InputError(fmt::format("unknown GPU '{}': expected one of {} (or an inline definition)", name, names));
}

}  // namespace syncsim
