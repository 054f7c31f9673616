#pragma once
// PAT, NCCL's Parallel Aggregated Trees (NCCL 2.23+, src/include/collectives.h: PatAGAlgorithm, PatRSAlgorithm):
// AllGather and ReduceScatter in a logarithmic number of steps, for one GPU per node, where a ring's n-1 network
// latencies dominate.
//
// Every rank's piece (S/n bytes) travels down a binomial tree rooted at its owner, and the n trees are aggregated:
// one message per peer carries the pieces of every tree that crosses that hop. With D = ceil(log2 n) dimensions,
// a piece of owner q reaches rank q + s (mod n) after crossing the dimensions of s's bits from the highest down.
// AllGather at dimension d (d = D-1 first, 0 last) sends to rank r + 2^d the pieces whose offset s = r - q (mod n) is
// a multiple of 2^(d+1) with s + 2^d < n; ReduceScatter runs the trees backwards (d = 0 first), each rank adding the
// partial sums it receives before passing them on, to rank r - 2^d.
//
//   AllGather, n = 8 (pieces per message by dimension):
//     step d=2: r -> r+4, 1 piece       (r's own)
//     step d=1: r -> r+2, 2 pieces      (r's own and r-4's)
//     step d=0: r -> r+1, 4 pieces      (r, r-2, r-4, r-6)
//   pieces crossing per rank: 1 + 2 + 4 = 7 = n-1: bandwidth-optimal like a ring, with D latencies instead of n-1.
//   For n not a power of two the counts come from the offsets below n (n = 6: 1, 1, 3).
//
// NCCL's buffers bound the aggregation, which is what makes PAT differ from recursive doubling:
//   rounds       a channel's piece is moved in rounds of at most `chunk_bytes` (NCCL's PAT chunk: the Simple
//                protocol's 2 MiB chunk halved down to 64 KiB while chunk x channels x 32 (AllGather) or 16
//                (ReduceScatter) exceeds the size; src/enqueue.cc), each round a full pass over the dimensions;
//   aggregation  one message carries at most A pieces: A doubles from 1 while chunk_bytes is at least twice A
//                round pieces, then 3 more times for NCCL_STEPS = 8 steps in flight, never past n/2
//                (PatAGAlgorithm's aggFactor); a dimension with more pieces takes ceil(pieces / A) messages.
// Small collectives aggregate fully (D steps); large ones take about n/8 + D messages per round.
//
// Cost, one link per rank (alpha the per-message latency, B the link rate), R rounds of M messages each:
//   R M alpha + (n-1)/n S/B
// Every step is uniform (every rank one send and one receive of equal bytes, a shift by 2^d), so the executor's bulk
// path applies.
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

struct PatOptions {
  std::int64_t chunk_bytes = 2 * 1024 * 1024;  // NCCL's PAT chunk for this size (see above)
};

class PatPlan final : public CollectivePlan {
 public:
  // Throws InputError for fewer than 2 ranks, a chunk below 1 byte, and operations other than AllGather and
  // ReduceScatter.
  PatPlan(CollectiveOp op, std::size_t ranks, Bytes size, PatOptions options = {});

  std::string_view algorithm() const override { return to_string(Algorithm::pat); }
  CollectiveOp op() const override { return op_; }
  std::size_t rank_count() const override { return n_; }
  Bytes size() const override { return size_; }
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;
  std::optional<std::uint32_t> uniform_pattern(std::uint32_t step) const override;

  std::uint64_t rounds() const { return rounds_; }
  std::uint32_t aggregation() const { return aggregation_; }
  std::uint32_t messages_per_round() const { return static_cast<std::uint32_t>(messages_.size()); }
  // NCCL's PAT chunk for a channel moving `channel_size` bytes of the operation (see above: chunk x channels x 32 >
  // size is chunk x 32 > the channel's share).
  static std::int64_t nccl_chunk_bytes(CollectiveOp op, Bytes channel_size);

 private:
  struct Message {
    std::uint32_t dimension;
    std::uint32_t pieces;
    std::uint32_t first_piece;  // of this dimension's, for PlanSend::chunk
  };
  CollectiveOp op_;
  Bytes size_;
  std::uint32_t n_;
  std::uint64_t rounds_;
  std::uint32_t aggregation_;
  double round_piece_bytes_;
  std::vector<Message> messages_;  // one round, in order
};

}  // namespace syncsim
