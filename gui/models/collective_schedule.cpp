#include "models/collective_schedule.h"

#include <QCoreApplication>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/core/input_error.hpp"

std::optional<CollectiveAlgorithm> parseCollectiveAlgorithm(const QString& name) {
  const std::optional<syncsim::Algorithm> algorithm = syncsim::find_algorithm(name.toStdString());
  if (algorithm == syncsim::Algorithm::ring) return CollectiveAlgorithm::Ring;
  if (algorithm == syncsim::Algorithm::tree) return CollectiveAlgorithm::Tree;
  if (algorithm == syncsim::Algorithm::halving_doubling) return CollectiveAlgorithm::HalvingDoubling;
  return std::nullopt;
}

QString collectiveAlgorithmName(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::Ring:
      return QCoreApplication::translate("CollectiveSchedule", "Ring AllReduce");
    case CollectiveAlgorithm::Tree:
      return QCoreApplication::translate("CollectiveSchedule", "Tree AllReduce");
    case CollectiveAlgorithm::HalvingDoubling:
      return QCoreApplication::translate("CollectiveSchedule", "Halving-doubling AllReduce");
  }
  return {};
}

QString collectiveName(const CollectiveSchedule& schedule) {
  switch (schedule.op()) {
    case syncsim::CollectiveOp::all_gather:
      return QCoreApplication::translate("CollectiveSchedule", "Ring AllGather");
    case syncsim::CollectiveOp::broadcast:
      return QCoreApplication::translate("CollectiveSchedule", "Stage-to-stage transfer");
    default:
      break;
  }
  return collectiveAlgorithmName(schedule.algorithm());
}

namespace {

// One transfer of the plan, with the per-rank steps it joins.
struct PlannedTransfer {
  CollectiveTransfer transfer;
  std::uint32_t srcStep = 0;
  std::uint32_t dstStep = 0;
  int round = -1;
};

int pieceCountOf(CollectiveAlgorithm algorithm, int ranks, syncsim::CollectiveOp op) {
  if (ranks < 2) {
    throw syncsim::InputError("an AllReduce needs at least 2 ranks, got " + std::to_string(ranks));
  }
  if (op == syncsim::CollectiveOp::broadcast) return 1;  // one slice, sent on
  switch (algorithm) {
    case CollectiveAlgorithm::Ring:
      return ranks;
    case CollectiveAlgorithm::Tree:
      return 1;  // one slice: store-and-forward, so every round is one level of the tree
    case CollectiveAlgorithm::HalvingDoubling:
      return 1 << static_cast<int>(std::floor(std::log2(ranks)));
  }
  return 1;
}

// The channel's plan as the simulator builds it (collective_runner.cpp, run_candidate), on one byte per piece so
// that a send's byte count is the number of pieces it moves, and one slice.
std::unique_ptr<syncsim::CollectivePlan> planFor(CollectiveAlgorithm algorithm, int ranks, int pieces,
                                                 const CollectiveChannel& channel) {
  const auto n = static_cast<std::size_t>(ranks);
  syncsim::PlanContext context;
  for (const std::vector<int>& host : channel.hosts) {
    auto& members = context.hosts.emplace_back();
    for (const int r : host) members.push_back(syncsim::Rank{static_cast<std::uint32_t>(r)});
  }
  context.channel = static_cast<std::uint32_t>(channel.channel);
  context.channels = static_cast<std::uint32_t>(std::max(1, channel.channels));
  if (algorithm == CollectiveAlgorithm::Ring) {
    context.ring_order = syncsim::channel_ring_order(context.hosts, n, context.channel, context.channels);
  }
  return syncsim::make_plan(simulatorAlgorithm(algorithm), channel.op, n, syncsim::Bytes{pieces}, context);
}

// Every step uniform (collective_plan.hpp: one send and one receive per rank, feeding the receiver's same step),
// every participant a rank: round s is step s, no replay needed.
bool isUniform(const syncsim::CollectivePlan& plan) {
  if (plan.participant_count() != plan.rank_count()) return false;
  const std::uint32_t steps = plan.step_count(syncsim::Rank{0});
  for (std::uint32_t r = 1; r < plan.rank_count(); ++r) {
    if (plan.step_count(syncsim::Rank{r}) != steps) return false;
  }
  for (std::uint32_t s = 0; s < steps; ++s) {
    if (!plan.uniform_pattern(s)) return false;
  }
  return true;
}

unsigned phaseOf(CollectiveAlgorithm algorithm, syncsim::CollectiveOp op, const CollectiveTransfer& t, int ranks,
                 int pieces) {
  if (op == syncsim::CollectiveOp::broadcast) return CollectiveSchedule::StageTransfer;
  switch (algorithm) {
    case CollectiveAlgorithm::Ring:
      return t.reduces ? CollectiveSchedule::ReduceScatter : CollectiveSchedule::AllGather;
    case CollectiveAlgorithm::Tree:
      return t.reduces ? CollectiveSchedule::ReduceUp : CollectiveSchedule::BroadcastDown;
    case CollectiveAlgorithm::HalvingDoubling:
      // Only the fold moves the whole buffer: halving and doubling move at most half of it.
      if (t.chunks == pieces && ranks != pieces) {
        return t.reduces ? CollectiveSchedule::FoldIn : CollectiveSchedule::FoldOut;
      }
      return t.reduces ? CollectiveSchedule::Halving : CollectiveSchedule::Doubling;
  }
  return 0;
}

}  // namespace

