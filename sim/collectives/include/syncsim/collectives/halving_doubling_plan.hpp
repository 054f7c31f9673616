#pragma once
// Recursive halving-doubling (Rabenseifner): AllReduce = recursive-halving reduce-scatter then recursive-doubling
// all-gather; ReduceScatter and AllGather are the two halves alone.
//
// m = 2^L ranks (v = 0..m-1), the buffer in m pieces of S/m. Halving step k (k = 0..L-1) pairs v with
// w = v XOR D, D = m / 2^(k+1): v holds the aligned block of 2D pieces around itself, sends w the half around w and
// adds w's half around v into its own. After L steps v holds piece v summed over all ranks. Doubling step j pairs
// v with v XOR 2^j and swaps the aligned blocks of 2^j pieces each holds, so the blocks grow back to the buffer.
//
//   x <-(what x sends)/(what y sends)-> y
//
//   m = 4, pieces a b c d       halving (distance 2, then 1)          doubling (distance 1, then 2)
//     v0 [a b c d]   v0 <-(c d)/(a b)-> v2      v0 <-(b)/(a)-> v1       v0 <-a/b-> v1    v0 <-(a b)/(c d)-> v2
//     v1 [a b c d]   v1 <-(c d)/(a b)-> v3      v2 <-(d)/(c)-> v3       v2 <-c/d-> v3    v1 <-(a b)/(c d)-> v3
//     ...            v0,v1 keep a b; v2,v3 c d  v0 owns a, v1 b, ...     every rank ends with a b c d
//
// Non-power-of-two n (AllReduce only): the standard fold. With m = 2^floor(log2 n) and r = n - m, ranks 0..2r-1 pair
// up (2i, 2i+1); before the halving, odd rank 2i+1 sends its whole buffer to 2i, which adds it in; the m ranks
// left (2i for i < r, then 2r..n-1, renumbered v = 0..m-1) run the power-of-two algorithm; after the doubling 2i
// sends the result back to 2i+1. Every core rank keeps an (empty where it has no fold partner) first and last step.
//
// A send carries one contiguous block; PlanSend::chunk is the index of its first S/m piece and bytes tell how many
// pieces it spans (the fold moves all m pieces from chunk 0).
//
// Cost on an uncontended network (each rank one send and one receive per step):
//   AllReduce, n = 2^L          2 L alpha + 2 (n-1)/n S/B
//   ReduceScatter, AllGather      L alpha +   (n-1)/n S/B       (S = each rank's input / the gathered output)
//   AllReduce, folded, m = 2^floor(log2 n):  2 (L+1) alpha + (2 + 2 (m-1)/m) S/B
// The fold's formula assumes its transfer does not share a link with the first halving exchange of a rank outside
// the fold, which starts at once (true on a full mesh; on one switch the two share the folding rank's downlink).
// Every step of a power-of-two plan is uniform (one send and one receive of equal bytes per rank), so the
// executor's bulk path applies; folded plans are not uniform.
#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

class HalvingDoublingPlan final : public CollectivePlan {
 public:
  // Throws InputError for fewer than 2 ranks, Broadcast/Reduce, and ReduceScatter/AllGather on a number of ranks
  // that is not a power of two.
  HalvingDoublingPlan(CollectiveOp op, std::size_t ranks, Bytes size);

  std::string_view algorithm() const override { return to_string(Algorithm::halving_doubling); }
  CollectiveOp op() const override { return op_; }
  std::size_t rank_count() const override { return n_; }
  Bytes size() const override { return size_; }
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;
  std::optional<std::uint32_t> uniform_pattern(std::uint32_t step) const override;

  // The number of S/m pieces PlanSend::chunk counts in (m = the largest power of two <= n).
  std::uint32_t piece_count() const { return m_; }

 private:
  bool folded(std::uint32_t rank) const { return rank < 2 * extra_ && rank % 2 == 1; }
  std::uint32_t virtual_of(std::uint32_t rank) const { return rank < 2 * extra_ ? rank / 2 : rank - extra_; }
  Rank real_of(std::uint32_t v) const { return Rank{v < extra_ ? 2 * v : v + extra_}; }
  std::uint32_t halving_steps() const;  // in this operation
  std::uint32_t doubling_steps() const;

  CollectiveOp op_;
  Bytes size_;
  std::uint32_t n_;
  std::uint32_t m_;       // 2^L
  std::uint32_t levels_;  // L
  std::uint32_t extra_;   // r = n - m, the folded pairs
};

}  // namespace syncsim
