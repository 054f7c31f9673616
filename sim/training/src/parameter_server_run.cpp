#include "syncsim/training/parameter_server_run.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "parameter_server_state.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/simulator.hpp"

namespace syncsim {

namespace {

using namespace ps_detail;  // the engine's state (parameter_server_state.hpp)

class ParameterServerEngine final : public EventHandler, public FlowObserver {
 public:
  ParameterServerEngine(const ParameterServerSetup& setup, ParameterServerObserver* observer)
      : sim_(setup.seed),
        flows_(sim_, setup.network->topology()),
        router_(*setup.network),
        s_(setup),
        obs_(observer),
        held_(setup.shards) {
    clients_.resize(s_.clients.size());
    servers_.resize(s_.servers.size());
    completed_.assign(clients_.size(), 0);
    push_start_.assign(clients_.size(), SimTime::zero());
    pull_start_.assign(clients_.size(), SimTime::zero());
    result_.clients.resize(s_.clients.size());
  }

  ParameterServerResult run() {
    const std::size_t n = clients_.size();
    target_updates_ = s_.mode == ParameterServerMode::asynchronous ? static_cast<std::int64_t>(n) * s_.iterations : 0;
    for (const auto& [client, at] : s_.failures) sim_.schedule_at(at, *this, payload(EventKind::failure, client));
    for (std::size_t c = 0; c < n; ++c) start_iteration(c);
    sim_.run();
    for (std::size_t c = 0; c < n; ++c) {
      SYNCSIM_INVARIANT(clients_[c].done || !clients_[c].alive, "a parameter-server client never finished");
      result_.total = std::max(result_.total, result_.clients[c].end);
    }
    for (std::size_t c = 0; c < n; ++c) {
      ClientStats& stats = result_.clients[c];
      const SimTime stop = stats.failed_at.value_or(stats.end);
      if (!stats.failed_at) stats.straggler_wait += result_.total - stop;  // waiting for the run to end
    }
    const Topology& topology = router_.topology();
    for (std::size_t i = 0; i < topology.link_count(); ++i) {
      result_.link_usage.push_back(flows_.link_usage(LinkId{static_cast<std::uint32_t>(i)}));
    }
    return std::move(result_);
  }

  void on_event(Simulator&, std::uint64_t p) override {
    const auto kind = static_cast<EventKind>(p >> 56);
    const auto client = static_cast<std::size_t>((p >> 32) & 0xFFFFFF);
    const auto low = static_cast<std::size_t>(p & 0xFFFFFFFF);
    switch (kind) {
      case EventKind::bucket_ready:
        if (clients_[client].alive) queue_push(client, low);
        break;
      case EventKind::compute_end:
        if (clients_[client].alive) compute_ended(client);
        break;
      case EventKind::apply_done:
        apply_done(low);
        break;
      case EventKind::resume:
        if (clients_[client].alive) iteration_done(client);
        break;
      case EventKind::failure:
        fail(client);
        break;
      case EventKind::local_arrival:
        on_flow_finished(FlowId{}, low);
        break;
      case EventKind::sample_links:
        sample_links();
        break;
      case EventKind::push_send:
        if (clients_[client].alive) send_push(client, low);
        break;
      case EventKind::pulls_received:
        if (clients_[client].alive) pulls_received(client);
        break;
    }
  }

  void on_flow_finished(FlowId, std::uint64_t token) override {
    schedule_sample();
    const Transfer t = transfers_[token];
    free_.push_back(token);
    if (t.push) {
      push_arrived(t);
    } else {
      pull_arrived(t);
    }
  }

 private:
  // ---- clients ----

