#pragma once
// The parameter-server engine's state (parameter_server_run.cpp): its event payloads, the transfers on the wire,
// the jobs in a server's queue, and what each client and server is doing.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/training/parameter_server_run.hpp"

namespace syncsim::ps_detail {

// Event payloads: kind in the top byte, client in the next 24 bits, a bucket or server in the low 32.
enum class EventKind : std::uint64_t {
  bucket_ready = 1,
  compute_end,
  apply_done,
  resume,
  failure,
  local_arrival,
  sample_links,
  push_send,      // a bucket's messages are sent: its shards leave
  pulls_received  // the client has handled every pull message of its iteration
};

inline std::uint64_t payload(EventKind kind, std::size_t client, std::uint64_t low = 0) {
  return (static_cast<std::uint64_t>(kind) << 56) | (static_cast<std::uint64_t>(client) << 32) | low;
}

struct Transfer {
  bool push = true;
  std::size_t client = 0;
  std::size_t server = 0;
  std::size_t bucket = 0;  // pushes and sync pulls
  std::int64_t round = 0;  // the client's iteration
};

// A job in a server's queue: applying a pushed shard (and receiving its messages), or sending pulls' messages.
enum class ServerJob { apply, send_round, send_update };

struct PendingApply {
  std::size_t client;
  std::size_t bucket;
  std::int64_t round;
  double bytes;
  std::int64_t messages = 0;
  ServerJob job = ServerJob::apply;
};

struct ClientState {
  std::int64_t iteration = -1;  // current (started) iteration
  SimTime started;
  ClientWork work;
  std::deque<std::size_t> to_push;
  bool pushing = false;
  std::size_t push_arrivals = 0;  // shards of the bucket being pushed that arrived
  std::size_t pulls_pending = 0;
  SimTime receive_free;       // when the client is done handling the pull messages so far
  bool pull_started = false;  // the first pull of this iteration was sent (for on_pull)
  std::size_t landed = 0;     // async: servers that applied this iteration's whole update
  bool blocked = false;       // ssp: waiting for slower clients
  SimTime blocked_since;
  bool alive = true;
  bool done = false;
  std::int64_t read_version = 0;  // async: server 0's version its parameters carry
};

struct ServerState {
  std::deque<PendingApply> queue;
  bool busy = false;
  PendingApply current{};
  SimTime current_start;
  std::map<std::pair<std::int64_t, std::size_t>, std::size_t> applied;  // sync: (round, bucket) -> clients
  std::map<std::size_t, std::size_t> buckets_applied;                   // async: client -> buckets
};

// Who holds what in a shard plan: per bucket the servers its push goes to and the messages it is, per server the
// buckets it holds part of.
struct ShardCounts {
  std::vector<std::size_t> push_targets;      // per bucket: servers holding part of it
  std::vector<std::int64_t> bucket_messages;  // per bucket: its messages over every server
  std::vector<std::size_t> buckets_on;        // per server: buckets it holds part of
  std::size_t shards = 0;                     // (bucket, server) shards that exist: a sync round's pulls
  std::size_t holding_servers = 0;            // servers holding anything: an async update's pulls

  explicit ShardCounts(const ShardPlan& plan) : buckets_on(plan.model.size(), 0) {
    for (const std::vector<ServerShard>& bucket : plan.buckets) {
      std::size_t targets = 0;
      std::int64_t messages = 0;
      for (std::size_t j = 0; j < bucket.size() && j < buckets_on.size(); ++j) {
        if (bucket[j].messages == 0) continue;
        ++targets;
        messages += bucket[j].messages;
        ++buckets_on[j];
      }
      push_targets.push_back(targets);
      bucket_messages.push_back(messages);
      shards += targets;
    }
    for (const std::size_t held : buckets_on) holding_servers += held > 0 ? 1 : 0;
  }
};

}  // namespace syncsim::ps_detail