syncsim::Algorithm simulatorAlgorithm(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::Ring:
      return syncsim::Algorithm::ring;
    case CollectiveAlgorithm::Tree:
      return syncsim::Algorithm::tree;
    case CollectiveAlgorithm::HalvingDoubling:
      return syncsim::Algorithm::halving_doubling;
  }
  return syncsim::Algorithm::ring;
}

CollectiveSchedule::CollectiveSchedule(CollectiveAlgorithm algorithm, int ranks, const CollectiveChannel& channel)
    : m_algorithm(algorithm),
      m_op(channel.op),
      m_ranks(ranks),
      m_pieces(pieceCountOf(algorithm, ranks, channel.op)),
      m_channel(channel.channel) {
  std::unique_ptr<syncsim::CollectivePlan> plan = planFor(algorithm, ranks, m_pieces, channel);
  const auto steps = static_cast<std::size_t>(plan->step_count(syncsim::Rank{0}));
  if (isUniform(*plan) && steps * static_cast<std::size_t>(ranks) > kMaterializedTransfers) {
    generateUniform(*plan);
    m_plan = std::move(plan);
  } else {
    replay(*plan);
  }
}

const std::vector<CollectiveTransfer>& CollectiveSchedule::transfers(int step) const {
  if (!m_plan) return m_rounds[static_cast<std::size_t>(step)];
  if (m_cachedStep != step) {
    roundOf(step, m_cached);
    m_cachedStep = step;
  }
  return m_cached;
}

// A uniform plan's rounds on demand: only the phases, the reductions and the patterns are kept.
void CollectiveSchedule::generateUniform(const syncsim::CollectivePlan& plan) {
  const std::uint32_t steps = plan.step_count(syncsim::Rank{0});
  std::map<std::uint32_t, int> firstOfPattern;
  syncsim::PlanStep step;
  for (std::uint32_t s = 0; s < steps; ++s) {
    plan.step(syncsim::Rank{0}, s, step);
    m_reduces.push_back(step.reduce_bytes > 0);
    const CollectiveTransfer any{0, 0, 0, m_reduces.back(), static_cast<int>(std::lround(step.sends.front().bytes))};
    m_phases.push_back(phaseOf(m_algorithm, m_op, any, m_ranks, m_pieces));
    m_pattern.push_back(firstOfPattern.try_emplace(*plan.uniform_pattern(s), static_cast<int>(s)).first->second);
  }
}

