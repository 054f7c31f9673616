#include "deadlock_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

namespace syncsim {
namespace {

// Named in full for the first few waiting ranks; a deadlock usually shows its cause in the first.
constexpr std::size_t kRanksNamed = 4;

struct ExpectedSend {
  std::uint32_t src;
  std::uint32_t src_step;
};

std::string describe_wait(std::uint32_t rank, const RankProgress& st, const std::vector<RankProgress>& ranks,
                          const std::vector<ExpectedSend>* senders) {
  std::string out = fmt::format("rank {} waits at step {} of {}", rank, st.step, st.steps);
  if (st.sends_pending > 0) return out + fmt::format(" for {} of its own send(s) to drain", st.sends_pending);
  if (st.reducing) return out + " for its reduction to end";
  out += fmt::format(" for {} of {} transfer(s)", st.recvs_needed - st.recvs_got, st.recvs_needed);
  if (senders == nullptr) return out + " (the plan is too large to find the peers)";
  if (senders->empty()) {
    return out + fmt::format(", which no rank sends to its step {} (a send is missing from the plan)", st.step);
  }
  std::vector<std::string> late;
  for (const ExpectedSend& s : *senders) {
    const RankProgress& peer = ranks[s.src];
    // A peer sends at the start of the step; one that has not reached that step never will, since it waits too.
    if (!peer.finished && peer.step < s.src_step) {
      late.push_back(
          fmt::format("rank {} (sends it at its step {}, but waits at step {})", s.src, s.src_step, peer.step));
    }
  }
  if (late.empty()) {
    return out + fmt::format(", but the plan sends only {} transfer(s) to its step {}, all delivered", senders->size(),
                             st.step);
  }
  return out + fmt::format(" from {}", fmt::join(late, " and "));
}

}  // namespace

std::string deadlock_report(const CollectivePlan& plan, const std::vector<RankProgress>& ranks) {
  std::vector<std::uint32_t> waiting;
  for (std::uint32_t r = 0; r < ranks.size(); ++r) {
    if (!ranks[r].finished) waiting.push_back(r);
  }
  std::string report =
      fmt::format("deadlock in the {} collective: the simulation ran out of events with {} of {} ranks waiting",
                  plan.algorithm(), waiting.size(), ranks.size());
  if (waiting.size() > kRanksNamed) waiting.resize(kRanksNamed);

  // Who sends to the named ranks' current steps: one walk over the plan, if it is small enough.
  std::uint64_t rank_steps = 0;
  for (const RankProgress& st : ranks) rank_steps += st.steps;
  std::map<std::uint32_t, std::vector<ExpectedSend>> senders;  // waiting rank -> sends to its current step
  const bool scan = rank_steps <= kMaxDeadlockScan;
  if (scan) {
    for (const std::uint32_t r : waiting) senders[r];
    PlanStep step;
    for (std::uint32_t q = 0; q < ranks.size(); ++q) {
      for (std::uint32_t t = 0; t < ranks[q].steps; ++t) {
        plan.step(Rank{q}, t, step);
        for (const PlanSend& send : step.sends) {
          const auto it = senders.find(send.dst.value());
          if (it != senders.end() && send.dst_step == ranks[send.dst.value()].step) it->second.push_back({q, t});
        }
      }
    }
  }
  for (const std::uint32_t r : waiting) {
    report += (r == waiting.front() ? ": " : "; ") + describe_wait(r, ranks[r], ranks, scan ? &senders[r] : nullptr);
  }
  return report;
}

double plan_bytes(const CollectivePlan& plan) {
  double total = 0;
  PlanStep step;
  for (std::uint32_t r = 0; r < plan.participant_count(); ++r) {
    for (std::uint32_t s = 0; s < plan.step_count(Rank{r}); ++s) {
      plan.step(Rank{r}, s, step);
      for (const PlanSend& send : step.sends) total += send.bytes;
    }
  }
  return total;
}

}  // namespace syncsim
