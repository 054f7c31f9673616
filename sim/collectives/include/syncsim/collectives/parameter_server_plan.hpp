#pragma once
// Synchronous parameter-server exchange: workers push their gradients to the servers, each server sums the N
// gradients of its shard and applies them, and the workers pull the updated shards back. The parameters are split
// evenly in k shards (S/k fluid bytes each); server j owns shard j. Everyone ends with the sum of all workers'
// contributions, so the operation reported is AllReduce.
//
//   Dedicated, N = 3 workers, k = 2 servers (ranks 3 and 4)
//
//   step 0 (push)                            step 1 (pull)
//     w0 --s0--> srv3   w0 --s1--> srv4        srv3 --s0--> w0, w1, w2
//     w1 --s0--> srv3   w1 --s1--> srv4        srv4 --s1--> w0, w1, w2
//     w2 --s0--> srv3   w2 --s1--> srv4      every worker receives the k shards
//   server j receives N pushes of S/k and
//   reduces N S/k bytes (the apply cost)
//
//   Colocated (server j is worker j, j < k): a rank does not send to itself.
//     step 0: a worker pushes shard j to server j for every j other than its own rank; server j also receives
//             the N-1 other pushes of its shard and reduces (N-1) S/k bytes.
//     step 1: server j sends shard j to the N-1 other workers; every worker receives the k shards it does not
//             own (k - 1 for a server, k for the others).
//
// Cost on one switch (link bandwidth B, route latency alpha; every flow has S/k bytes and a fair share of the
// busiest link on its path):
//   dedicated   2 alpha + 2 max(N, k) S / (k B)   + N S/k / apply_rate
//               (server j's downlink carries N S/k in the push, its uplink N S/k in the pull; a worker's uplink
//               carries S split in k flows, the bottleneck only when k > N)
//   colocated   2 alpha + 2 (N-1) S / (k B)       + (N-1) S/k / apply_rate      (N >= 2; zero for N = 1)
//               (with k = N this is the direct AllReduce)
// The apply term is there when ExecutorOptions::reduction_rate is set.
#include "syncsim/collectives/collective_plan.hpp"

namespace syncsim {

enum class PsPlacement { dedicated, colocated };

class ParameterServerPlan final : public CollectivePlan {
 public:
  // Ranks 0..workers-1 are the workers. `dedicated`: ranks workers..workers+servers-1 are the servers (the caller
  // maps them to nodes). `colocated`: server j is worker j, no extra ranks. Throws InputError for no workers, no
  // servers, more colocated servers than workers, or a negative size.
  ParameterServerPlan(std::size_t workers, std::size_t servers, Bytes size, PsPlacement placement);

  std::string_view algorithm() const override { return "parameter_server"; }
  CollectiveOp op() const override { return CollectiveOp::allreduce; }
  std::size_t rank_count() const override;
  Bytes size() const override { return size_; }
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank rank, std::uint32_t step, PlanStep& out) const override;

  std::size_t workers() const { return workers_; }
  std::size_t servers() const { return servers_; }
  PsPlacement placement() const { return placement_; }
  // The rank that serves shard j.
  Rank server_rank(std::uint32_t shard) const;

 private:
  std::uint32_t workers_;
  std::uint32_t servers_;
  Bytes size_;
  PsPlacement placement_;
};

}  // namespace syncsim
