#pragma once
// Ranks grouped by host, as the hierarchical plans (AllReduce and AllToAll) need them: h hosts of g ranks each,
// local index i = a rank's place in its host's list (PlanContext::hosts).
#include <cstdint>
#include <vector>

#include "syncsim/core/strong_id.hpp"

namespace syncsim {

struct HostLayout {
  std::uint32_t hosts = 0;              // h
  std::uint32_t per_host = 0;           // g
  std::vector<Rank> members;            // host-major: members[host * g + local]
  std::vector<std::uint32_t> host_of;   // by rank
  std::vector<std::uint32_t> local_of;  // by rank

  Rank member(std::uint32_t host, std::uint32_t local) const { return members[host * per_host + local]; }
};

// Throws InputError unless `hosts` lists every rank 0..ranks-1 exactly once in at least 2 hosts of equal size.
HostLayout host_layout(std::size_t ranks, const std::vector<std::vector<Rank>>& hosts);

}  // namespace syncsim
