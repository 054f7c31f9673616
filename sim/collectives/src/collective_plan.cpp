#include "syncsim/collectives/collective_plan.hpp"

#include <algorithm>
#include <unordered_map>

namespace syncsim {

void CollectivePlan::send_totals(Rank rank, std::vector<PeerSends>& out) const {
  out.clear();
  // A few peers (rings, trees) are found by scanning; an all-to-all's hundreds through an index.
  constexpr std::size_t kScanned = 8;
  std::unordered_map<std::uint32_t, std::size_t> index;
  PlanStep scratch;
  for (std::uint32_t s = 0; s < step_count(rank); ++s) {
    step(rank, s, scratch);
    for (const PlanSend& send : scratch.sends) {
      std::size_t at = out.size();
      if (out.size() <= kScanned) {
        at = static_cast<std::size_t>(
            std::find_if(out.begin(), out.end(), [&](const PeerSends& peer) { return peer.dst == send.dst; }) -
            out.begin());
      } else if (const auto found = index.find(send.dst.value()); found != index.end()) {
        at = found->second;
      }
      if (at == out.size()) {
        out.push_back({send.dst, 0.0, 0});
        if (out.size() > kScanned) {  // from here on, every peer is indexed
          for (std::size_t i = index.size(); i < out.size(); ++i) index.emplace(out[i].dst.value(), i);
        }
      }
      out[at].bytes += send.bytes;
      ++out[at].transfers;
    }
  }
}

}  // namespace syncsim
