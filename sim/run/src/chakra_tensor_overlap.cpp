// tp_comm_overlap's tensor collectives in a layout's Chakra traces (chakra/layout_workload.hpp's LayoutOverlap), as
// block_tensor_time (tensor_overlap.hpp) times them: per block, collective i (all-gather, reduce-scatter,
// all-gather, reduce-scatter, each of the b x s x h activation, in overlap_chunks chunks) beside the block's GEMM
// run i (QKV, projection, FC1, FC2), forward and backward; under Megatron's re-gathers (keeps_shard) the backward's
// six, two at each column-parallel run, each beside half of its GEMM time. The passes' compute is cut so that each
// run's GEMMs (or halves) are segments of their own, at the same bucket cuts, and the export's read back costs each
// one as the engine does.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "layout_communication.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::run {

namespace {

// What a trace without syncsim_overlap_sms gives a reduce-scatter: the SMs syncsim charged each before it wrote them.
constexpr double kUnwrittenScatterSms = 20;

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

// Under Megatron's re-gathers (keeps_shard), each column-parallel run's backward pieces cut where half its time has
// run: its data-gradient product beside the input's all-gather, then its weight-gradient product beside the data
// gradient's reduce-scatter. Returns per run the first piece of its second half; `last_of` follows the cut.
std::vector<std::size_t> halve_column_runs(std::vector<SimTime>& pieces,
                                           std::vector<std::optional<std::size_t>>& piece_run,
                                           std::vector<std::size_t>& last_of, const std::vector<bool>& column) {
  std::vector<std::size_t> second(column.size(), 0);
  // Backward runs the last run first: from the last run down, a cut moves only the pieces of runs not yet cut.
  for (std::size_t r = column.size(); r-- > 0;) {
    if (!column[r]) continue;
    SimTime total;
    for (std::size_t k = 0; k < pieces.size(); ++k) total += piece_run[k] == r ? pieces[k] : SimTime::zero();
    const SimTime half = SimTime::from_ps(total.ps() / 2);
    SimTime done;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      if (piece_run[k] != r) continue;
      if (done + pieces[k] <= half) {
        done += pieces[k];
        second[r] = k + 1;
        continue;
      }
      const SimTime first = half - done;
      if (first > SimTime::zero()) {
        pieces[k] -= first;
        pieces.insert(pieces.begin() + static_cast<std::ptrdiff_t>(k), first);
        piece_run.insert(piece_run.begin() + static_cast<std::ptrdiff_t>(k), r);
        for (std::size_t& l : last_of) l += l >= k ? 1 : 0;
        second[r] = k + 1;
      } else {
        second[r] = k;
      }
      break;
    }
  }
  return second;
}

}  // namespace

