#pragma once
// PsEngine: clients (workers, or whole worker groups under `hybrid`) exchanging gradients with k parameter
// servers over the flow model, so that every push and pull shares the network max-min fairly and incast at a
// server's link shows in the times.
//
// Parameters are sharded evenly: every gradient bucket is split in k equal parts, part j going to server j.
//
//   client c, iteration t                        server j
//   ---------------------                        --------
//   compute; bucket b ready at work(c,t)[b]  -->  push of bytes_b / k arrives: queued (FIFO per server)
//   one push stream per client: bucket b+1's      apply: apply_time(bytes_b / k), one update at a time
//   push starts when bucket b's has arrived
//
//   sync  (bulk-synchronous): server j waits until all live clients' bucket b of round t is applied, then sends
//         bucket b's shard to every client (the pull); a client's round ends when all B x k pulls arrived.
//         One server, N clients, one bucket of S bytes, links of bandwidth B, apply time a, compute C:
//           round = C + 2 alpha + 2 N S / (k B) + N a       (its link carries N S / k in, then N S / k out)
//   async: each server applies each client's buckets as they come; once all of a client's buckets are applied
//         at server j, j sends its whole shard (model_bytes / k) back; the client starts its next iteration
//         when the k pulls arrived (plus after_pull). No barrier. The run ends when clients x iterations
//         updates are done; fast clients do more of them than slow ones.
//   ssp:  async, but a client may not start update number t while some live client has completed fewer than
//         t - bound updates; it waits (reported as straggler wait).
//
// Staleness (async and ssp): server 0 counts complete client updates (its version). A client reads the version
// its pull carries; when its next update is complete at server 0, staleness = versions applied in between
// (0 when nobody else updated meanwhile, as in synchronous SGD).
//
// Failures (async and ssp, policy `continue`): a client that fails at time t stops; its unfinished update is
// dropped (pushes still in flight are not applied) and counted as lost work; the others go on.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/simulator.hpp"
#include "syncsim/core/strong_id.hpp"
#include "syncsim/network/flow_model.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/trace/trace.hpp"

namespace syncsim::run {

enum class PsMode { sync, async };

// One client iteration's compute, as offsets from the iteration's start.
struct ClientWork {
  SimTime forward_end;
  SimTime compute_end;                // the client's own compute is over
  std::vector<SimTime> bucket_ready;  // per bucket, non-decreasing (overlap: during backward; else compute_end)
  SimTime busy;                       // compute time to report (forward + backward)
};

struct PsSetup {
  PsMode mode = PsMode::sync;
  std::optional<std::int64_t> staleness_bound;  // async only: ssp
  std::vector<NodeId> clients;                  // where each client pushes from and pulls to
  std::vector<NodeId> servers;
  std::vector<double> bucket_bytes;  // gradient bytes per bucket, in push order
  double model_bytes = 0;            // an async pull brings back model_bytes / k from each server
  std::function<ClientWork(std::size_t client, std::int64_t iteration)> work;
  std::function<SimTime(double bytes)> apply_time;        // server cost of one bucket shard
  SimTime after_pull;                                     // paid by the client after its pulls (hybrid: broadcast)
  std::int64_t iterations = 1;                            // sync: rounds; async: updates per client on average
  std::vector<std::pair<std::size_t, SimTime>> failures;  // async: (client, time)
  trace::TraceBuilder* trace = nullptr;                   // optional
  std::int64_t traced_iterations = 0;                     // per client, the first ones
  std::vector<std::string> client_names;                  // trace track names
  // Links whose utilization (load / bandwidth) the trace records as counters, while traced iterations run.
  std::vector<LinkId> utilization_links;
  // Called after each completed round (sync) or client iteration (async) with the count so far and the count
  // the run will complete; it may throw to abandon the run.
  std::function<void(std::int64_t done, std::int64_t total)> on_progress;
};

struct ClientStats {
  std::int64_t updates = 0;  // iterations completed
  SimTime compute;           // busy computing
  SimTime straggler_wait;    // waiting for slower clients (sync barrier, ssp bound, the end of the run)
  SimTime end;               // its last iteration's end
  std::optional<SimTime> failed_at;
  SimTime lost_work;  // compute and communication of the update dropped at the failure
};

// An update as server 0 applied it (async and ssp): the convergence proxy replays these in order.
struct AppliedUpdate {
  SimTime at;
  std::size_t client = 0;
  std::int64_t read_version = 0;  // server 0's version the client's parameters carried
};

struct PsResult {
  SimTime total;
  std::vector<SimTime> iteration_times;  // sync: per round; async: per client iteration, by completion
  std::vector<ClientStats> clients;
  // async: every complete update at server 0, in order; the k-th one's staleness is k - read_version.
  std::vector<AppliedUpdate> applied;
  std::uint64_t flows = 0;
};

// Throws InputError for an empty client or server list, no buckets, or a non-positive iteration count.
PsResult run_parameter_servers(Simulator& sim, FlowModel& flows, Router& router, const PsSetup& setup);

}  // namespace syncsim::run
