#include "syncsim/collectives/nvls_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {
// NCCL 2.30 src/transport/nvls.cc: NVLS_NCHANNELS_SM90, _SM100_NVL (one NVLink domain), _SM100 (several).
constexpr std::uint32_t kNvlsChannelsHopper = 16;
constexpr std::uint32_t kNvlsChannelsBlackwellOneDomain = 24;
constexpr std::uint32_t kNvlsChannelsBlackwell = 32;
constexpr std::int64_t kNvlsChunkBytes = 128 * 1024;
constexpr std::uint32_t kMaxNvlsSlices = 16;
}  // namespace

bool is_nvls(Algorithm algorithm) {
  return algorithm == Algorithm::nvls || algorithm == Algorithm::nvls_tree;
}

NvlsPlan::NvlsPlan(CollectiveOp op, std::size_t ranks, Bytes size, std::vector<NvlinkDomain> domains,
                   std::uint32_t slices)
    : ranks_(ranks), size_(size), domains_(std::move(domains)), slices_(slices) {
  if (op != CollectiveOp::allreduce) {
    throw InputError(fmt::format("NVLS and NVLSTree run AllReduce only, not {}", to_string(op)));
  }
  if (slices_ == 0) throw InputError("NVLS needs at least one slice");
  if (domains_.empty()) throw InputError("NVLS needs an NVLink domain");
  exchange_ = domains_.size() > 1 ? 1 : 0;
  domain_of_.assign(ranks_, 0);
  position_of_.assign(ranks_, 0);
  std::vector<bool> seen(ranks_, false);
  const std::size_t per_domain = domains_.front().ranks.size();
  for (std::size_t d = 0; d < domains_.size(); ++d) {
    const auto& members = domains_[d].ranks;
    if (members.size() != per_domain || per_domain == 0) {
      throw InputError(
          fmt::format("NVLSTree needs the same number of ranks in every NVLink domain; domain 0 has {}, "
                      "domain {} has {}",
                      per_domain, d, members.size()));
    }
    for (std::size_t i = 0; i < members.size(); ++i) {
      const std::uint32_t r = members[i].value();
      if (r >= ranks_ || seen[r]) throw InputError(fmt::format("NVLink domains must hold each rank once (rank {})", r));
      seen[r] = true;
      domain_of_[r] = static_cast<std::uint32_t>(d);
      position_of_[r] = static_cast<std::uint32_t>(i);
    }
  }
  for (std::size_t r = 0; r < ranks_; ++r) {
    if (!seen[r]) throw InputError(fmt::format("rank {} is in no NVLink domain", r));
  }
}

std::string_view NvlsPlan::algorithm() const {
  return to_string(exchange_ ? Algorithm::nvls_tree : Algorithm::nvls);
}

Participant NvlsPlan::participant(std::uint32_t index) const {
  if (index < ranks_) return {Rank{index}, std::nullopt};
  return {Rank{0}, domains_[index - ranks_].nvswitch};
}

std::uint32_t NvlsPlan::step_count(Rank) const {
  return slices_ + 3 + exchange_;  // the last slice's stage E runs at step k - 1 + 3 + x
}

void NvlsPlan::step(Rank who, std::uint32_t step, PlanStep& out) const {
  out.clear();
  if (who.value() < ranks_) {
    rank_step(who, step, out);
  } else {
    switch_step(who.value() - ranks_, step, out);
  }
}

void NvlsPlan::rank_step(Rank rank, std::uint32_t step, PlanStep& out) const {
  const double slice = static_cast<double>(size_.value) / slices_;
  const std::size_t m = domains_.front().ranks.size();
  const double shard = slice / static_cast<double>(m);
  const std::uint32_t domain = domain_of_[rank.value()];
  const Rank own_switch{static_cast<std::uint32_t>(ranks_ + domain)};
  const std::uint32_t position = position_of_[rank.value()];
  // (A) this rank's slice up to its switch.
  if (slice_at(step, 0)) out.sends.push_back({own_switch, slice, step, step});
  // (B) the sum of its shard of slice step-1 back from the switch.
  if (slice_at(step, 1)) ++out.recv_count;
  // (C) the shard of slice step-2 to and from the same shard's owners in the other domains, added in.
  if (exchange_ && slice_at(step, 2)) {
    for (std::size_t d = 0; d < domains_.size(); ++d) {
      if (d == domain) continue;
      out.sends.push_back({domains_[d].ranks[position], shard, step, step - 2});
      ++out.recv_count;
      out.reduce_bytes += shard;
    }
  }
  // (D) the reduced shard of slice step-2-x up, to be multicast.
  if (slice_at(step, 2 + exchange_)) out.sends.push_back({own_switch, shard, step, step - 2 - exchange_});
  // (E) the whole result of slice step-3-x, every shard, from the switch.
  if (slice_at(step, 3 + exchange_)) ++out.recv_count;
}

