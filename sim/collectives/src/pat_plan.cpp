#include "syncsim/collectives/pat_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

// NCCL's Simple chunk for AllGather and ReduceScatter: 4 MiB buffer / NCCL_STEPS (8) x CHUNKSTEPS (4); its floor.
constexpr std::int64_t kSimpleChunkBytes = 2 * 1024 * 1024;
constexpr std::int64_t kMinChunkBytes = 64 * 1024;
// NCCL_STEPS: messages in flight, which PatAGAlgorithm's aggregation factor also covers.
constexpr std::uint32_t kStepsInFlight = 8;
// A round's step list is kept in memory; past this many rounds x messages the plan is refused.
constexpr std::uint64_t kMaxSteps = std::uint64_t{1} << 31;

// Pieces that cross dimension d: offsets s below n that are multiples of 2^(d+1) with s + 2^d < n.
std::uint32_t pieces_at(std::uint32_t n, std::uint32_t d) {
  const std::uint64_t stride = std::uint64_t{2} << d;
  const std::uint64_t half = std::uint64_t{1} << d;
  if (half >= n) return 0;
  return static_cast<std::uint32_t>((n - half - 1) / stride + 1);
}

}  // namespace

std::int64_t PatPlan::nccl_chunk_bytes(CollectiveOp op, Bytes channel_size) {
  const std::int64_t factor = op == CollectiveOp::all_gather ? 32 : 16;
  std::int64_t chunk = kSimpleChunkBytes;
  while (chunk * factor > channel_size.value && chunk > kMinChunkBytes) chunk /= 2;
  return chunk;
}

PatPlan::PatPlan(CollectiveOp op, std::size_t ranks, Bytes size, PatOptions options)
    : op_(op), size_(size), n_(static_cast<std::uint32_t>(ranks)) {
  if (ranks < 2) throw InputError(fmt::format("pat needs at least 2 ranks, got {}", ranks));
  if (ranks > std::uint32_t{1} << 30) throw InputError(fmt::format("{} ranks are too many", ranks));
  if (size.value < 0) throw InputError("a collective's size must not be negative");
  if (options.chunk_bytes < 1) throw InputError("pat's chunk must be at least 1 byte");
  if (op != CollectiveOp::all_gather && op != CollectiveOp::reduce_scatter) {
    throw InputError(fmt::format("pat runs AllGather and ReduceScatter only, not {} (NCCL's PAT has no {})",
                                 to_string(op), to_string(op)));
  }
  const double piece = static_cast<double>(size.value) / n_;
  const auto chunk = static_cast<double>(options.chunk_bytes);
  rounds_ = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(piece / chunk)));
  round_piece_bytes_ = piece / static_cast<double>(rounds_);

  aggregation_ = 1;
  const std::uint32_t cap = std::max<std::uint32_t>(1, n_ / 2);
  while (chunk >= 2.0 * round_piece_bytes_ * aggregation_ && aggregation_ < cap) aggregation_ *= 2;
  for (std::uint32_t depth = kStepsInFlight; depth > 1 && aggregation_ < cap; depth /= 2) aggregation_ *= 2;

  const auto dimensions = static_cast<std::uint32_t>(std::bit_width(n_ - 1));
  for (std::uint32_t i = 0; i < dimensions; ++i) {
    // AllGather from the highest dimension down; ReduceScatter the trees backwards.
    const std::uint32_t d = op == CollectiveOp::all_gather ? dimensions - 1 - i : i;
    const std::uint32_t pieces = pieces_at(n_, d);
    for (std::uint32_t first = 0; first < pieces; first += aggregation_) {
      messages_.push_back({d, std::min(aggregation_, pieces - first), first});
    }
  }
  if (rounds_ > kMaxSteps / messages_.size()) {
    throw InputError(
        fmt::format("pat would take {} rounds of {} steps: more than {} steps", rounds_, messages_.size(), kMaxSteps));
  }
}

std::uint32_t PatPlan::step_count(Rank) const {
  return static_cast<std::uint32_t>(rounds_ * messages_.size());
}

void PatPlan::step(Rank rank, std::uint32_t step, PlanStep& out) const {
  out.clear();
  const Message& message = messages_[step % messages_.size()];
  const std::uint32_t distance = (std::uint32_t{1} << message.dimension) % n_;
  const std::uint32_t r = rank.value();
  const std::uint32_t peer = op_ == CollectiveOp::all_gather ? (r + distance) % n_ : (r + n_ - distance) % n_;
  const double bytes = round_piece_bytes_ * message.pieces;
  out.sends.push_back(PlanSend{Rank{peer}, bytes, step, message.first_piece});
  out.recv_count = 1;
  if (op_ == CollectiveOp::reduce_scatter) out.reduce_bytes = bytes;
}

std::optional<std::uint32_t> PatPlan::uniform_pattern(std::uint32_t step) const {
  // Same dimension and piece count: the same shift by 2^d with the same bytes, whatever the round.
  const Message& message = messages_[step % messages_.size()];
  return message.dimension * (aggregation_ + 1) + message.pieces;
}

}  // namespace syncsim