  void start_iteration(std::size_t c) {
    ClientState& st = clients_[c];
    if (!st.alive || st.done) return;
    const std::int64_t next = st.iteration + 1;
    if (s_.mode == ParameterServerMode::synchronous ? next >= s_.iterations : started_updates_ >= target_updates_) {
      if (st.blocked) result_.clients[c].straggler_wait += sim_.now() - st.blocked_since;
      st.blocked = false;
      st.done = true;
      result_.clients[c].end = sim_.now();
      wake_blocked();
      return;
    }
    if (s_.staleness_bound && next - slowest_completed() > *s_.staleness_bound) {
      if (!st.blocked) {
        st.blocked = true;
        st.blocked_since = sim_.now();
      }
      return;
    }
    if (st.blocked) {
      result_.clients[c].straggler_wait += sim_.now() - st.blocked_since;
      if (obs_) obs_->on_bound_wait(c, next, st.blocked_since, sim_.now());
      st.blocked = false;
    }
    st.iteration = next;
    ++started_updates_;
    st.started = sim_.now();
    st.pull_started = false;
    st.landed = 0;
    // Sync: every server sends every bucket's shard once the round is applied; async: each server its shard.
    st.pulls_pending = s_.mode == ParameterServerMode::synchronous ? held_.shards : held_.holding_servers;
    st.work = s_.work(c, next);
    SYNCSIM_INVARIANT(st.work.bucket_ready.size() == s_.shards.buckets.size(), "client work without every bucket");
    result_.clients[c].compute += st.work.busy;
    if (obs_) obs_->on_iteration_start(c, next, st.started, st.work);
    for (std::size_t b = 0; b < st.work.bucket_ready.size(); ++b) {
      sim_.schedule_at(st.started + st.work.bucket_ready[b], *this, payload(EventKind::bucket_ready, c, b));
    }
    sim_.schedule_at(st.started + st.work.compute_end, *this, payload(EventKind::compute_end, c));
  }

  void compute_ended(std::size_t c) {
    if (s_.mode != ParameterServerMode::synchronous) return;
    // The barrier: a client waits for the slowest one's compute before the round can end.
    round_compute_end_[c] = sim_.now();
    if (++round_compute_count_ < live_clients()) return;
    SimTime last;
    for (const auto& [client, t] : round_compute_end_) last = std::max(last, t);
    for (const auto& [client, t] : round_compute_end_) result_.clients[client].straggler_wait += last - t;
    round_compute_end_.clear();
    round_compute_count_ = 0;
  }

  void queue_push(std::size_t c, std::size_t bucket) {
    clients_[c].to_push.push_back(bucket);
    if (!clients_[c].pushing) push_next(c);
  }

  void push_next(std::size_t c) {
    ClientState& st = clients_[c];
    if (st.to_push.empty()) return;
    const std::size_t bucket = st.to_push.front();
    st.to_push.pop_front();
    st.pushing = true;
    st.push_arrivals = 0;
    push_start_[c] = sim_.now();
    const SimTime sending = message_cost(held_.bucket_messages[bucket]);
    if (sending > SimTime::zero()) {
      sim_.schedule_in(sending, *this, payload(EventKind::push_send, c, bucket));
    } else {
      send_push(c, bucket);
    }
  }

  // The bucket's shards leave for the servers that hold part of it.
  void send_push(std::size_t c, std::size_t bucket) {
    for (std::size_t j = 0; j < servers_.size(); ++j) {
      const ServerShard& shard = s_.shards.buckets[bucket][j];
      if (shard.messages == 0) continue;
      start_transfer({true, c, j, bucket, clients_[c].iteration}, s_.clients[c], s_.servers[j], shard.bytes);
    }
  }

  void push_arrived(const Transfer& t) {
    ClientState& st = clients_[t.client];
    if (!st.alive || t.round != st.iteration) return;  // dropped with its failed client
    const ServerShard& shard = s_.shards.buckets[t.bucket][t.server];
    enqueue_apply(t.server, {t.client, t.bucket, t.round, shard.bytes, shard.messages});
    if (++st.push_arrivals < held_.push_targets[t.bucket]) return;
    if (obs_) obs_->on_push(t.client, t.round, t.bucket, push_start_[t.client], sim_.now());
    st.pushing = false;
    push_next(t.client);
  }

