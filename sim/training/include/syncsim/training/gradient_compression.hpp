#pragma once
// Gradient compression as PyTorch DDP's communication hooks run it (torch.distributed.algorithms.ddp_comm_hooks):
// what each bucket's synchronization becomes — the collectives on the wire, the kernels that encode on the
// compute stream, and the kernels on the communication stream between and after the collectives.
//
// For a bucket of N gradient elements of e bytes (4 for fp32/tf32 gradients, 2 for fp16/bf16), d ranks:
//
//   none      AllReduce(N e)
//   fp16/bf16 fp16_compress_hook / bf16_compress_hook: cast to 16 bits and divide by d (compute stream), AllReduce
//             (2N), cast back into the bucket (communication stream). Gradients already 16-bit (e = 2) gain
//             nothing: the bucket is reduced as it is.
//   powersgd  powerSGD_hook (Vogels et al., NeurIPS 2019). Each parameter's gradient is viewed as a matrix M of
//             rows x cols (its first dimension by the rest, torch's view(shape[0], -1)); with rank r' = min(r, rows,
//             cols) it is compressed when (rows + cols) r' x min_compression_rate < rows x cols, and otherwise
//             (vectors, small matrices) sent as it is:
//               compute stream:  [error feedback: M += E]  P = M Q                   per compressed matrix
//               communication:   AllReduce(uncompressed) -> AllReduce(all P) -> orthogonalize P, Q = M^T P
//                                -> AllReduce(all Q) -> M = P Q^T [E = M_in - M]
//             Q starts random (seeded) and is kept from one iteration to the next (warm start). Wire bytes per
//             bucket: e (uncompressed + sum rows r' + sum cols r').
//   topk      Each rank sends the k = ceil(ratio N) largest-magnitude entries of (gradient + error) as values
//             (e bytes) and int32 indices; they differ between ranks, so they are AllGathered: d k (e + 4) bytes
//             gathered, (d - 1) k (e + 4) bus bytes per rank, which grows with d where an AllReduce's does not.
//             Selection on the compute stream, the scatter-add of the d k entries on the communication stream.
//
// Kernel costs are ComputeModel::kernel_time's roofline (the layers' own costing), one kernel per matrix and
// operation: a matrix product of a x b by b x c counts 2abc FLOPs and (ab + bc + ac) e bytes; Gram-Schmidt takes
// three kernels per column (norm, scale, projection out of the rest); top-k selection four passes over the bucket
// (a radix select, one per byte of a 32-bit key) plus writing its k entries. The error-feedback copy and update
// are streaming kernels over the bucket. The hook's whole chain runs bucket after bucket on the communication
// stream: PyTorch launches each step from the previous one's future, so this is its critical path when one bucket
// follows another closely; it does not overlap one bucket's orthogonalization with the next bucket's AllReduce.
//
// Iterations before `start_iteration` run the plain AllReduce (PyTorch's start_powerSGD_iter, whose default is
// 1,000; here 0 so that a short timing run measures the compressed steady state).
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"
#include "syncsim/compute/compute_model.hpp"
#include "syncsim/compute/model_spec.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/training/bucket_plan.hpp"

namespace syncsim {

enum class CompressionKind { none, fp16, bf16, powersgd, topk };

// The one table of the kinds' names: the scenario parses with it, to_string and the report print with it.
inline constexpr std::array<std::pair<std::string_view, CompressionKind>, 5> kCompressionNames{
    {{"none", CompressionKind::none},
     {"fp16", CompressionKind::fp16},
     {"bf16", CompressionKind::bf16},
     {"powersgd", CompressionKind::powersgd},
     {"topk", CompressionKind::topk}}};

std::string_view to_string(CompressionKind kind);

struct GradientCompression {
  CompressionKind kind = CompressionKind::none;
  std::int64_t rank = 1;             // powersgd: matrix_approximation_rank
  double min_compression_rate = 2;   // powersgd: compress a matrix only when it shrinks more than this
  double ratio = 0.01;               // topk: fraction of a bucket's entries sent
  bool error_feedback = true;        // powersgd, topk: what was not sent is added to the next gradient
  std::int64_t start_iteration = 0;  // plain AllReduce before it
  bool enabled() const { return kind != CompressionKind::none; }
};

// One step of a bucket's synchronization on the communication stream: a collective or a kernel time.
struct SyncStep {
  enum class Kind { collective, compute };
  Kind kind = Kind::collective;
  CollectiveOp op = CollectiveOp::allreduce;
  Bytes bytes;             // the collective's size (nccl-tests' convention: AllGather's is the gathered buffer)
  SimTime time;            // a compute step's
  std::string_view label;  // what it is, for the trace ("allreduce P", "orthogonalize P, Q = M^T P", ...)

  static SyncStep collective(CollectiveOp op, Bytes bytes, std::string_view label) {
    return {Kind::collective, op, bytes, SimTime::zero(), label};
  }
  static SyncStep compute(SimTime time, std::string_view label) {
    return {Kind::compute, CollectiveOp::allreduce, Bytes{0}, time, label};
  }
};

// A bucket's synchronization: `encode` on the compute stream once its last gradient is produced (it delays the
// rest of backward), then `steps` in order on the communication stream.
struct BucketSync {
  SimTime encode;
  std::vector<SyncStep> steps;
  Bytes wire_bytes() const;                     // the collectives' sizes summed
  double bus_bytes(std::int64_t ranks) const;   // nccl-tests' bus bytes per rank, summed over the collectives
  SimTime compute_on_stream() const;            // the compute steps summed
  static BucketSync plain(Bytes bucket_bytes);  // one AllReduce of the bucket
};

// How one bucket's matrices split under PowerSGD (see above).
struct PowerSgdSplit {
  std::int64_t uncompressed_elements = 0;
  std::int64_t p_elements = 0;  // sum of rows x r'
  std::int64_t q_elements = 0;  // sum of cols x r'
  std::int64_t compressed_matrices = 0;
  std::int64_t compressed_elements = 0;  // gradient elements the matrices hold
};
PowerSgdSplit powersgd_split(const ModelSpec& model, const GradientBucket& bucket, std::int64_t rank,
                             double min_compression_rate);
// PowerSGD's rule for one matrix (see above): its rank r' when compressed, 0 when it is sent as it is.
std::int64_t powersgd_rank(std::int64_t rows, std::int64_t cols, std::int64_t rank, double min_compression_rate);

// top-k's entries per bucket of `elements`: ceil(ratio x elements), at least 1.
std::int64_t topk_entries(std::int64_t elements, double ratio);

// The synchronization of every bucket of `plan` under `compression` over `ranks` ranks, gradient elements of
// `element_bytes`, kernels costed on `compute`.
std::vector<BucketSync> bucket_syncs(const ModelSpec& model, const BucketPlan& plan, std::int64_t element_bytes,
                                     const GradientCompression& compression, const ComputeModel& compute,
                                     std::int64_t ranks);

}  // namespace syncsim
