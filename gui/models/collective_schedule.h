#pragma once
// CollectiveSchedule: what every rank of an AllReduce sends, receives and has reduced at each step, for the ring,
// the binary tree and recursive halving-doubling — replayed from the simulator's own plans (RingPlan, TreePlan,
// HalvingDoublingPlan in sim/collectives/include/syncsim/collectives/), never re-derived here.
//
// A plan gives each rank its own list of steps (collective_plan.hpp); ranks need not step together (a tree's leaves
// idle while the root reduces). The animation needs global steps, so each transfer is placed at the round in which
// it would run if every transfer took one unit of time and empty steps none — the plan's own data dependencies:
//
//   start(r, 0) = 0,  start(r, s+1) = end(r, s)
//   end(r, s)   = max(start(r, s) + 1 if step s sends,  round(t) + 1 for every transfer t that feeds step s)
//   round(t)    = start(sender, its step)
//
// Ring: 2(n-1) rounds (reduce-scatter, then all-gather), as RingPlan's steps. Tree (tree 0 of NCCL's double binary
// tree, one slice): reduce up level by level, then broadcast down: 2H rounds, H = floor(log2(n-1)) + 1.
// Halving-doubling: 2 log2(n) rounds for a power of two; otherwise a fold into the largest power of two first and
// back out at the end.
//
//   n = 4 tree       rounds: 0: 1 -> 2, 3 -> 2 (reduce)   1: 2 -> 0 (reduce)   2: 0 -> 2   3: 2 -> 1, 2 -> 3
//     0 -- 2
//         / \        every rank's buffer is one piece; after round 1 the root holds the sum of all 4
//        1   3
//
// The buffer is cut into pieceCount() equal pieces (n for the ring, the largest power of two <= n for
// halving-doubling, 1 for the tree); a transfer moves `chunks` consecutive pieces from `chunk` on. The state is how
// many ranks' contributions each rank's copy of each piece holds:
//
//   before round 0:        contributions(r, p) = 1
//   transfer that reduces: dst(p) += src(p)     (the receiving step adds it in: reduce-scatter, reduce, halving)
//   transfer that copies:  dst(p)  = src(p)     (all-gather, broadcast, doubling: the sum travels)
//
// all transfers of a round read the state before that round.
//
// Channels (collective_runner.hpp): the simulator splits an AllReduce over C channels, each a plan of its own on
// S/C bytes — channel c's ring enters and leaves every node on its own rail, tree channels 2k and 2k+1 run NCCL's
// two trees on chain k. A CollectiveChannel names one of them; its schedule is that channel's plan (make_plan with
// the simulator's PlanContext), the default one the plan in rank order without host structure.
//
// Other collectives (a layout's groups, layout_groups.h): the channel's `op` makes the plan an AllGather (a ring's
// second half: each rank starts with its own piece, the copies travel) or a broadcast (a pipeline stage's
// activation to the next: the root's one piece moves). Their state counts copies: a piece is complete at 1
// (fullCount()), where an AllReduce's is at n.
//
// Size: a plan whose every step is uniform (a ring's: every rank sends one piece to the next) needs no replay —
// round s is step s — and above kMaterializedTransfers its rounds are generated on demand instead of stored (a ring
// on 1,024 ranks has 2 M transfers per channel).
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include <QtGlobal>

#include "syncsim/collectives/collective_op.hpp"

enum class CollectiveAlgorithm : quint8 { Ring, Tree, HalvingDoubling };

// The simulator's names: "ring", "tree", "halving_doubling"; nullopt for others (hierarchical, direct).
std::optional<CollectiveAlgorithm> parseCollectiveAlgorithm(const QString& name);
QString collectiveAlgorithmName(CollectiveAlgorithm algorithm);  // translated, for titles

struct CollectiveTransfer {
  int src = 0;
  int dst = 0;
  int chunk = 0;  // first piece moved
  bool reduces = false;
  int chunks = 1;  // pieces moved
  bool operator==(const CollectiveTransfer&) const = default;
};

