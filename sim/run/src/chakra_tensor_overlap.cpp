// tp_comm_overlap's tensor collectives in a layout's Chakra traces (chakra/layout_workload.hpp's LayoutOverlap), as
// block_tensor_time (tensor_overlap.hpp) times them: per block, collective i (all-gather, reduce-scatter,
// all-gather, reduce-scatter, each of the b x s x h activation, in overlap_chunks chunks) beside the block's GEMM
// run i (QKV, projection, FC1, FC2), forward and backward. The passes' compute is cut so that each run's GEMMs are
// segments of their own, at the same bucket cuts, and the export's read back costs each one as the engine does.
#include <fmt/format.h>

#include <optional>

#include "layout_communication.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::run {

namespace {

// The chunk's backward compute (layers `range`, last first) cut at the bucket cuts `segments` and wherever the GEMM
// run changes (`run_of`); `last_of` gets each original segment's last piece.
std::vector<SimTime> backward_pieces(const LayerTimes& layers, std::pair<std::size_t, std::size_t> range,
                                     const std::vector<std::optional<std::size_t>>& run_of,
                                     const std::vector<SimTime>& segments, std::vector<std::size_t>& last_of,
                                     std::vector<std::optional<std::size_t>>& piece_run) {
  std::vector<SimTime> pieces;
  last_of.assign(segments.size(), 0);
  std::size_t segment = 0;
  SimTime in_segment;
  bool cut = true;
  for (std::size_t l = range.second; l-- > range.first;) {
    if (cut || piece_run.back() != run_of[l]) {
      pieces.emplace_back();
      piece_run.push_back(run_of[l]);
      cut = false;
    }
    pieces.back() += layers.backward[l];
    in_segment += layers.backward[l];
    for (; segment + 1 < segments.size() && in_segment == segments[segment]; ++segment) {
      last_of[segment] = pieces.size() - 1;
      in_segment = SimTime::zero();
      cut = true;
    }
  }
  for (; segment < segments.size(); ++segment) last_of[segment] = pieces.empty() ? 0 : pieces.size() - 1;
  return pieces;
}

}  // namespace

void LayoutCommunication::chakra_overlaps(std::pair<std::size_t, std::size_t> range, chakra::LayoutChunk& out) const {
  const ParallelismConfig& p = context_.scenario().parallelism;
  if (forward_again_ > 0 || gathers_again_ > 0) {
    throw p.tp_comm_overlap.error(
        "a Chakra execution trace of tp_comm_overlap under full or selective_op activation checkpointing (the "
        "recomputed forward's collectives beside the backward) is not written yet");
  }
  const std::vector<Layer>& layers = context_.model().layers();
  std::vector<std::optional<std::size_t>> run_of(layers.size());
  std::vector<SimTime> run_forward;  // per GEMM run: its forward time, g_i
  std::vector<bool> run_gathers;     // per GEMM run: whether its collective is an all-gather (runs 0 and 2)
  for (const auto& block : context_.model().transformer()->blocks) {
    if (block.first < range.first || block.first >= range.second) continue;
    std::size_t count = 0;
    bool in_run = false;
    for (std::size_t l = block.first; l < block.second; ++l) {
      const bool gemm = layers[l].kind == LayerKind::gemm;
      if (gemm && !in_run) {
        run_forward.emplace_back();
        run_gathers.push_back(count++ % 2 == 0);
      }
      if (gemm) {
        run_of[l] = run_forward.size() - 1;
        run_forward.back() += layers_.forward[l];
      }
      in_run = gemm;
    }
    if (count != 4) {
      throw p.tp_comm_overlap.error(
          fmt::format("a Chakra execution trace of tp_comm_overlap pairs each collective with one of a block's four "
                      "GEMM runs (QKV, projection, FC1, FC2); layer '{}''s block has {} (its GEMM time spread over the "
                      "collectives, as for a MoE block, is not written yet)",
                      layers[block.first].name, count));
    }
  }
  const auto overlap = [&](std::size_t run, SimTime beside, std::vector<std::size_t> gemm) {
    const bool gather = run_gathers[run];
    return chakra::LayoutOverlap{
        .op = gather ? chakra::CollectiveKind::all_gather : chakra::CollectiveKind::reduce_scatter,
        .bytes = activation_.value,
        .chunks = overlap_chunks(layout_.sizes().tensor, gather),
        .beside = beside,
        .gemm = std::move(gemm)};
  };
  // Forward: the rest of the compute, then each run's GEMMs beside its collective.
  SimTime rest = out.forward.compute();
  for (const SimTime g : run_forward) rest -= g;
  out.forward.segments = {rest};
  for (std::size_t r = 0; r < run_forward.size(); ++r) {
    out.forward.overlaps.push_back(overlap(r, run_forward[r], {out.forward.segments.size()}));
    out.forward.segments.push_back(run_forward[r]);
  }
  // Backward: each run's pieces beside its collective, which syncsim's model overlaps with twice the forward GEMMs.
  std::vector<std::size_t> last_of;
  std::vector<std::optional<std::size_t>> piece_run;
  out.backward.segments = backward_pieces(layers_, range, run_of, out.backward.segments, last_of, piece_run);
  for (chakra::LayoutUnit& u : out.units) u.segment = last_of.at(u.segment);
  for (std::size_t r = 0; r < run_forward.size(); ++r) {
    std::vector<std::size_t> gemm;
    for (std::size_t k = 0; k < piece_run.size(); ++k) {
      if (piece_run[k] == r) gemm.push_back(k);
    }
    out.backward.overlaps.push_back(overlap(r, run_forward[r].scaled(2), std::move(gemm)));
  }
}

SimTime LayoutCommunication::imported_overlaps(const chakra::LayoutPass& pass, double per_iteration) {
  SimTime t;
  for (const chakra::LayoutOverlap& o : pass.overlaps) {
    // An all-gather and a reduce-scatter each move half of what an AllReduce of the same buffer moves.
    const SimTime allreduce =
        imported_time({.op = chakra::CollectiveKind::all_reduce, .bytes = o.bytes, .role = chakra::GroupRole::tensor},
                      per_iteration / 2);
    t += overlapped_collective(SimTime::from_ps(allreduce.ps() / 2), o.beside, o.chunks,
                               o.op == chakra::CollectiveKind::all_gather);
  }
  return t;
}

}  // namespace syncsim::run
