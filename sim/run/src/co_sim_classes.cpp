// Classes of alike rings in the co-simulation (co_sim_classes.hpp).
#include "co_sim_classes.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <numeric>

#include "syncsim/collectives/ring_plan.hpp"

namespace syncsim::run {

namespace {

constexpr std::uint32_t kUnseen = std::numeric_limits<std::uint32_t>::max();

// One channel of one job: where it is, and each rank's route to its ring successor (a ring AllReduce sends every
// step's chunk there).
struct Channel {
  std::size_t job = 0;
  std::size_t index = 0;                       // in the job's collectives
  std::vector<std::uint32_t> successors = {};  // per rank
  std::vector<const Route*> routes = {};       // per rank, to its successor
};

const CoCollective& collective_of(const std::vector<CoJob>& jobs, const Channel& c) {
  return jobs[c.job].collectives[c.index];
}

// Each rank's successor in a ring AllReduce, from its first step; empty for any other plan.
std::vector<std::uint32_t> ring_successors(const CollectivePlan& plan) {
  const auto* ring = dynamic_cast<const RingPlan*>(&plan);
  if (ring == nullptr || ring->op() != CollectiveOp::allreduce || plan.participant_count() != plan.rank_count()) {
    return {};
  }
  std::vector<std::uint32_t> next(plan.rank_count());
  PlanStep step;
  for (std::uint32_t r = 0; r < next.size(); ++r) {
    plan.step(Rank{r}, 0, step);
    if (step.sends.size() != 1) return {};
    next[r] = step.sends.front().dst.value();
  }
  return next;
}

std::uint64_t transfers_of(const CollectivePlan& plan) {
  const std::uint64_t n = plan.rank_count();
  return n * 2 * (n - 1);
}

// Union-find over channels.
class Components {
 public:
  explicit Components(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), std::size_t{0}); }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);  // the root is the component's first channel
  }

 private:
  std::vector<std::size_t> parent_;
};

// What a component's simulation depends on, channel by channel (co_sim_classes.hpp, "Classes"): equal signatures are
// alike components but for the rings' identity, which the caller checks.
class Signature {
 public:
  Signature(const Topology& topology, std::vector<std::uint32_t>& local) : topology_(topology), local_(local) {}

  void add(const Channel& c, const CoCollective& collective) {
    const std::vector<std::uint32_t>& successors = c.successors;
    out_.push_back(c.job);
    out_.push_back(std::bit_cast<std::uint64_t>(static_cast<double>(collective.plan->size().value)));
    out_.push_back(successors.size());
    for (std::size_t r = 0; r < successors.size(); ++r) {
      const Route& route = *c.routes[r];
      out_.push_back(successors[r]);
      out_.push_back(static_cast<std::uint64_t>(route.latency.ps()));
      out_.push_back(route.links.size());
      for (const LinkId l : route.links) link(l);
    }
  }

  // Forgets the component's link numbering (the caller's table is reused across components).
  std::vector<std::uint64_t> take() {
    for (const LinkId l : seen_) local_[l.value()] = kUnseen;
    seen_.clear();
    return std::move(out_);
  }

 private:
  void link(LinkId id) {
    std::uint32_t& local = local_[id.value()];
    if (local != kUnseen) {
      out_.push_back(local);
      return;
    }
    local = static_cast<std::uint32_t>(seen_.size());
    seen_.push_back(id);
    const Link& l = topology_.link(id);
    const Node& to = topology_.node(l.dst);
    out_.insert(out_.end(), {local, std::bit_cast<std::uint64_t>(l.bandwidth.bytes_per_second),
                             static_cast<std::uint64_t>(l.latency.ps()), static_cast<std::uint64_t>(l.kind),
                             static_cast<std::uint64_t>(to.kind), static_cast<std::uint64_t>(to.latency.ps()),
                             static_cast<std::uint64_t>(to.reduction)});
  }

  const Topology& topology_;
  std::vector<std::uint32_t>& local_;
  std::vector<LinkId> seen_;
  std::vector<std::uint64_t> out_;
};

bool same_ring(const CollectivePlan& a, const CollectivePlan& b) {
  const std::vector<std::uint32_t> map = a.relabelling_of(b);
  if (map.size() != a.participant_count()) return false;
  for (std::uint32_t p = 0; p < map.size(); ++p) {
    if (map[p] != p) return false;
  }
  return true;
}

bool same_rings(const std::vector<CoJob>& jobs, const std::vector<Channel>& channels, const std::vector<std::size_t>& a,
                const std::vector<std::size_t>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Channel& x = channels[a[i]];
    const Channel& y = channels[b[i]];
    if (!same_ring(*collective_of(jobs, x).plan, *collective_of(jobs, y).plan)) return false;
  }
  return true;
}

// The channels of a representative to simulate, with their copies (co_sim_classes.hpp, "Copies"): one per class of
// copies when every class has the same size k > 1, else every channel once.
std::vector<std::pair<std::size_t, std::uint32_t>> kept_copies(const std::vector<CoJob>& jobs,
                                                               const std::vector<Channel>& channels,
                                                               const std::vector<std::size_t>& members) {
  std::vector<std::pair<std::size_t, std::uint32_t>> kept;
  for (const std::size_t m : members) {
    const Channel& c = channels[m];
    const CoCollective& mine = collective_of(jobs, c);
    const auto copy = std::find_if(kept.begin(), kept.end(), [&](const auto& k) {
      const Channel& o = channels[k.first];
      const CoCollective& theirs = collective_of(jobs, o);
      return o.job == c.job && theirs.gpus == mine.gpus && same_ring(*mine.plan, *theirs.plan);
    });
    if (copy == kept.end()) {
      kept.emplace_back(m, 1);
    } else {
      ++copy->second;
    }
  }
  const std::uint32_t k = kept.front().second;
  const bool uniform = std::all_of(kept.begin(), kept.end(), [&](const auto& p) { return p.second == k; });
  if (k > 1 && uniform) return kept;
  kept.clear();
  for (const std::size_t m : members) kept.emplace_back(m, 1);
  return kept;
}