  void pull_arrived(const Transfer& t) {
    ClientState& st = clients_[t.client];
    if (!st.alive || t.round != st.iteration) return;
    SYNCSIM_INVARIANT(st.pulls_pending > 0, "a pull arrived that its client did not expect");
    const std::int64_t messages = s_.mode == ParameterServerMode::synchronous
                                      ? s_.shards.buckets[t.bucket][t.server].messages
                                      : s_.shards.model[t.server].messages;
    if (s_.per_message > SimTime::zero())
      st.receive_free = std::max(st.receive_free, sim_.now()) + message_cost(messages);
    if (--st.pulls_pending > 0) return;
    if (st.receive_free > sim_.now()) {
      sim_.schedule_at(st.receive_free, *this, payload(EventKind::pulls_received, t.client));
    } else {
      pulls_received(t.client);
    }
  }

  void pulls_received(std::size_t c) {
    const std::int64_t round = clients_[c].iteration;
    if (obs_) obs_->on_pull(c, round, pull_start_[c], sim_.now());
    if (s_.after_pull > SimTime::zero()) {
      if (obs_) obs_->on_after_pull(c, round, sim_.now(), sim_.now() + s_.after_pull);
      sim_.schedule_in(s_.after_pull, *this, payload(EventKind::resume, c));
    } else {
      iteration_done(c);
    }
  }

  void iteration_done(std::size_t c) {
    ClientState& st = clients_[c];
    ClientStats& stats = result_.clients[c];
    ++stats.updates;
    stats.end = sim_.now();
    if (s_.mode == ParameterServerMode::asynchronous) {
      result_.iteration_times.push_back(sim_.now() - st.started);
      if (s_.on_progress) {
        s_.on_progress(static_cast<std::int64_t>(result_.iteration_times.size()),
                       s_.iterations * static_cast<std::int64_t>(clients_.size()));
      }
    }
    if (s_.mode == ParameterServerMode::synchronous && ++round_done_count_ == live_clients()) {
      round_done_count_ = 0;
      result_.iteration_times.push_back(sim_.now() - previous_round_end_);
      if (s_.on_progress) s_.on_progress(static_cast<std::int64_t>(result_.iteration_times.size()), s_.iterations);
      previous_round_end_ = sim_.now();
    }
    ++completed_[c];
    start_iteration(c);
    wake_blocked();
  }

  void fail(std::size_t c) {
    ClientState& st = clients_[c];
    if (!st.alive || st.done) return;
    st.alive = false;
    ClientStats& stats = result_.clients[c];
    stats.failed_at = sim_.now();
    stats.end = sim_.now();
    if (s_.mode == ParameterServerMode::asynchronous && !st.blocked && st.iteration >= 0) {
      if (st.landed == held_.holding_servers) {
        ++stats.updates;  // its update reached the model; only the pull back is lost
      } else {
        stats.lost_work = sim_.now() - st.started;
        --started_updates_;  // someone else will do this update
      }
    }
    wake_blocked();
    // Idle clients (all the others done) may now be able to take the dropped update.
    for (std::size_t other = 0; other < clients_.size(); ++other) {
      if (clients_[other].done && clients_[other].alive && started_updates_ < target_updates_) {
        clients_[other].done = false;
        start_iteration(other);
      }
    }
  }

  std::int64_t slowest_completed() const {
    std::int64_t slowest = -1;
    for (std::size_t c = 0; c < clients_.size(); ++c) {
      if (!clients_[c].alive || clients_[c].done) continue;
      slowest = slowest < 0 ? completed_.at(c) : std::min(slowest, completed_.at(c));
    }
    return std::max<std::int64_t>(slowest, 0);
  }

  void wake_blocked() {
    for (std::size_t c = 0; c < clients_.size(); ++c) {
      if (clients_[c].blocked && clients_[c].alive) start_iteration(c);
    }
  }