void NvlsPlan::switch_step(std::size_t domain, std::uint32_t step, PlanStep& out) const {
  const double slice = static_cast<double>(size_.value) / slices_;
  const auto& members = domains_[domain].ranks;
  const double shard = slice / static_cast<double>(members.size());
  const auto m = static_cast<std::uint32_t>(members.size());
  // (A) the domain's slices arrive and are added in the switch, at line rate: no GPU reduction (reduce_bytes 0).
  if (slice_at(step, 0)) out.recv_count += m;
  // (B) each owner gets the sum of its shard of slice step-1.
  if (slice_at(step, 1)) {
    for (const Rank r : members) out.sends.push_back({r, shard, step, step - 1});
  }
  // (D) the owners' reduced shards arrive.
  if (slice_at(step, 2 + exchange_)) out.recv_count += m;
  // (E) every rank gets the whole slice step-3-x.
  if (slice_at(step, 3 + exchange_)) {
    for (const Rank r : members) out.sends.push_back({r, slice, step, step - 3 - exchange_});
  }
}

std::optional<NodeId> nvlink_switch_of(const Topology& topology, NodeId gpu) {
  std::optional<NodeId> nvswitch;
  for (const LinkId id : topology.out_links(gpu)) {
    const NodeId dst = topology.link(id).dst;
    if (topology.node(dst).kind != NodeKind::nvswitch) continue;
    if (nvswitch && *nvswitch != dst) return std::nullopt;
    nvswitch = dst;
  }
  return nvswitch;
}

std::vector<NvlinkDomain> reducing_nvlink_domains(const Topology& topology, std::size_t ranks,
                                                  std::optional<int> compute_capability) {
  std::vector<std::size_t> gpus(ranks);
  std::iota(gpus.begin(), gpus.end(), std::size_t{0});
  return reducing_nvlink_domains(topology, gpus, compute_capability);
}

std::vector<NvlinkDomain> reducing_nvlink_domains(const Topology& topology, const std::vector<std::size_t>& gpus,
                                                  std::optional<int> compute_capability) {
  std::vector<NvlinkDomain> domains;
  const bool gpus_support = compute_capability && *compute_capability >= kNvlsMinComputeCapability;
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    const std::optional<NodeId> nvswitch = nvlink_switch_of(topology, topology.gpu(gpus[r]));
    // No NVSwitch, or NVLinks to several: not the one-switch fabric NVLS is modelled on.
    if (!nvswitch) return {};
    const SwitchReduction reduction = topology.node(*nvswitch).reduction;
    if (reduction == SwitchReduction::off || (reduction == SwitchReduction::automatic && !gpus_support)) return {};
    auto it = std::find_if(domains.begin(), domains.end(), [&](const auto& d) { return d.nvswitch == *nvswitch; });
    if (it == domains.end()) it = domains.insert(domains.end(), NvlinkDomain{*nvswitch, {}});
    it->ranks.push_back(Rank{static_cast<std::uint32_t>(r)});
  }
  // Auto leaves NVLS off on an NVLink domain of several hosts (the trays of a GB200 NVL72 rack): the published
  // runs on such racks (docs/accuracy.md) have a ring's shape, about 4 us for each of the ring's 2(n-1) steps,
  // not NVLS's; `nvls=on` models NCCL with NVLS there.
  for (const NvlinkDomain& domain : domains) {
    if (topology.node(domain.nvswitch).reduction != SwitchReduction::automatic) continue;
    const auto host_of = [&](Rank r) { return topology.node(topology.gpu(gpus[r.value()])).host; };
    const auto first_host = host_of(domain.ranks.front());
    if (std::any_of(domain.ranks.begin(), domain.ranks.end(), [&](Rank r) { return host_of(r) != first_host; })) {
      return {};
    }
  }
  return domains;
}

double nvls_nvlink_bytes(Bytes size, std::size_t domain_ranks) {
  return static_cast<double>(size.value) * (1.0 + 1.0 / static_cast<double>(std::max<std::size_t>(1, domain_ranks)));
}

std::uint32_t nvls_channels(std::optional<int> compute_capability, std::size_t domains) {
  if (!compute_capability || *compute_capability < kBlackwellComputeCapability) return kNvlsChannelsHopper;
  return domains > 1 ? kNvlsChannelsBlackwell : kNvlsChannelsBlackwellOneDomain;
}

std::uint32_t nvls_slices(Bytes per_channel) {
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(per_channel.value / kNvlsChunkBytes, 1, kMaxNvlsSlices));
}

}  // namespace syncsim