// The channels' components (co_sim_classes.hpp): each channel's routes found, channels that share a link joined.
// Components in the order of their first channel, their channels in the jobs' order.
std::vector<std::vector<std::size_t>> components_of(const std::vector<CoJob>& jobs, Router& router,
                                                    std::vector<Channel>& channels) {
  Components components(channels.size());
  std::vector<std::size_t> first_user(router.topology().link_count(), channels.size());
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const CoCollective& collective = collective_of(jobs, channels[c]);
    for (std::size_t r = 0; r < channels[c].successors.size(); ++r) {
      const Route& route = router.route(collective.gpus[r], collective.gpus[channels[c].successors[r]]);
      channels[c].routes.push_back(&route);
      for (const LinkId l : route.links) {
        std::size_t& user = first_user[l.value()];
        if (user == channels.size()) {
          user = c;
        } else {
          components.join(user, c);
        }
      }
    }
  }
  std::vector<std::vector<std::size_t>> members;
  std::vector<std::size_t> component_of(channels.size());
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const std::size_t root = components.find(c);
    if (root == c) {
      component_of[c] = members.size();
      members.emplace_back();
    } else {
      component_of[c] = component_of[root];
    }
    members[component_of[c]].push_back(c);
  }
  return members;
}

struct Representatives {
  std::vector<std::size_t> components;  // one per class, in component order
  std::vector<bool> crossed;            // per component: background crosses it
};

// One representative per class; a background-crossed component is its own.
Representatives representatives_of(const std::vector<CoJob>& jobs, const Topology& topology,
                                   const std::vector<Channel>& channels,
                                   const std::vector<std::vector<std::size_t>>& members,
                                   const std::set<LinkId>& background_links) {
  Representatives out;
  out.crossed.assign(members.size(), false);
  std::vector<std::uint32_t> local(topology.link_count(), kUnseen);
  std::map<std::vector<std::uint64_t>, std::vector<std::size_t>> known;
  for (std::size_t m = 0; m < members.size(); ++m) {
    Signature signature(topology, local);
    for (const std::size_t c : members[m]) {
      signature.add(channels[c], collective_of(jobs, channels[c]));
      for (const Route* route : channels[c].routes) {
        out.crossed[m] = out.crossed[m] || std::any_of(route->links.begin(), route->links.end(),
                                                       [&](LinkId l) { return background_links.contains(l); });
      }
    }
    std::vector<std::uint64_t> key = signature.take();
    if (out.crossed[m]) {
      out.components.push_back(m);
      continue;
    }
    std::vector<std::size_t>& alike = known[std::move(key)];
    const bool seen = std::any_of(alike.begin(), alike.end(), [&](std::size_t r) {
      return members[r].size() == members[m].size() && same_rings(jobs, channels, members[r], members[m]);
    });
    if (!seen) {
      alike.push_back(m);
      out.components.push_back(m);
    }
  }
  return out;
}

}  // namespace

CoSimClasses co_sim_classes(const std::vector<CoJob>& jobs, Router& router, const std::set<LinkId>& background_links,
                            std::uint64_t copies_min_transfers) {
  CoSimClasses out;
  out.jobs = jobs;
  std::vector<Channel> channels;
  bool rings = true;  // every channel a plain ring AllReduce
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (std::size_t i = 0; i < jobs[j].collectives.size(); ++i) {
      const CoCollective& c = jobs[j].collectives[i];
      out.transfers += transfers_of(*c.plan);
      channels.push_back({j, i, ring_successors(*c.plan)});
      rings = rings && !channels.back().successors.empty() && c.copies == 1;
    }
  }
  out.channels = channels.size();
  out.simulated = channels.size();
  out.simulated_transfers = out.transfers;
  if (channels.empty() || !rings) return out;

  const std::vector<std::vector<std::size_t>> members = components_of(jobs, router, channels);
  out.components = members.size();
  const Representatives simulated = representatives_of(jobs, router.topology(), channels, members, background_links);
  out.classes = simulated.components.size();

  // The representatives' channels, their copies as one where the component is large enough to need it.
  std::vector<std::vector<std::pair<std::size_t, std::uint32_t>>> kept_by_job(jobs.size());
  out.simulated = 0;
  out.simulated_transfers = 0;
  for (const std::size_t m : simulated.components) {
    std::uint64_t transfers = 0;
    for (const std::size_t c : members[m]) transfers += transfers_of(*collective_of(jobs, channels[c]).plan);
    std::vector<std::pair<std::size_t, std::uint32_t>> kept;
    if (!simulated.crossed[m] && transfers >= copies_min_transfers) {
      kept = kept_copies(jobs, channels, members[m]);
    } else {
      for (const std::size_t c : members[m]) kept.emplace_back(c, 1);
    }
    for (const auto& [c, copies] : kept) {
      kept_by_job[channels[c].job].emplace_back(channels[c].index, copies);
      out.simulated_transfers += transfers_of(*collective_of(jobs, channels[c]).plan);
    }
    out.simulated += kept.size();
  }
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    std::sort(kept_by_job[j].begin(), kept_by_job[j].end());
    std::vector<CoCollective>& collectives = out.jobs[j].collectives;
    collectives.clear();
    for (const auto& [index, copies] : kept_by_job[j]) {
      collectives.push_back(jobs[j].collectives[index]);
      collectives.back().copies = copies;
    }
  }
  return out;
}

}  // namespace syncsim::run