namespace syncsim {
class CollectivePlan;
enum class Algorithm;
}  // namespace syncsim

// The simulator's algorithm for the view's.
syncsim::Algorithm simulatorAlgorithm(CollectiveAlgorithm algorithm);

// One of the simulator's channels: ranks grouped by NCCL node (nccl_node_groups, in rank order) and which channel
// of how many. No hosts and one channel: the plain plan in rank order.
struct CollectiveChannel {
  std::vector<std::vector<int>> hosts;
  int channel = 0;
  int channels = 1;
  syncsim::CollectiveOp op = syncsim::CollectiveOp::allreduce;  // allreduce, all_gather or broadcast (from rank 0)
};

class CollectiveSchedule {
 public:
  // Above this many transfers a uniform plan's rounds are generated when asked for, not stored.
  static constexpr std::size_t kMaterializedTransfers = 1 << 20;

  // What a round does, for its caption; a round may do two things at once (a fold beside a halving exchange).
  enum Phase : unsigned {
    ReduceScatter = 1,
    AllGather = 2,
    ReduceUp = 4,
    BroadcastDown = 8,
    Halving = 16,
    Doubling = 32,
    FoldIn = 64,
    FoldOut = 128,
    StageTransfer = 256,  // a broadcast's copy: one stage's activation to the next
  };

  // Throws syncsim::InputError for fewer than 2 ranks (as the plans do).
  CollectiveSchedule(CollectiveAlgorithm algorithm, int ranks, const CollectiveChannel& channel = {});

  CollectiveAlgorithm algorithm() const { return m_algorithm; }
  syncsim::CollectiveOp op() const { return m_op; }
  // Contributions that make a piece complete: n for an AllReduce (every rank's sum), 1 for a copy.
  int fullCount() const { return m_op == syncsim::CollectiveOp::allreduce ? m_ranks : 1; }
  int rankCount() const { return m_ranks; }
  int pieceCount() const { return m_pieces; }
  int channel() const { return m_channel; }
  int stepCount() const { return static_cast<int>(m_phases.size()); }
  // The transfers of a round, sorted by (src, dst, chunk). For a schedule generated on demand the reference stays
  // valid until the next call with another step.
  const std::vector<CollectiveTransfer>& transfers(int step) const;
  unsigned phases(int step) const { return m_phases[static_cast<std::size_t>(step)]; }
  // The first round that moves the same (src, dst, pieces) set as `step` (the plan's uniform_pattern; else `step`
  // itself): per-link totals need to walk only the rounds with pattern(s) == s, each times its repeats.
  int pattern(int step) const { return m_pattern[static_cast<std::size_t>(step)]; }
  // The caption of a step ("Reduce-scatter", "Fold in, recursive halving"), translated.
  QString phaseText(int step) const;
  // contributions after `completedSteps` rounds (0..stepCount()), row-major [rank * pieceCount() + piece].
  std::vector<int> stateAfter(int completedSteps) const;

 private:
  void replay(const syncsim::CollectivePlan& plan);
  void generateUniform(const syncsim::CollectivePlan& plan);
  void roundOf(int step, std::vector<CollectiveTransfer>& out) const;
  void numberPatterns();

  CollectiveAlgorithm m_algorithm;
  syncsim::CollectiveOp m_op = syncsim::CollectiveOp::allreduce;
  int m_ranks;
  int m_pieces = 1;
  int m_channel = 0;
  std::vector<std::vector<CollectiveTransfer>> m_rounds;  // empty when generated on demand
  std::vector<unsigned> m_phases;
  std::vector<int> m_pattern;
  std::vector<bool> m_reduces;                            // on demand: whether step s's receivers reduce
  std::shared_ptr<const syncsim::CollectivePlan> m_plan;  // on demand: the plan the rounds come from
  mutable int m_cachedStep = -1;
  mutable std::vector<CollectiveTransfer> m_cached;
};

// What a schedule runs, for titles: "Ring AllReduce", "Ring AllGather", "Stage-to-stage transfer"; translated.
QString collectiveName(const CollectiveSchedule& schedule);
