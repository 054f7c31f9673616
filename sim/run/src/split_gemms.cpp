// ResolvedScenario::split_gemm_costs and with_split_gemms: the GEMMs that tensor-parallel overlaps run in pieces.
//
// Beside a chunked collective the GEMM runs as one product per chunk, each of its share of the rows (the tokens):
// Transformer Engine's ring-exchange all-gather runs t products, one per shard as it arrives (TE v1.8
// comm_gemm_overlap.h, split_overlap_ag; t/2 products of two shards under `aggregate`), its ring-exchange
// reduce-scatter t products, one per chunk it passes on (split_overlap_rs_p2p), its pipelined reduce-scatter
// num_splits products (split_overlap_rs); a bulk overlap runs its GEMM whole beside the collective (bulk_overlap).
// PyTorch's micro-pipelined all-gather-matmul and matmul-reduce-scatter (torch/distributed/_symmetric_memory, async
// tensor parallelism) run t products likewise. Both issue the pieces on more than one stream (TE round-robin over
// its _stream_compute, PyTorch alternating two), so that one piece's last wave runs beside the next one's first: the
// pieces' tiles fill the waves together. What remains is the tile each piece runs on, which cuBLAS picks for the piece
// alone: a piece too short for the whole's 256x128 tiles to fill a wave takes smaller ones and loses their operand
// reuse (KernelModel::pieces_factors, ComputeModel::split_gemm_extra).
//
// The forward splits each run's products (QKV, projection, FC1, FC2) by the method of the collective beside it
// (tensor_overlap.hpp). The backward splits a run's input-gradient products where a collective beside them is
// chunked (Transformer Engine: by its backward configuration, in NeMo's the row-parallel runs' output-gradient
// all-gathers; PyTorch: every run's); the weight-gradient products, whose rows are the weights', are never split.
// The time is added to each GEMM layer of the run, forward and backward (a recomputed forward then runs its pieces
// again), so that the overlaps see the longer GEMMs beside them and a Chakra trace carries them.
#include <algorithm>

#include "resolved_scenario.hpp"
#include "tensor_overlap.hpp"

namespace syncsim::run {

namespace {
constexpr std::size_t kRuns = 4;  // QKV, projection, FC1, FC2
}  // namespace

std::vector<SplitGemmCost> ResolvedScenario::split_gemm_costs(std::size_t block, std::int64_t samples,
                                                              RankSplit split) const {
  const auto& t = model_.transformer();
  const ParallelismConfig& p = scenario_->parallelism;
  if (split.tensor < 2 || !p.tp_comm_overlap.value || !t || block >= t->blocks.size() || chakra_ || profile_) {
    return {};
  }
  const UserbuffersConfig* te = userbuffers();
  const std::vector<Layer>& layers = model_.layers();
  const auto runs = block_gemm_runs(layers, t->blocks[block]);
  if (runs.size() != kRuns) return {};  // the overlaps spread such a block's GEMM time evenly: no pairs to split
  std::vector<SplitGemmCost> out;
  for (std::size_t r = 0; r < kRuns; ++r) {
    const int run = static_cast<int>(r);
    SplitGemmCost cost;
    cost.forward_pieces = gemm_pieces(forward_overlap(run, split.tensor, te));
    if (te) {
      for (const BackwardOverlap& o : backward_overlaps(run, split.tensor, *te)) {
        cost.backward_pieces = std::max(cost.backward_pieces, gemm_pieces(o.spec));
      }
    } else {
      cost.backward_pieces = cost.forward_pieces;
    }
    for (const std::size_t l : runs[r]) {
      cost.forward.push_back(compute_->split_gemm_extra(layers[l], samples, split, cost.forward_pieces, false));
      cost.backward.push_back(compute_->split_gemm_extra(layers[l], samples, split, cost.backward_pieces, true));
    }
    cost.layers = runs[r];
    out.push_back(std::move(cost));
  }
  return out;
}

LayerTimes ResolvedScenario::with_split_gemms(LayerTimes times, std::int64_t samples, RankSplit split) const {
  const auto& t = model_.transformer();
  if (!t) return times;
  for (std::size_t b = 0; b < t->blocks.size(); ++b) {
    for (const SplitGemmCost& run : split_gemm_costs(b, samples, split)) {
      for (std::size_t i = 0; i < run.layers.size(); ++i) {
        const std::size_t l = run.layers[i];
        if (l >= times.forward.size()) continue;
        times.forward[l] += run.forward[i];
        times.backward[l] += run.backward[i];
      }
    }
  }
  return times;
}

}  // namespace syncsim::run