  std::size_t live_clients() const {
    std::size_t live = 0;
    for (const ClientState& st : clients_) live += st.alive ? 1 : 0;
    return live;
  }

  // ---- servers ----

  void enqueue_apply(std::size_t j, PendingApply apply) {
    ServerState& server = servers_[j];
    server.queue.push_back(apply);
    if (!server.busy) apply_next(j);
  }

  void apply_next(std::size_t j) {
    ServerState& server = servers_[j];
    if (server.busy || server.queue.empty()) return;
    server.busy = true;
    server.current = server.queue.front();
    server.queue.pop_front();
    server.current_start = sim_.now();
    const PendingApply& job = server.current;
    SimTime apply;
    if (job.job == ServerJob::apply) {
      apply = s_.bucket_apply_time ? s_.bucket_apply_time(job.bucket, job.bytes) : s_.apply_time(job.bytes);
    }
    sim_.schedule_in(apply + message_cost(job.messages), *this, payload(EventKind::apply_done, 0, j));
  }

  void apply_done(std::size_t j) {
    ServerState& server = servers_[j];
    const PendingApply done = server.current;
    server.busy = false;
    if (done.job != ServerJob::apply) {
      send_pulls(j, done);
      apply_next(j);
      return;
    }
    if (obs_) obs_->on_apply(j, done.client, done.bucket, done.round, server.current_start, sim_.now());
    if (clients_[done.client].alive) {
      if (s_.mode == ParameterServerMode::synchronous) {
        sync_applied(j, done);
      } else {
        async_applied(j, done);
      }
    }
    apply_next(j);
  }

  void sync_applied(std::size_t j, const PendingApply& done) {
    std::size_t& count = servers_[j].applied[{done.round, done.bucket}];
    if (++count < live_clients()) return;
    servers_[j].applied.erase({done.round, done.bucket});
    PendingApply send{done.client, done.bucket, done.round, 0, 0, ServerJob::send_round};
    send.messages = s_.shards.buckets[done.bucket][j].messages * static_cast<std::int64_t>(live_clients());
    send_after_messages(j, send);
  }

  // Pulls leave once the server has sent their messages: at once when messages cost nothing, else after a job in
  // its queue.
  void send_after_messages(std::size_t j, const PendingApply& send) {
    if (s_.per_message > SimTime::zero()) {
      enqueue_apply(j, send);
    } else {
      send_pulls(j, send);
    }
  }

  void send_pulls(std::size_t j, const PendingApply& send) {
    if (send.job == ServerJob::send_update) {
      if (!clients_[send.client].alive) return;
      note_pull_start(send.client);
      start_transfer({false, send.client, j, 0, send.round}, s_.servers[j], s_.clients[send.client],
                     s_.shards.model[j].bytes);
      return;
    }
    for (std::size_t c = 0; c < clients_.size(); ++c) {
      if (!clients_[c].alive) continue;
      note_pull_start(c);
      start_transfer({false, c, j, send.bucket, send.round}, s_.servers[j], s_.clients[c],
                     s_.shards.buckets[send.bucket][j].bytes);
    }
  }

  void async_applied(std::size_t j, const PendingApply& done) {
    std::size_t& buckets = servers_[j].buckets_applied[done.client];
    if (++buckets < held_.buckets_on[j]) return;
    buckets = 0;
    ClientState& st = clients_[done.client];
    ++st.landed;
    if (j == 0) {
      result_.applied.push_back({sim_.now(), done.client, st.read_version});
      st.read_version = static_cast<std::int64_t>(result_.applied.size());  // server 0's version, this update in
    }
    send_after_messages(j, {done.client, 0, done.round, 0, s_.shards.model[j].messages, ServerJob::send_update});
  }

  // ---- shards and messages ----

  SimTime message_cost(std::int64_t messages) const { return s_.per_message * messages; }

  // ---- network ----

