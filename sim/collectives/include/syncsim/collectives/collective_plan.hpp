#pragma once
// CollectivePlan: a collective algorithm as pure data, independent of the network that will run it.
//
// Each rank executes a sequence of steps. Step s of rank r:
//   1. starts all its sends at once (each a point-to-point transfer to a peer),
//   2. waits for its `recv_count` incoming transfers addressed to its step s (a transfer may arrive before the
//      rank reaches that step: it is buffered, as NCCL's receive buffers do),
//   3. reduces `reduce_bytes` of received data,
// and is complete when its sends have been delivered, its receives have arrived and the reduction is done; only
// then does step s+1 begin. That is the data dependency of every ring/tree schedule (a chunk is forwarded only
// after it arrived and was reduced) with one outstanding send per peer.
//
// Plans are generated step by step on demand: a ring on 4096 ranks has 33 M transfers, and memory must grow with
// ranks, not with ranks squared (docs/architecture.md §20).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"
#include "syncsim/core/strong_id.hpp"

namespace syncsim {

struct PlanSend {
  Rank dst;
  double bytes = 0;            // fluid bytes: a chunk of S/n bytes need not be whole
  std::uint32_t dst_step = 0;  // the receiver's step this transfer feeds
  std::uint32_t chunk = 0;     // which piece of the buffer moves (for traces and the ring animation)
};

// What a participant sends one peer over a whole collective (CollectivePlan::send_totals).
struct PeerSends {
  Rank dst;
  double bytes = 0;
  std::uint64_t transfers = 0;
};

struct PlanStep {
  std::vector<PlanSend> sends;
  std::uint32_t recv_count = 0;
  double reduce_bytes = 0;
  void clear() {
    sends.clear();
    recv_count = 0;
    reduce_bytes = 0;
  }
};

// Who takes part in a plan. Participants 0..rank_count()-1 are the collective's ranks, each on its GPU. A plan may
// add more after them, each with a step stream of its own (PlanSend::dst and step() take participant numbers):
//   a second stream on a rank's GPU   NCCL runs a tree's reduction up and its broadcast down on separate threads,
//                                     so that neither direction waits for the other;
//   a switch that reduces             NVLink SHARP's NVSwitch or InfiniBand SHARP's switches: the node itself sends
//                                     and receives, and its reductions are the network's.
struct Participant {
  Rank rank;                   // a rank or a rank's second stream: the rank whose GPU runs it
  std::optional<NodeId> node;  // a switch: the topology node (rank is then unused)
};

class CollectivePlan {
 public:
  virtual ~CollectivePlan() = default;

  virtual std::string_view algorithm() const = 0;
  virtual CollectiveOp op() const = 0;
  virtual std::size_t rank_count() const = 0;
  // The operation's size as nccl-tests counts it (see collective_op.hpp).
  virtual Bytes size() const = 0;
  // Ranks first, then any further participants (see Participant); the per-participant functions below take a
  // participant number in a Rank.
  virtual std::size_t participant_count() const { return rank_count(); }
  virtual Participant participant(std::uint32_t index) const { return {Rank{index}, std::nullopt}; }
  virtual std::uint32_t step_count(Rank rank) const = 0;
  // Fills `out` (cleared first) with step `step` of `rank`.
  virtual void step(Rank rank, std::uint32_t step, PlanStep& out) const = 0;
  // Fills `out` (cleared first) with what `rank` sends over the whole collective, one entry per peer in the order
  // of its first send: its steps' sends summed. This default reads every step; a plan that knows the sums in closed
  // form overrides it, so that a bound over a 100,000-GPU plan (load_bound.hpp) costs an entry per peer instead of
  // a visit per transfer. The sums may differ from the step-by-step ones by floating-point rounding.
  virtual void send_totals(Rank rank, std::vector<PeerSends>& out) const;

  // A relabelling under which `other` runs as this plan does: other's participant p is this plan's participant
  // map[p], with the same step count and the same steps, each send going to the mapped peer with the same bytes and
  // receiver's step. Empty when there is none or the plan does not know (the default). The pipeline lockstep times
  // one channel for every channel that is such a relabelling on routes that are a relabelling of its links
  // (pipeline_lockstep.hpp): NCCL's tree channels on the rails of a DGX cluster.
  virtual std::vector<std::uint32_t> relabelling_of(const CollectivePlan& other) const {
    (void)other;
    return {};
  }
  // Symmetry, for bulk execution (docs/architecture.md §10). A plan returns a pattern id for step s when, at step s,
  // every rank sends and receives the same way — one send and one receive each (a ring's step), or the same k sends
  // each (an all-to-all's) — with the same reduce bytes, every send feeds the receiver's step s, and all steps that
  // share the id move the same (src, dst, bytes) set. nullopt otherwise. The executor checks the step on the
  // topology before it trusts it (bulk_pattern.hpp); the lockstep runner takes only one-send steps.
  virtual std::optional<std::uint32_t> uniform_pattern(std::uint32_t step) const {
    (void)step;
    return std::nullopt;
  }
};

}  // namespace syncsim
