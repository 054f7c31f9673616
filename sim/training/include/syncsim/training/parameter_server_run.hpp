#pragma once
// run_parameter_server_engine: clients (workers, or whole worker groups under `hybrid`) exchanging gradients with
// k parameter servers over the flow model, so that every push and pull shares the network max-min fairly and
// incast at a server's link shows in the times.
//
// Parameters are sharded as the shard plan says (tensor_partition.hpp): bucket b's shard on server j is
// shard(b, j) = {bytes, messages}; evenly, every bucket is split in k equal parts, part j going to server j. A
// server holding nothing of a bucket gets no push of it and sends no pull of it.
//
//   client c, iteration t                        server j
//   ---------------------                        --------
//   compute; bucket b ready at work(c,t)[b]  -->  push of shard(b, j) arrives: queued (FIFO per server)
//   one push stream per client: bucket b+1's      apply: apply_time(bytes) + messages x per_message, one at a time
//   push starts when bucket b's has arrived
//
// Messages (per_message = p, a software cost on both ends, as gRPC's per-call cost): a client sends a bucket's
// messages one after another before they leave (p x messages of the bucket over every server), and handles the
// pulls' messages one at a time as they arrive; a server's receive cost is part of its apply, and sending pulls
// is a job in its queue (p x messages x the clients it sends to). Synchronous, N clients, one bucket, k servers
// holding m messages each: a round pays 2 k m p at each client and 2 N m p at each server.
//
//   synchronous (bulk-synchronous, with a barrier): server j waits until all live clients' bucket b of round t is
//         applied, then sends bucket b's shard to every client (the pull); a client's round ends when all B x k
//         pulls arrived. One server, N clients, one bucket of S bytes, links of bandwidth B, apply time a,
//         compute C:
//           round = C + 2 alpha + 2 N S / (k B) + N a       (its link carries N S / k in, then N S / k out)
//         (p = 0, even shards).
//   asynchronous (no barrier): each server applies each client's buckets as they come; once all of a client's
//         buckets are applied at server j, j sends its part of the model (shards.model[j]) back; the client starts its
//         next iteration when the k pulls arrived (plus after_pull). The run ends when clients x iterations
//         updates are done; fast clients do more of them than slow ones.
//   staleness bound (ssp): asynchronous, but a client may not start update number t while some live client has
//         completed fewer than t - bound updates; it waits (reported as straggler wait).
//
// Staleness (asynchronous): server 0 counts complete client updates (its version). A client reads the version
// its pull carries; when its next update is complete at server 0, staleness = versions applied in between
// (0 when nobody else updated meanwhile, as in synchronous SGD).
//
// Failures (asynchronous only): a client that fails at time t stops; its unfinished update is dropped (pushes
// still in flight are not applied) and counted as lost work; the others go on.
//
// The engine contract (docs/architecture.md): a setup in the engine's own words, an observer that sees what the
// engine does as it does it (the trace is one: sim/run/src/ps_trace.hpp), and a result.
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/strong_id.hpp"
#include "syncsim/network/flow_model.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/training/tensor_partition.hpp"

