#pragma once
// Replays a CollectivePlan on sets of contributions, to check that its schedule moves the right data: shared by
// the plan tests of every algorithm.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bitset>
#include <vector>

#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {
namespace plan_replay {
using Contributions = std::bitset<64>;  // which ranks' data a buffer piece holds

// Replays the plan by its dependencies alone, without time: a rank issues its current step's sends with the data
// it holds at that moment, and completes the step once the step's receives are in its inbox (then reduces or
// overwrites). Any order that respects these rules is a valid execution, so the data at the end must be right.
// A rank's second stream (a participant beyond the ranks without a node of its own) works on its rank's buffer.
inline std::vector<std::vector<Contributions>> replay(const CollectivePlan& plan, std::size_t pieces,
                                                      const std::vector<std::vector<Contributions>>& initial) {
  const std::size_t n = plan.participant_count();
  std::vector<std::uint32_t> buffer(n);  // whose holdings each participant reads and writes
  for (std::uint32_t p = 0; p < n; ++p) {
    const Participant who = plan.participant(p);
    buffer[p] = p < plan.rank_count() || who.node ? p : who.rank.value();
  }
  auto holdings = initial;
  holdings.resize(n, std::vector<Contributions>(pieces));
  struct Message {
    std::uint32_t dst_step;
    std::uint32_t piece;
    Contributions data;
  };
  std::vector<std::vector<Message>> inbox(n);
  std::vector<std::uint32_t> step(n, 0);
  std::vector<bool> sent(n, false);
  PlanStep current;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::uint32_t r = 0; r < n; ++r) {
      if (step[r] >= plan.step_count(Rank{r})) continue;
      plan.step(Rank{r}, step[r], current);
      if (!sent[r]) {
        for (const auto& send : current.sends) {
          REQUIRE(send.chunk < pieces);
          inbox[send.dst.value()].push_back({send.dst_step, send.chunk, holdings[buffer[r]][send.chunk]});
        }
        sent[r] = true;
        progress = true;
      }
      auto& box = inbox[r];
      const auto here = [&](const Message& m) { return m.dst_step == step[r]; };
      if (static_cast<std::uint32_t>(std::count_if(box.begin(), box.end(), here)) < current.recv_count) continue;
      for (const auto& m : box) {
        if (!here(m)) continue;
        auto& held = holdings[buffer[r]][m.piece];
        held = current.reduce_bytes > 0 ? (held | m.data) : m.data;
      }
      box.erase(std::remove_if(box.begin(), box.end(), here), box.end());
      ++step[r];
      sent[r] = false;
      progress = true;
    }
  }
  for (std::uint32_t r = 0; r < n; ++r) REQUIRE(step[r] == plan.step_count(Rank{r}));  // no deadlock
  for (const auto& box : inbox) REQUIRE(box.empty());                                  // nothing left unread
  holdings.resize(plan.rank_count());
  return holdings;
}

inline std::vector<std::vector<Contributions>> own_data(std::size_t n, std::size_t pieces) {
  std::vector<std::vector<Contributions>> holdings(n, std::vector<Contributions>(pieces));
  for (std::size_t r = 0; r < n; ++r) {
    for (auto& piece : holdings[r]) piece.set(r);
  }
  return holdings;
}

inline Contributions everyone(std::size_t n) {
  Contributions all;
  for (std::size_t r = 0; r < n; ++r) all.set(r);
  return all;
}
}  // namespace plan_replay

}  // namespace syncsim