chakra::LayoutOverlap LayoutCommunication::tensor_overlap(bool gather, const OverlapSpec& spec, SimTime beside,
                                                          std::vector<std::size_t> gemm, bool grad) const {
  return chakra::LayoutOverlap{
      .op = gather ? chakra::CollectiveKind::all_gather : chakra::CollectiveKind::reduce_scatter,
      .bytes = tensor_message(gather, grad, spec).value,
      // A ring's t - 1 exchanges are its pieces in the trace; the other methods' chunks are theirs.
      .chunks = is_ring(spec.method) ? std::max<std::int64_t>(spec.chunks - 1, 1) : spec.chunks,
      .beside = beside,
      .gemm = std::move(gemm),
      .method = spec.method,
      .sms = static_cast<std::int64_t>(spec.sms)};
}

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
  const std::int64_t t = layout_.sizes().tensor;
  // Forward: the rest of the compute, then each run's GEMMs beside its collective (run r % 4 of its block).
  SimTime rest = out.forward.compute();
  for (const SimTime g : run_forward) rest -= g;
  out.forward.segments = {rest};
  for (std::size_t r = 0; r < run_forward.size(); ++r) {
    const OverlapSpec spec = forward_overlap(static_cast<int>(r % 4), t, userbuffers_);
    out.forward.overlaps.push_back(tensor_overlap(run_gathers[r], spec, run_forward[r], {out.forward.segments.size()}));
    out.forward.segments.push_back(run_forward[r]);
  }
  // Backward: each run's pieces beside its collective, which syncsim's model overlaps with twice the forward GEMMs;
  // under Megatron's re-gathers, each run's backward collectives beside the GEMMs backward_overlaps pairs them with.
  std::vector<std::size_t> last_of;
  std::vector<std::optional<std::size_t>> piece_run;
  out.backward.segments = backward_pieces(layers_, range, run_of, out.backward.segments, last_of, piece_run);
  const std::vector<std::size_t> second =
      keeps_shard_ ? halve_column_runs(out.backward.segments, piece_run, last_of, run_gathers)
                   : std::vector<std::size_t>(run_forward.size(), 0);
  for (chakra::LayoutUnit& u : out.units) u.segment = last_of.at(u.segment);
  for (std::size_t r = 0; r < run_forward.size(); ++r) {
    const int run = static_cast<int>(r % 4);
    const std::vector<BackwardOverlap> pairs =
        keeps_shard_ ? backward_overlaps(run, t, *userbuffers_)
                     : std::vector<BackwardOverlap>{
                           {.gather = run_gathers[r], .spec = forward_overlap(run, t, nullptr), .gemm_scale = 2}};
    for (std::size_t j = 0; j < pairs.size(); ++j) {
      // Of two, the first beside the run's first half, the second beside the rest.
      const std::size_t from = j > 0 ? second[r] : 0;
      const std::size_t to = pairs.size() > 1 && j == 0 ? second[r] : piece_run.size();
      std::vector<std::size_t> gemm;
      for (std::size_t k = from; k < to; ++k) {
        if (piece_run[k] == r) gemm.push_back(k);
      }
      const bool grad = !keeps_shard_ || !run_gathers[r];  // Megatron's column runs gather their inputs again
      out.backward.overlaps.push_back(tensor_overlap(
          pairs[j].gather, pairs[j].spec, run_forward[r].scaled(pairs[j].gemm_scale), std::move(gemm), grad));
    }
  }
}

SimTime LayoutCommunication::imported_overlaps(const chakra::LayoutPass& pass, double per_iteration) {
  SimTime t;
  for (const chakra::LayoutOverlap& o : pass.overlaps) {
    // An all-gather and a reduce-scatter each move half of what an AllReduce of the same buffer moves.
    const SimTime allreduce =
        imported_time({.op = chakra::CollectiveKind::all_reduce, .bytes = o.bytes, .role = chakra::GroupRole::tensor},
                      per_iteration / 2);
    // A trace without the SMs reads as syncsim wrote them before: reduce-scatters on 20, gathers on none.
    const bool gather = o.op == chakra::CollectiveKind::all_gather;
    const double sms = o.sms ? static_cast<double>(*o.sms) : gather ? 0 : kUnwrittenScatterSms;
    if (sms >= gpu_sms()) {
      throw context_.scenario().model.chakra->error(
          fmt::format("the execution trace runs a tensor collective beside its GEMM on {} SMs, which leaves none to "
                      "the GEMM on the {} ({} SMs)",
                      sms, context_.gpu().name, gpu_sms()));
    }
    const OverlapSpec spec{.method = o.method, .chunks = is_ring(o.method) ? o.chunks + 1 : o.chunks, .sms = sms};
    // TE's FP8 userbuffer's reduce-scatter (the FP8 activation's bytes, where the others move 16 bits) does not
    // multicast.
    const bool fp8_scatter = !gather && fp8_scatters_ && o.bytes == gathered_.value && quantized_gathers();
    const SimTime one = sm_share_time(one_sm(Bytes{o.bytes}), spec, layout_.sizes().tensor, multicast_ && !fp8_scatter);
    t += overlapped_collective(SimTime::from_ps(allreduce.ps() / 2), o.beside, spec, gpu_sms(), one);
  }
  return t;
}

}  // namespace syncsim::run
