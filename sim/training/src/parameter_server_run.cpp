#include "syncsim/training/parameter_server_run.hpp"

#include <algorithm>
#include <deque>
#include <map>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/simulator.hpp"

namespace syncsim {

namespace {

// Event payloads: kind in the top byte, client in the next 24 bits, a bucket or server in the low 32.
enum class EventKind : std::uint64_t {
  bucket_ready = 1,
  compute_end,
  apply_done,
  resume,
  failure,
  local_arrival,
  sample_links
};

std::uint64_t payload(EventKind kind, std::size_t client, std::uint64_t low = 0) {
  return (static_cast<std::uint64_t>(kind) << 56) | (static_cast<std::uint64_t>(client) << 32) | low;
}

struct Transfer {
  bool push = true;
  std::size_t client = 0;
  std::size_t server = 0;
  std::size_t bucket = 0;  // pushes and sync pulls
  std::int64_t round = 0;  // the client's iteration
};

struct PendingApply {
  std::size_t client;
  std::size_t bucket;
  std::int64_t round;
  double bytes;
};

struct ClientState {
  std::int64_t iteration = -1;  // current (started) iteration
  SimTime started;
  ClientWork work;
  std::deque<std::size_t> to_push;
  bool pushing = false;
  std::size_t push_arrivals = 0;  // shards of the bucket being pushed that arrived
  std::size_t pulls_pending = 0;
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

class ParameterServerEngine final : public EventHandler, public FlowObserver {
 public:
  ParameterServerEngine(const ParameterServerSetup& setup, ParameterServerObserver* observer)
      : sim_(setup.seed), flows_(sim_, setup.network->topology()), router_(*setup.network), s_(setup), obs_(observer) {
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
    st.pulls_pending =
        s_.mode == ParameterServerMode::synchronous ? s_.bucket_bytes.size() * servers_.size() : servers_.size();
    st.work = s_.work(c, next);
    SYNCSIM_INVARIANT(st.work.bucket_ready.size() == s_.bucket_bytes.size(), "client work without every bucket");
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
    const double shard = s_.bucket_bytes[bucket] / static_cast<double>(servers_.size());
    for (std::size_t j = 0; j < servers_.size(); ++j) {
      start_transfer({true, c, j, bucket, st.iteration}, s_.clients[c], s_.servers[j], shard);
    }
    push_start_[c] = sim_.now();
  }

  void push_arrived(const Transfer& t) {
    ClientState& st = clients_[t.client];
    if (!st.alive || t.round != st.iteration) return;  // dropped with its failed client
    enqueue_apply(t.server, {t.client, t.bucket, t.round, s_.bucket_bytes[t.bucket] / double(servers_.size())});
    if (++st.push_arrivals < servers_.size()) return;
    if (obs_) obs_->on_push(t.client, t.round, t.bucket, push_start_[t.client], sim_.now());
    st.pushing = false;
    push_next(t.client);
  }

  void pull_arrived(const Transfer& t) {
    ClientState& st = clients_[t.client];
    if (!st.alive || t.round != st.iteration) return;
    SYNCSIM_INVARIANT(st.pulls_pending > 0, "a pull arrived that its client did not expect");
    if (--st.pulls_pending > 0) return;
    if (obs_) obs_->on_pull(t.client, t.round, pull_start_[t.client], sim_.now());
    if (s_.after_pull > SimTime::zero()) {
      if (obs_) obs_->on_after_pull(t.client, t.round, sim_.now(), sim_.now() + s_.after_pull);
      sim_.schedule_in(s_.after_pull, *this, payload(EventKind::resume, t.client));
    } else {
      iteration_done(t.client);
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
      if (st.landed == servers_.size()) {
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
    if (server.queue.empty()) return;
    server.busy = true;
    server.current = server.queue.front();
    server.queue.pop_front();
    server.current_start = sim_.now();
    sim_.schedule_in(s_.apply_time(server.current.bytes), *this, payload(EventKind::apply_done, 0, j));
  }

  void apply_done(std::size_t j) {
    ServerState& server = servers_[j];
    const PendingApply done = server.current;
    server.busy = false;
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
    const double shard = s_.bucket_bytes[done.bucket] / static_cast<double>(servers_.size());
    for (std::size_t c = 0; c < clients_.size(); ++c) {
      if (!clients_[c].alive) continue;
      note_pull_start(c);
      start_transfer({false, c, j, done.bucket, done.round}, s_.servers[j], s_.clients[c], shard);
    }
  }

  void async_applied(std::size_t j, const PendingApply& done) {
    std::size_t& buckets = servers_[j].buckets_applied[done.client];
    if (++buckets < s_.bucket_bytes.size()) return;
    buckets = 0;
    ClientState& st = clients_[done.client];
    ++st.landed;
    if (j == 0) {
      result_.applied.push_back({sim_.now(), done.client, st.read_version});
      st.read_version = static_cast<std::int64_t>(result_.applied.size());  // server 0's version, this update in
    }
    note_pull_start(done.client);
    const double shard = s_.model_bytes / static_cast<double>(servers_.size());
    start_transfer({false, done.client, j, 0, done.round}, s_.servers[j], s_.clients[done.client], shard);
  }

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
  if (setup.bucket_bytes.empty()) throw InputError("parameter servers: no gradient buckets");
  if (setup.iterations < 1) throw InputError("parameter servers: iterations must be at least 1");
  if (setup.clients.size() >= (std::size_t{1} << 24)) throw InputError("parameter servers: too many clients");
  ParameterServerEngine engine(setup, observer);
  return engine.run();
}

}  // namespace syncsim