void CollectiveSchedule::roundOf(int s, std::vector<CollectiveTransfer>& out) const {
  out.clear();
  syncsim::PlanStep step;
  for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(m_ranks); ++r) {
    m_plan->step(syncsim::Rank{r}, static_cast<std::uint32_t>(s), step);
    for (const syncsim::PlanSend& send : step.sends) {
      out.push_back({static_cast<int>(r), static_cast<int>(send.dst.value()), static_cast<int>(send.chunk),
                     m_reduces[static_cast<std::size_t>(s)], static_cast<int>(std::lround(send.bytes))});
    }
  }
  std::sort(out.begin(), out.end(), [](const CollectiveTransfer& a, const CollectiveTransfer& b) {
    return std::tie(a.src, a.dst, a.chunk) < std::tie(b.src, b.dst, b.chunk);
  });
}

void CollectiveSchedule::replay(const syncsim::CollectivePlan& plan) {
  // Every participant's steps, and the transfers between them. A plan may run a second stream on a rank's GPU (the
  // tree's broadcast goes down apart from its reduction): its transfers are shown as the rank's.
  const std::size_t participants = plan.participant_count();
  const auto rankOf = [&](std::uint32_t p) { return static_cast<int>(plan.participant(p).rank.value()); };
  std::vector<PlannedTransfer> all;
  std::vector<std::vector<std::vector<std::size_t>>> outgoing(participants);  // [participant][step] -> its sends
  std::vector<std::vector<std::vector<std::size_t>>> incoming(participants);  // [participant][step] -> its waits
  std::vector<std::uint32_t> destination;                                     // by transfer: the participant
  std::vector<std::vector<bool>> reduces(participants);
  syncsim::PlanStep step;
  for (std::uint32_t r = 0; r < participants; ++r) {
    const std::uint32_t count = plan.step_count(syncsim::Rank{r});
    outgoing[r].resize(count);
    incoming[r].resize(count);
    reduces[r].resize(count);
    for (std::uint32_t s = 0; s < count; ++s) {
      plan.step(syncsim::Rank{r}, s, step);
      reduces[r][s] = step.reduce_bytes > 0;
      for (const syncsim::PlanSend& send : step.sends) {
        PlannedTransfer t;
        t.transfer = {rankOf(r), rankOf(send.dst.value()), static_cast<int>(send.chunk), false,
                      static_cast<int>(std::lround(send.bytes))};
        t.srcStep = s;
        t.dstStep = send.dst_step;
        outgoing[r][s].push_back(all.size());
        destination.push_back(send.dst.value());
        all.push_back(t);
      }
    }
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    PlannedTransfer& t = all[i];
    const std::uint32_t dst = destination[i];
    incoming[dst].at(t.dstStep).push_back(i);
    t.transfer.reduces = reduces[dst][t.dstStep];
  }

  // Unit-time replay (see the header): advance every rank as far as its receives allow, until all are done. The
  // plans are deadlock-free, so each pass moves some rank on.
  std::vector<std::size_t> current(participants, 0);
  std::vector<int> time(participants, 0);
  bool moved = true;
  while (moved) {
    moved = false;
    for (std::size_t r = 0; r < participants; ++r) {
      while (current[r] < outgoing[r].size()) {
        const std::size_t s = current[r];
        for (const std::size_t t : outgoing[r][s]) all[t].round = time[r];
        int end = time[r] + (outgoing[r][s].empty() ? 0 : 1);
        const auto& waits = incoming[r][s];
        if (std::any_of(waits.begin(), waits.end(), [&](std::size_t t) { return all[t].round < 0; })) break;
        for (const std::size_t t : waits) end = std::max(end, all[t].round + 1);
        time[r] = end;
        ++current[r];
        moved = true;
      }
    }
  }

  int rounds = 0;
  for (const PlannedTransfer& t : all) rounds = std::max(rounds, t.round + 1);
  m_rounds.resize(static_cast<std::size_t>(rounds));
  for (const PlannedTransfer& t : all) {
    if (t.round >= 0) m_rounds[static_cast<std::size_t>(t.round)].push_back(t.transfer);
  }
  std::erase_if(m_rounds, [](const std::vector<CollectiveTransfer>& r) { return r.empty(); });
  for (auto& round : m_rounds) {
    std::sort(round.begin(), round.end(), [](const CollectiveTransfer& a, const CollectiveTransfer& b) {
      return std::tie(a.src, a.dst, a.chunk) < std::tie(b.src, b.dst, b.chunk);
    });
    unsigned phases = 0;
    for (const CollectiveTransfer& t : round) phases |= phaseOf(m_algorithm, m_op, t, m_ranks, m_pieces);
    m_phases.push_back(phases);
  }
  numberPatterns();
}

