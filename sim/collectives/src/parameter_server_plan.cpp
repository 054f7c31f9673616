#include "syncsim/collectives/parameter_server_plan.hpp"

#include <fmt/format.h>

#include <limits>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

ParameterServerPlan::ParameterServerPlan(std::size_t workers, std::size_t servers, Bytes size, PsPlacement placement)
    : workers_(static_cast<std::uint32_t>(workers)),
      servers_(static_cast<std::uint32_t>(servers)),
      size_(size),
      placement_(placement) {
  if (workers == 0) throw InputError("a parameter server needs at least 1 worker");
  if (servers == 0) throw InputError("a parameter server exchange needs at least 1 server");
  constexpr std::size_t kMax = std::numeric_limits<std::uint32_t>::max() / 2;
  if (workers > kMax || servers > kMax) throw InputError("too many parameter-server ranks");
  if (placement == PsPlacement::colocated && servers > workers) {
    throw InputError(fmt::format("colocated servers live on workers: {} servers need at least {} workers, got {}",
                                 servers, servers, workers));
  }
  if (size.value < 0) throw InputError("a collective's size must not be negative");
}

std::size_t ParameterServerPlan::rank_count() const {
  return placement_ == PsPlacement::dedicated ? std::size_t{workers_} + servers_ : std::size_t{workers_};
}

Rank ParameterServerPlan::server_rank(std::uint32_t shard) const {
  return placement_ == PsPlacement::dedicated ? Rank{workers_ + shard} : Rank{shard};
}

std::uint32_t ParameterServerPlan::step_count(Rank) const {
  return 2;
}

void ParameterServerPlan::step(Rank rank, std::uint32_t t, PlanStep& out) const {
  out.clear();
  const double shard_bytes = static_cast<double>(size_.value) / servers_;
  const std::uint32_t r = rank.value();
  const bool is_worker = r < workers_;
  // The shard this rank serves, if any.
  const bool is_server = placement_ == PsPlacement::dedicated ? !is_worker : r < servers_;
  const std::uint32_t own = placement_ == PsPlacement::dedicated ? r - workers_ : r;
  // Colocated: the server's own contribution to its shard needs no network.
  const std::uint32_t peers = placement_ == PsPlacement::colocated ? workers_ - 1 : workers_;
  if (t == 0) {
    if (is_worker) {  // push shard j to server j
      for (std::uint32_t j = 0; j < servers_; ++j) {
        const Rank dst = server_rank(j);
        if (dst != rank) out.sends.push_back(PlanSend{dst, shard_bytes, 0, j});
      }
    }
    if (is_server) {  // receive the pushes of its shard and apply them
      out.recv_count = peers;
      out.reduce_bytes = peers * shard_bytes;
    }
    return;
  }
  if (is_server) {  // send the updated shard to every worker
    for (std::uint32_t w = 0; w < workers_; ++w) {
      if (Rank{w} != rank) out.sends.push_back(PlanSend{Rank{w}, shard_bytes, 1, own});
    }
  }
  if (is_worker) out.recv_count = is_server ? servers_ - 1 : servers_;  // pull the shards it does not hold
}

}  // namespace syncsim