namespace syncsim {

// Whether the servers hold a barrier per round (bulk-synchronous SGD) or apply updates as they come.
enum class ParameterServerMode { synchronous, asynchronous };

// One client iteration's compute, as offsets from the iteration's start.
struct ClientWork {
  SimTime forward_end;
  SimTime compute_end;                // the client's own compute is over
  std::vector<SimTime> bucket_ready;  // per bucket, non-decreasing (overlap: during backward; else compute_end)
  SimTime busy;                       // compute time to report (forward + backward)
};

struct ParameterServerSetup {
  // The network with the servers in it (server_placement.hpp) and its routes; not owned, used for the run only.
  Router* network = nullptr;
  std::uint64_t seed = 0;
  ParameterServerMode mode = ParameterServerMode::synchronous;
  std::optional<std::int64_t> staleness_bound;  // asynchronous only
  std::vector<NodeId> clients;                  // where each client pushes from and pulls to
  std::vector<NodeId> servers;
  ShardPlan shards;     // per bucket (push order) and server; per server its part of the model (async pulls)
  SimTime per_message;  // software cost of one message at each end
  std::function<ClientWork(std::size_t client, std::int64_t iteration)> work;
  std::function<SimTime(double bytes)> apply_time;  // server cost of one bucket shard
  // When set, the server cost of a shard of `bucket` instead (buckets that hold different things: a recommendation
  // model's dense gradients and its embedding rows, sparse_exchange.hpp).
  std::function<SimTime(std::size_t bucket, double bytes)> bucket_apply_time;
  SimTime after_pull;                                     // paid by the client after its pulls (hybrid: broadcast)
  std::int64_t iterations = 1;                            // synchronous: rounds; else updates per client on average
  std::vector<std::pair<std::size_t, SimTime>> failures;  // asynchronous: (client, time)
  // Called after each completed round (synchronous) or client iteration (asynchronous) with the count so far and
  // the count the run will complete; it may throw to abandon the run.
  std::function<void(std::int64_t done, std::int64_t total)> on_progress;
};

// What the engine does, as it does it (for the trace). Every call names the client's iteration, so an observer
// can keep the first few only.
class ParameterServerObserver {
 public:
  virtual ~ParameterServerObserver() = default;
  // The client starts `iteration` at `start` and computes `work` (offsets from `start`).
  virtual void on_iteration_start(std::size_t client, std::int64_t iteration, SimTime start,
                                  const ClientWork& work) = 0;
  // Staleness bound: the client waited for slower clients from `start` to `end` before starting `iteration`.
  virtual void on_bound_wait(std::size_t client, std::int64_t iteration, SimTime start, SimTime end) = 0;
  // A bucket's push, from the moment it left the client to the arrival of its last shard.
  virtual void on_push(std::size_t client, std::int64_t iteration, std::size_t bucket, SimTime start, SimTime end) = 0;
  // The iteration's pulls, from the first one sent to the last one's arrival.
  virtual void on_pull(std::size_t client, std::int64_t iteration, SimTime start, SimTime end) = 0;
  // The client's after_pull time (hybrid: the broadcast inside its group).
  virtual void on_after_pull(std::size_t client, std::int64_t iteration, SimTime start, SimTime end) = 0;
  // Server `server` applied the client's shard of `bucket`.
  virtual void on_apply(std::size_t server, std::size_t client, std::size_t bucket, std::int64_t iteration,
                        SimTime start, SimTime end) = 0;
  // Whether the observer wants the link loads now; asked whenever flows start or end. The engine schedules
  // nothing extra while the answer is no.
  virtual bool wants_link_loads() const { return false; }
  // At the end of an instant in which flows started or ended, once the flow model has settled their rates.
  virtual void on_link_loads(SimTime /*at*/, const FlowModel& /*flows*/) {}
};

struct ClientStats {
  std::int64_t updates = 0;  // iterations completed
  SimTime compute;           // busy computing
  SimTime straggler_wait;    // waiting for slower clients (barrier, staleness bound, the end of the run)
  SimTime end;               // its last iteration's end
  std::optional<SimTime> failed_at;
  SimTime lost_work;  // compute and communication of the update dropped at the failure
};

// An update as server 0 applied it (asynchronous): the convergence proxy replays these in order.
struct AppliedUpdate {
  SimTime at;
  std::size_t client = 0;
  std::int64_t read_version = 0;  // server 0's version the client's parameters carried
};

struct ParameterServerResult {
  SimTime total;
  std::vector<SimTime> iteration_times;  // synchronous: per round; else per client iteration, by completion
  std::vector<ClientStats> clients;
  // asynchronous: every complete update at server 0, in order; the k-th one's staleness is k - read_version.
  std::vector<AppliedUpdate> applied;
  std::uint64_t flows = 0;
  std::vector<LinkUsage> link_usage;  // per directed link of the network, by LinkId
};

// Throws InputError for no network, an empty client or server list, no buckets, shards not one per server, a
// bucket on no server, or a non-positive iteration count.
// The observer (not owned; may be null) sees every push, pull and apply as it happens.
ParameterServerResult run_parameter_server_engine(const ParameterServerSetup& setup,
                                                  ParameterServerObserver* observer = nullptr);

}  // namespace syncsim