// Rounds with equal (src, dst, pieces) sets, by their first occurrence.
void CollectiveSchedule::numberPatterns() {
  using Key = std::vector<std::tuple<int, int, int>>;
  std::map<Key, int> first;
  for (std::size_t s = 0; s < m_rounds.size(); ++s) {
    Key key;
    for (const CollectiveTransfer& t : m_rounds[s]) key.emplace_back(t.src, t.dst, t.chunks);
    std::sort(key.begin(), key.end());
    m_pattern.push_back(first.try_emplace(std::move(key), static_cast<int>(s)).first->second);
  }
}

QString CollectiveSchedule::phaseText(int step) const {
  const unsigned p = phases(step);
  QStringList parts;
  if (p & FoldIn) parts << QCoreApplication::translate("CollectiveSchedule", "fold in (odd ranks hand over)");
  if (p & ReduceScatter) parts << QCoreApplication::translate("CollectiveSchedule", "reduce-scatter");
  if (p & AllGather) parts << QCoreApplication::translate("CollectiveSchedule", "all-gather");
  if (p & ReduceUp) parts << QCoreApplication::translate("CollectiveSchedule", "reduce up the tree");
  if (p & BroadcastDown) parts << QCoreApplication::translate("CollectiveSchedule", "broadcast down the tree");
  if (p & Halving) parts << QCoreApplication::translate("CollectiveSchedule", "recursive halving (reduce-scatter)");
  if (p & Doubling) parts << QCoreApplication::translate("CollectiveSchedule", "recursive doubling (all-gather)");
  if (p & FoldOut) parts << QCoreApplication::translate("CollectiveSchedule", "fold out (results handed back)");
  if (p & StageTransfer) parts << QCoreApplication::translate("CollectiveSchedule", "to the next pipeline stage");
  return parts.join(QStringLiteral(", "));
}

std::vector<int> CollectiveSchedule::stateAfter(int completedSteps) const {
  const auto pieces = static_cast<std::size_t>(m_pieces);
  std::vector<int> state(static_cast<std::size_t>(m_ranks) * pieces, 1);
  if (m_op != syncsim::CollectiveOp::allreduce && stepCount() > 0) {
    // A copy's ranks start with only the pieces they send first (an AllGather's own piece, a broadcast's root).
    std::fill(state.begin(), state.end(), 0);
    for (const CollectiveTransfer& t : transfers(0)) {
      for (int c = t.chunk; c < t.chunk + t.chunks; ++c) {
        state[static_cast<std::size_t>(t.src) * pieces + static_cast<std::size_t>(c)] = 1;
      }
    }
  }
  // A round's updates read the state before it (a rank may receive into a piece it also sends): the values are
  // gathered first, then written, which costs the round's transfers rather than a copy of the whole state.
  std::vector<std::pair<std::size_t, int>> writes;
  const int last = std::clamp(completedSteps, 0, stepCount());
  for (int s = 0; s < last; ++s) {
    writes.clear();
    for (const CollectiveTransfer& t : transfers(s)) {
      for (int c = t.chunk; c < t.chunk + t.chunks; ++c) {
        const std::size_t from = static_cast<std::size_t>(t.src) * pieces + static_cast<std::size_t>(c);
        const std::size_t to = static_cast<std::size_t>(t.dst) * pieces + static_cast<std::size_t>(c);
        writes.emplace_back(to, t.reduces ? state[from] : -state[from]);
      }
    }
    // Copies first (the sum travels), then reductions add in: a copy and a reduction never meet in one round.
    for (const auto& [to, value] : writes) {
      if (value < 0) state[to] = -value;
    }
    for (const auto& [to, value] : writes) {
      if (value > 0) state[to] += value;
    }
  }
  return state;
}