  void note_pull_start(std::size_t c) {
    if (clients_[c].pull_started) return;
    clients_[c].pull_started = true;
    pull_start_[c] = sim_.now();
  }

  void start_transfer(Transfer t, NodeId from, NodeId to, double bytes) {
    std::uint64_t token;
    if (free_.empty()) {
      token = transfers_.size();
      transfers_.push_back(t);
    } else {
      token = free_.back();
      free_.pop_back();
      transfers_[token] = t;
    }
    if (from == to) {  // a colocated server's own shard: no network, it is there at once
      sim_.schedule_in(SimTime::zero(), *this, payload(EventKind::local_arrival, 0, token));
      return;
    }
    ++result_.flows;
    flows_.start(router_.route(from, to), bytes, *this, token);
    schedule_sample();
  }

  // Rates change only when a flow starts or ends, and the flow model settles them at the end of the instant
  // (EventPriority::last, scheduled before this sample), so one sample per such instant sees every change.
  void schedule_sample() {
    if (sample_pending_ || obs_ == nullptr || !obs_->wants_link_loads()) return;
    sample_pending_ = true;
    sim_.schedule_at(sim_.now(), *this, payload(EventKind::sample_links, 0), EventPriority::last);
  }

  void sample_links() {
    sample_pending_ = false;
    obs_->on_link_loads(sim_.now(), flows_);
  }

  Simulator sim_;
  FlowModel flows_;
  Router& router_;
  const ParameterServerSetup& s_;
  ParameterServerObserver* obs_;  // may be null
  ParameterServerResult result_;

  std::vector<ClientState> clients_;
  std::vector<ServerState> servers_;
  std::vector<Transfer> transfers_;
  std::vector<std::uint64_t> free_;
  std::vector<std::int64_t> completed_;  // per client: updates completed
  std::vector<SimTime> push_start_;      // per client: the bucket push under way began
  std::vector<SimTime> pull_start_;      // per client: its first pull of this iteration was sent

  const ShardCounts held_;  // who holds what

  std::int64_t started_updates_ = 0;
  std::int64_t target_updates_ = 0;

  std::map<std::size_t, SimTime> round_compute_end_;  // sync: this round's compute ends so far
  std::size_t round_compute_count_ = 0;
  std::size_t round_done_count_ = 0;
  SimTime previous_round_end_;

  bool sample_pending_ = false;
};

}  // namespace

ParameterServerResult run_parameter_server_engine(const ParameterServerSetup& setup,
                                                  ParameterServerObserver* observer) {
  if (setup.network == nullptr) throw InputError("parameter servers: no network");
  if (setup.clients.empty()) throw InputError("parameter servers: no clients");
  if (setup.servers.empty()) throw InputError("parameter servers: no servers");
  if (setup.shards.buckets.empty()) throw InputError("parameter servers: no gradient buckets");
  const std::size_t k = setup.servers.size();
  if (setup.shards.model.size() != k) throw InputError("parameter servers: the model's shards are not one per server");
  for (std::size_t b = 0; b < setup.shards.buckets.size(); ++b) {
    const std::vector<ServerShard>& bucket = setup.shards.buckets[b];
    if (bucket.size() != k)
      throw InputError(fmt::format("parameter servers: bucket {}'s shards are not one per server", b));
    if (std::none_of(bucket.begin(), bucket.end(), [](const ServerShard& shard) { return shard.messages > 0; })) {
      throw InputError(fmt::format("parameter servers: bucket {} is on no server", b));
    }
  }
  if (setup.per_message < SimTime::zero()) throw InputError("parameter servers: a negative cost per message");
  if (setup.iterations < 1) throw InputError("parameter servers: iterations must be at least 1");
  if (setup.clients.size() >= (std::size_t{1} << 24)) throw InputError("parameter servers: too many clients");
  ParameterServerEngine engine(setup, observer);
  return engine.run();
}

}  // namespace syncsim
