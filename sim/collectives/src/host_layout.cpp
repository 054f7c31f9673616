#include "syncsim/collectives/host_layout.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
constexpr std::uint32_t kUnplaced = ~std::uint32_t{0};
}

HostLayout host_layout(std::size_t ranks, const std::vector<std::vector<Rank>>& hosts) {
  if (hosts.size() < 2) {
    throw InputError(fmt::format(
        "hierarchical needs ranks grouped by host on at least 2 hosts, got {} (the topology has no host structure, "
        "or all ranks share one host: use ring)",
        hosts.size()));
  }
  HostLayout layout;
  layout.hosts = static_cast<std::uint32_t>(hosts.size());
  layout.per_host = static_cast<std::uint32_t>(hosts.front().size());
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    if (hosts[h].size() != layout.per_host || layout.per_host == 0) {
      throw InputError(
          fmt::format("hierarchical needs the same number of ranks on every host: host 0 has {}, host {} has {}",
                      layout.per_host, h, hosts[h].size()));
    }
  }
  if (std::size_t{layout.hosts} * layout.per_host != ranks) {
    throw InputError(
        fmt::format("the hosts hold {} ranks, the collective has {}", layout.hosts * layout.per_host, ranks));
  }
  layout.host_of.assign(ranks, kUnplaced);
  layout.local_of.assign(ranks, kUnplaced);
  layout.members.reserve(ranks);
  for (std::uint32_t h = 0; h < layout.hosts; ++h) {
    for (std::uint32_t i = 0; i < layout.per_host; ++i) {
      const Rank rank = hosts[h][i];
      if (rank.value() >= ranks || layout.host_of[rank.value()] != kUnplaced) {
        throw InputError(fmt::format("the hosts do not list each rank 0..{} once: rank {} is out of range or repeated",
                                     ranks - 1, rank.value()));
      }
      layout.host_of[rank.value()] = h;
      layout.local_of[rank.value()] = i;
      layout.members.push_back(rank);
    }
  }
  return layout;
}

}  // namespace syncsim
