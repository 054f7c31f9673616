#pragma once
// Checks shared by the algorithm tests: the plan's addressing is consistent, its schedule moves the right data
// (plan_replay on a per-piece view of the plan), and its byte totals.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "../collectives/plan_replay.hpp"
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim::plan_checks {

using plan_replay::Contributions;

// Every (rank, step) expects exactly as many receives as there are sends addressed to it, and no send names a
// step its receiver does not have.
inline void check_addressing(const CollectivePlan& plan) {
  const auto n = static_cast<std::uint32_t>(plan.participant_count());
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> addressed;
  PlanStep step;
  for (std::uint32_t r = 0; r < n; ++r) {
    for (std::uint32_t s = 0; s < plan.step_count(Rank{r}); ++s) {
      plan.step(Rank{r}, s, step);
      for (const auto& send : step.sends) {
        REQUIRE(send.dst.value() < n);
        REQUIRE(send.dst.value() != r);
        REQUIRE(send.dst_step < plan.step_count(send.dst));
        ++addressed[{send.dst.value(), send.dst_step}];
      }
    }
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    for (std::uint32_t s = 0; s < plan.step_count(Rank{r}); ++s) {
      plan.step(Rank{r}, s, step);
      const auto it = addressed.find({r, s});
      INFO("rank " << r << " step " << s);
      REQUIRE(step.recv_count == (it == addressed.end() ? 0u : it->second));
    }
  }
}

// The plan with every send of a contiguous block of pieces split into one send per piece (chunk = first piece,
// bytes / piece_bytes pieces), so that plan_replay, which moves one piece per send, can replay it.
class PieceView final : public CollectivePlan {
 public:
  PieceView(const CollectivePlan& plan, double piece_bytes) : plan_(plan), piece_bytes_(piece_bytes) {
    PlanStep step;
    for (std::uint32_t r = 0; r < plan.participant_count(); ++r) {
      for (std::uint32_t s = 0; s < plan.step_count(Rank{r}); ++s) {
        plan.step(Rank{r}, s, step);
        for (const auto& send : step.sends) incoming_[{send.dst.value(), send.dst_step}] += pieces(send);
      }
    }
  }
  std::string_view algorithm() const override { return plan_.algorithm(); }
  CollectiveOp op() const override { return plan_.op(); }
  std::size_t rank_count() const override { return plan_.rank_count(); }
  std::size_t participant_count() const override { return plan_.participant_count(); }
  Participant participant(std::uint32_t index) const override { return plan_.participant(index); }
  Bytes size() const override { return plan_.size(); }
  std::uint32_t step_count(Rank rank) const override { return plan_.step_count(rank); }
  void step(Rank rank, std::uint32_t s, PlanStep& out) const override {
    PlanStep inner;
    plan_.step(rank, s, inner);
    out.clear();
    for (const auto& send : inner.sends) {
      for (std::uint32_t i = 0; i < pieces(send); ++i) {
        out.sends.push_back(PlanSend{send.dst, piece_bytes_, send.dst_step, send.chunk + i});
      }
    }
    const auto it = incoming_.find({rank.value(), s});
    out.recv_count = it == incoming_.end() ? 0 : it->second;
    out.reduce_bytes = inner.reduce_bytes;
  }

 private:
  std::uint32_t pieces(const PlanSend& send) const {
    const double count = send.bytes / piece_bytes_;
    REQUIRE(count == Approx(std::round(count)));
    REQUIRE(count >= 1);
    return static_cast<std::uint32_t>(std::lround(count));
  }
  const CollectivePlan& plan_;
  double piece_bytes_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> incoming_;
};

// Replays the plan (cut into `pieces` equal pieces) from the data its operation starts with, and checks it ends
// with the data the operation promises: AllReduce every piece summed everywhere, ReduceScatter piece r summed on
// rank r, AllGather every rank's piece everywhere, Broadcast the root's buffer everywhere, Reduce the sum on root.
inline void check_moves_right_data(const CollectivePlan& plan, std::uint32_t pieces, Rank root = Rank{0}) {
  check_addressing(plan);
  const std::size_t n = plan.rank_count();
  const PieceView view(plan, static_cast<double>(plan.size().value) / pieces);
  auto initial = plan_replay::own_data(n, pieces);
  const CollectiveOp op = plan.op();
  if (op == CollectiveOp::all_gather) {
    for (std::size_t r = 0; r < n; ++r) {
      for (std::uint32_t c = 0; c < pieces; ++c) initial[r][c] = c == r ? Contributions{}.set(r) : Contributions{};
    }
  }
  if (op == CollectiveOp::broadcast) {
    for (std::size_t r = 0; r < n; ++r) {
      for (auto& piece : initial[r]) piece = r == root.value() ? Contributions{}.set(r) : Contributions{};
    }
  }
  const auto held = plan_replay::replay(view, pieces, initial);
  const Contributions all = plan_replay::everyone(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    for (std::uint32_t c = 0; c < pieces; ++c) {
      INFO(plan.algorithm() << " " << to_string(op) << " n=" << n << " rank " << r << " piece " << c);
      switch (op) {
        case CollectiveOp::allreduce:
          REQUIRE(held[r][c] == all);
          break;
        case CollectiveOp::reduce_scatter:
          if (c == r) REQUIRE(held[r][c] == all);
          break;
        case CollectiveOp::all_gather:
          REQUIRE(held[r][c] == Contributions{}.set(c));
          break;
        case CollectiveOp::broadcast:
          REQUIRE(held[r][c] == Contributions{}.set(root.value()));
          break;
        case CollectiveOp::reduce:
          if (r == root.value()) REQUIRE(held[r][c] == all);
          break;
        case CollectiveOp::alltoall:  // a block per (src, dst) pair: alltoall_plan_test.cpp replays those
          FAIL("check_moves_right_data does not check alltoall");
          break;
      }
    }
  }
}

struct Totals {
  double bytes_sent = 0;
  std::uint64_t sends = 0;
  std::uint64_t receives = 0;
};

inline Totals totals(const CollectivePlan& plan) {
  Totals t;
  PlanStep step;
  for (std::uint32_t r = 0; r < plan.participant_count(); ++r) {
    for (std::uint32_t s = 0; s < plan.step_count(Rank{r}); ++s) {
      plan.step(Rank{r}, s, step);
      for (const auto& send : step.sends) t.bytes_sent += send.bytes;
      t.sends += step.sends.size();
      t.receives += step.recv_count;
    }
  }
  return t;
}

// What CollectivePlan::relabelling_of promises: `other`'s participant p runs as `plan`'s participant map[p], step
// for step, each send to the mapped peer with the same bytes and receiver's step.
inline void check_relabelling(const CollectivePlan& plan, const CollectivePlan& other,
                              const std::vector<std::uint32_t>& map) {
  REQUIRE(map.size() == other.participant_count());
  PlanStep mine;
  PlanStep theirs;
  for (std::uint32_t p = 0; p < map.size(); ++p) {
    REQUIRE(plan.step_count(Rank{map[p]}) == other.step_count(Rank{p}));
    for (std::uint32_t t = 0; t < other.step_count(Rank{p}); ++t) {
      other.step(Rank{p}, t, theirs);
      plan.step(Rank{map[p]}, t, mine);
      REQUIRE(mine.sends.size() == theirs.sends.size());
      CHECK(mine.recv_count == theirs.recv_count);
      CHECK(mine.reduce_bytes == theirs.reduce_bytes);
      for (std::size_t i = 0; i < mine.sends.size(); ++i) {
        CHECK(mine.sends[i].dst.value() == map[theirs.sends[i].dst.value()]);
        CHECK(mine.sends[i].bytes == theirs.sends[i].bytes);
        CHECK(mine.sends[i].dst_step == theirs.sends[i].dst_step);
      }
    }
  }
}

}  // namespace syncsim::plan_checks
