// run_parameter_server_engine on hand-worked systems: every time below is worked out by hand first.
//
// The network: a star. One switch (no latency of its own); clients c0, c1 and servers p0 (and p1) each on a
// duplex link of 1 MB/s (1,000 bytes take 1 ms) and 1 ms latency, so every route (two links) has alpha = 2 ms
// and a flow alone on its links takes 2 ms + bytes / 1 MB/s. Flows sharing a link split it max-min fairly.
// One bucket of S = 1,000 bytes, ready when the client's compute ends; a server applies a shard in a = 1 ms.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "hand_worked_setup.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"
#include "syncsim/training/parameter_server_run.hpp"

using namespace syncsim;
using syncsim::test::ms;

namespace {

struct Star {
  Topology topology;
  std::vector<NodeId> clients;
  std::vector<NodeId> servers;

  Star(std::size_t client_count, std::size_t server_count) {
    const NodeId hub = topology.add_node({"sw", NodeKind::network_switch, SimTime::zero(), std::nullopt});
    const auto attach = [&](const std::string& name, NodeKind kind) {
      const NodeId node = topology.add_node({name, kind, SimTime::zero(), std::nullopt});
      topology.add_duplex_link(node, hub, Bandwidth{1e6}, ms(1), LinkKind::network);
      return node;
    };
    for (std::size_t c = 0; c < client_count; ++c) clients.push_back(attach(fmt::format("c{}", c), NodeKind::cpu));
    for (std::size_t j = 0; j < server_count; ++j) servers.push_back(attach(fmt::format("p{}", j), NodeKind::cpu));
  }
};

// One bucket of `bytes` made of `tensors` equal tensors, split evenly over k servers.
ShardPlan even_bucket(std::int64_t bytes, std::size_t k, std::size_t tensors = 1) {
  std::vector<std::int64_t> sizes(tensors, bytes / static_cast<std::int64_t>(tensors));
  sizes[0] += bytes % static_cast<std::int64_t>(tensors);
  std::vector<std::size_t> all(tensors);
  for (std::size_t t = 0; t < tensors; ++t) all[t] = t;
  return plan_shards(sizes, {all}, k, TensorPartition::even);
}

// Client c computes for compute[c] ms (forward the first 40%), its one bucket ready at the end.
ParameterServerSetup star_setup(Router& network, const Star& star, std::vector<std::int64_t> compute) {
  ParameterServerSetup setup;
  setup.network = &network;
  setup.clients = star.clients;
  setup.servers = star.servers;
  setup.shards = even_bucket(1000, std::max<std::size_t>(1, star.servers.size()));
  setup.work = [compute](std::size_t c, std::int64_t) {
    const SimTime end = ms(compute[c]);
    return ClientWork{end.scaled(0.4), end, {end}, end};
  };
  setup.apply_time = [](double) { return ms(1); };
  return setup;
}

struct Span {
  std::string what;
  std::size_t who = 0;  // the client; the server for "apply"
  std::int64_t iteration = 0;
  SimTime start;
  SimTime end;
  std::size_t client = 0;  // "apply": whose shard
  bool operator==(const Span&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Span& s) {
  return out << s.what << " " << s.who << " it " << s.iteration << " [" << s.start.us() / 1e3 << ", "
             << s.end.us() / 1e3 << "] ms";
}

class SpanLog final : public ParameterServerObserver {
 public:
  std::vector<Span> spans;
  void on_iteration_start(std::size_t c, std::int64_t it, SimTime start, const ClientWork& work) override {
    spans.push_back({"compute", c, it, start, start + work.compute_end});
  }
  void on_bound_wait(std::size_t c, std::int64_t it, SimTime start, SimTime end) override {
    spans.push_back({"wait", c, it, start, end});
  }
  void on_push(std::size_t c, std::int64_t it, std::size_t, SimTime start, SimTime end) override {
    spans.push_back({"push", c, it, start, end});
  }
  void on_pull(std::size_t c, std::int64_t it, SimTime start, SimTime end) override {
    spans.push_back({"pull", c, it, start, end});
  }
  void on_after_pull(std::size_t c, std::int64_t it, SimTime start, SimTime end) override {
    spans.push_back({"after pull", c, it, start, end});
  }
  void on_apply(std::size_t j, std::size_t c, std::size_t, std::int64_t it, SimTime start, SimTime end) override {
    spans.push_back({"apply", j, it, start, end, c});
  }
  // The spans of one kind, by start time, then by client (or server).
  std::vector<Span> of(const std::string& what) const {
    std::vector<Span> out;
    std::copy_if(spans.begin(), spans.end(), std::back_inserter(out), [&](const Span& s) { return s.what == what; });
    // Events of one instant come in the flow model's order; the times are the point, so by time, then by who.
    std::stable_sort(out.begin(), out.end(), [](const Span& a, const Span& b) {
      return a.start != b.start ? a.start < b.start : a.who < b.who;
    });
    return out;
  }
};

std::vector<std::int64_t> staleness(const ParameterServerResult& r) {
  std::vector<std::int64_t> out;
  for (std::size_t k = 0; k < r.applied.size(); ++k)
    out.push_back(static_cast<std::int64_t>(k) - r.applied[k].read_version);
  return out;
}

std::vector<std::size_t> update_order(const ParameterServerResult& r) {
  std::vector<std::size_t> out;
  for (const AppliedUpdate& u : r.applied) out.push_back(u.client);
  return out;
}

}  // namespace

// Synchronous, one server, two clients computing C = 10 ms. Round 0: both push at 10; the two pushes share the
// server's downlink at 0.5 MB/s each, so their last bytes leave at 12 and they arrive at 12 + 2 = 14. The server
// applies one, 14-15, then the other, 15-16, and pulls both at 16: they share its uplink, arriving at 20. Round 1
// repeats from 20. The closed form: C + 2 alpha + 2 N S / (k B) + N a = 10 + 4 + 4 + 2 = 20 ms.
TEST_CASE("parameter servers, synchronous: one server, two clients, every time by hand") {
  const Star star(2, 1);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10, 10});
  setup.iterations = 2;
  SpanLog log;
  const ParameterServerResult r = run_parameter_server_engine(setup, &log);
  CHECK(r.iteration_times == std::vector<SimTime>{ms(20), ms(20)});
  CHECK(r.total == ms(40));
  CHECK(r.flows == 8);  // per round two pushes and two pulls
  for (const ClientStats& c : r.clients) {
    CHECK(c.updates == 2);
    CHECK(c.compute == ms(20));
    CHECK(c.straggler_wait == SimTime::zero());  // equal clients wait for nobody
    CHECK(c.end == ms(40));
  }
  CHECK(r.applied.empty());  // server-side versions are counted for asynchronous training only

  // The observer saw every push, apply and pull as worked out above.
  CHECK(log.of("push") == std::vector<Span>{{"push", 0, 0, ms(10), ms(14)},
                                            {"push", 1, 0, ms(10), ms(14)},
                                            {"push", 0, 1, ms(30), ms(34)},
                                            {"push", 1, 1, ms(30), ms(34)}});
  const std::vector<Span> applies = log.of("apply");
  REQUIRE(applies.size() == 4);
  CHECK(applies[0].start == ms(14));
  CHECK(applies[0].end == ms(15));
  CHECK(applies[1].start == ms(15));
  CHECK(applies[1].end == ms(16));
  CHECK(applies[0].client != applies[1].client);  // one shard from each client, one at a time
  CHECK(log.of("pull") == std::vector<Span>{{"pull", 0, 0, ms(16), ms(20)},
                                            {"pull", 1, 0, ms(16), ms(20)},
                                            {"pull", 0, 1, ms(36), ms(40)},
                                            {"pull", 1, 1, ms(36), ms(40)}});
  CHECK(log.of("compute")[2] == Span{"compute", 0, 1, ms(20), ms(30)});
  CHECK(log.of("wait").empty());
  CHECK(log.of("after pull").empty());

  // The link usage the report's busiest links come from: the server's downlink carried both pushes, twice.
  REQUIRE(r.link_usage.size() == star.topology.link_count());
  double most = 0;
  for (const LinkUsage& u : r.link_usage) most = std::max(most, u.bytes_carried);
  CHECK(most == Approx(4000));
}

// Two servers shard the bucket: every push and pull carries S / 2 = 500 bytes. At 10 each client sends two shards
// over its uplink and each server receives two over its downlink: four flows at 0.5 MB/s, 1 ms of bytes, arriving
// at 13. Each server applies its two shards 13-14 and 14-15, then pulls: two flows out of each server, two into
// each client, again 0.5 MB/s, arriving at 18. Closed form: 10 + 4 + 2 x 2 x 1000 / (2 x 1 MB/s) + 2 = 18 ms.
TEST_CASE("parameter servers, synchronous: two servers shard the bucket") {
  const Star star(2, 2);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10, 10});
  SpanLog log;
  const ParameterServerResult r = run_parameter_server_engine(setup, &log);
  CHECK(r.iteration_times == std::vector<SimTime>{ms(18)});
  CHECK(r.flows == 8);  // four pushes, four pulls
  CHECK(log.of("push") == std::vector<Span>{{"push", 0, 0, ms(10), ms(13)}, {"push", 1, 0, ms(10), ms(13)}});
  const std::vector<Span> applies = log.of("apply");
  REQUIRE(applies.size() == 4);  // each server applies both clients' shards
  for (const Span& a : applies) CHECK((a.start == ms(13) || a.start == ms(14)));
  CHECK(log.of("pull") == std::vector<Span>{{"pull", 0, 0, ms(15), ms(18)}, {"pull", 1, 0, ms(15), ms(18)}});
}

// Asynchronous, c0 computes 10 ms, c1 40 ms, 2 x 2 = 4 updates in all. Alone on its links, an update is compute,
// push 3 ms, apply 1 ms, pull 3 ms: c0's iteration takes 17 ms.
//   c0: 0-10 compute, push -> 13, apply 13-14 (update 0, read version 0), pull -> 17
//   c0: 17-27, push -> 30, apply 30-31 (update 1, read 1), pull -> 34
//   c1: 0-40, push -> 43, apply 43-44 (update 2, read 0: two versions stale), pull -> 47; the 4 updates are taken
//   c0: 34-44, push -> 47, apply 47-48 (update 3, read 2), pull -> 51: the end
// The fast client did three updates, the slow one one; c1 waits 51 - 47 = 4 ms for the end of the run.
TEST_CASE("parameter servers, asynchronous: a slow client, update order and staleness by hand") {
  const Star star(2, 1);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10, 40});
  setup.mode = ParameterServerMode::asynchronous;
  setup.iterations = 2;
  const ParameterServerResult r = run_parameter_server_engine(setup);
  CHECK(r.total == ms(51));
  CHECK(update_order(r) == std::vector<std::size_t>{0, 0, 1, 0});
  CHECK(staleness(r) == std::vector<std::int64_t>{0, 0, 2, 1});
  CHECK(r.applied[2].at == ms(44));
  CHECK(r.iteration_times == std::vector<SimTime>{ms(17), ms(17), ms(47), ms(17)});
  CHECK(r.clients[0].updates == 3);
  CHECK(r.clients[1].updates == 1);
  CHECK(r.clients[0].compute == ms(30));
  CHECK(r.clients[1].straggler_wait == ms(4));
  CHECK(r.clients[0].straggler_wait == SimTime::zero());
}

// The same with a staleness bound of 1 and 3 x 2 = 6 updates. A client may not start update t while the slowest
// has completed fewer than t - 1.
//   c0 completes its second update at 34 (c1 none): update 2 would be 2 ahead, so c0 waits from 34.
//   c1's first update: applied 43-44 (read 0, staleness 2), pulled at 47. c1 starts its second at 47 and c0, one
//   ahead now, resumes: a wait of 13 ms. c0: 47-57, push -> 60, apply 60-61 (read 2, staleness 1), pull -> 64, and
//   waits again (3 done against c1's 1).
//   c1: 47-87, push -> 90, apply 90-91 (read 3, staleness 1), pull -> 94; c1 starts the sixth update at 94, which
//   leaves none for c0: it stops at 94 after 30 ms more of waiting. c1: 94-134, push -> 137, apply 137-138 (read 5,
//   staleness 0), pull -> 141: the end. c0 waited 13 + 30 ms for the bound and 141 - 94 = 47 for the end.
TEST_CASE("parameter servers, staleness bound: the fast client blocks until the slow one catches up") {
  const Star star(2, 1);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10, 40});
  setup.mode = ParameterServerMode::asynchronous;
  setup.staleness_bound = 1;
  setup.iterations = 3;
  SpanLog log;
  const ParameterServerResult r = run_parameter_server_engine(setup, &log);
  CHECK(r.total == ms(141));
  CHECK(update_order(r) == std::vector<std::size_t>{0, 0, 1, 0, 1, 1});
  CHECK(staleness(r) == std::vector<std::int64_t>{0, 0, 2, 1, 1, 0});
  CHECK(r.clients[0].updates == 3);
  CHECK(r.clients[1].updates == 3);
  CHECK(r.clients[0].straggler_wait == ms(13 + 30 + 47));
  CHECK(r.clients[1].straggler_wait == SimTime::zero());
  // Only a wait that ends in an iteration is a span: the one from 34 to 47 before c0's third update.
  CHECK(log.of("wait") == std::vector<Span>{{"wait", 0, 2, ms(34), ms(47)}});
}

// Asynchronous as above (c0 10 ms, c1 40 ms, 4 updates), but c1 fails at 42 ms, while its first push is on the
// wire: the push is dropped (never applied) and its 42 ms count as lost work; c0 takes the update over.
//   c0: updates at 14, 31 (as before), then 34-44, push -> 47, apply 47-48, pull -> 51, and 51-61, push -> 64,
//   apply 64-65, pull -> 68: the end. Four updates, all c0's, none stale.
TEST_CASE("parameter servers, asynchronous: a failure drops the update in flight") {
  const Star star(2, 1);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10, 40});
  setup.mode = ParameterServerMode::asynchronous;
  setup.iterations = 2;
  setup.failures = {{1, ms(42)}};
  SpanLog log;
  const ParameterServerResult r = run_parameter_server_engine(setup, &log);
  CHECK(r.total == ms(68));
  CHECK(update_order(r) == std::vector<std::size_t>{0, 0, 0, 0});
  CHECK(staleness(r) == std::vector<std::int64_t>{0, 0, 0, 0});
  CHECK(r.iteration_times == std::vector<SimTime>{ms(17), ms(17), ms(17), ms(17)});
  CHECK(r.clients[0].updates == 4);
  CHECK(r.clients[1].updates == 0);
  CHECK(r.clients[1].failed_at == ms(42));
  CHECK(r.clients[1].lost_work == ms(42));
  CHECK(log.of("apply").size() == 4);  // c1's push arrived at 43 and was not applied
  CHECK(r.flows == 9);                 // c0's four pushes and four pulls, c1's one push
}

// A colocated server: p0 runs on c0's node, so c0's shard needs no network. At 10 c0's push arrives at once and
// is applied 10-11; c1's crosses the star alone, arriving at 13, applied 13-14. At 14 the pulls: c0's at once,
// c1's at 17. The round is 17 ms, and only c1's push and pull are flows; c0, done at 14, waits 3 ms.
TEST_CASE("parameter servers, synchronous: a colocated server's own shard skips the network") {
  const Star star(2, 0);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10, 10});
  setup.servers = {star.clients[0]};
  SpanLog log;
  const ParameterServerResult r = run_parameter_server_engine(setup, &log);
  CHECK(r.iteration_times == std::vector<SimTime>{ms(17)});
  CHECK(r.flows == 2);
  CHECK(log.of("push") == std::vector<Span>{{"push", 0, 0, ms(10), ms(10)}, {"push", 1, 0, ms(10), ms(13)}});
  CHECK(log.of("pull") == std::vector<Span>{{"pull", 0, 0, ms(14), ms(14)}, {"pull", 1, 0, ms(14), ms(17)}});
  CHECK(r.clients[0].straggler_wait == ms(3));  // c0 has its pull at 14, then waits for the end of the run
}

// A hybrid client pays after_pull (its group's broadcast) before its next iteration: 17 + 5 = 22 ms per update.
TEST_CASE("parameter servers: after_pull delays the next iteration and is observed") {
  const Star star(1, 1);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10});
  setup.mode = ParameterServerMode::asynchronous;
  setup.after_pull = ms(5);
  setup.iterations = 2;
  SpanLog log;
  const ParameterServerResult r = run_parameter_server_engine(setup, &log);
  CHECK(r.iteration_times == std::vector<SimTime>{ms(22), ms(22)});
  CHECK(log.of("after pull") ==
        std::vector<Span>{{"after pull", 0, 0, ms(17), ms(22)}, {"after pull", 0, 1, ms(39), ms(44)}});
}

TEST_CASE("parameter servers: setups the engine refuses") {
  const Star star(2, 1);
  Router network(star.topology);
  const ParameterServerSetup good = star_setup(network, star, {10, 10});
  ParameterServerSetup s = good;
  s.network = nullptr;
  CHECK_THROWS_AS(run_parameter_server_engine(s), InputError);
  s = good;
  s.clients.clear();
  CHECK_THROWS_AS(run_parameter_server_engine(s), InputError);
  s = good;
  s.servers.clear();
  CHECK_THROWS_AS(run_parameter_server_engine(s), InputError);
  s = good;
  s.shards.buckets.clear();
  CHECK_THROWS_AS(run_parameter_server_engine(s), InputError);
  s = good;
  s.shards.model.clear();  // not one per server
  CHECK_THROWS_AS(run_parameter_server_engine(s), InputError);
  s = good;
  s.shards.buckets[0][0].messages = 0;  // a bucket on no server
  CHECK_THROWS_AS(run_parameter_server_engine(s), InputError);
  s = good;
  s.per_message = SimTime::zero() - ms(1);
  CHECK_THROWS_AS(run_parameter_server_engine(s), InputError);
  s = good;
  s.iterations = 0;
  CHECK_THROWS_AS(run_parameter_server_engine(s), InputError);
}

// Whole tensors on their servers (round_robin): one bucket of a 800-byte and a 200-byte tensor over two servers,
// two clients. At 10 each client sends 800 B to p0 and 200 B to p1; after the 2 ms latency all four flows drain
// at 0.5 MB/s, so the 200 B shards arrive at 12.4 and the 800 B ones at 10 + 2 + 2 x 800 / 1 MB/s = 13.6. p1
// applies 12.4-14.4 and sends its pulls, there at 16.8; p0 applies 13.6-15.6, its pulls there at 19.2. The hot
// spot's closed form: C + 2 alpha + 2 N S0 / B + N a = 10 + 4 + 3.2 + 2 = 19.2 ms, and its link carries N S0.
TEST_CASE("parameter servers: the server holding the large tensor sets the round") {
  const Star star(2, 2);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10, 10});
  setup.shards = plan_shards({800, 200}, {{0, 1}}, 2, TensorPartition::round_robin);
  const ParameterServerResult r = run_parameter_server_engine(setup);
  REQUIRE(r.iteration_times.size() == 1);
  CHECK(r.iteration_times[0].seconds() == Approx(19.2e-3).epsilon(1e-9));
  CHECK(r.flows == 8);
  const auto into = [&](NodeId server) {
    for (const LinkId link : star.topology.out_links(server)) {
      return r.link_usage.at(star.topology.link(link).reverse.value()).bytes_carried;
    }
    return -1.0;
  };
  CHECK(into(star.servers[0]) == Approx(2 * 800));
  CHECK(into(star.servers[1]) == Approx(2 * 200));
}

// A server that holds no tensor gets no push and sends no pull: three servers, two tensors, asynchronous. The
// client's update lands on the two that hold something; two pushes and two pulls per update.
TEST_CASE("parameter servers, asynchronous: a server holding nothing is left out") {
  const Star star(1, 3);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10});
  setup.mode = ParameterServerMode::asynchronous;
  setup.iterations = 2;
  setup.shards = plan_shards({600, 400}, {{0, 1}}, 3, TensorPartition::round_robin);
  SpanLog log;
  const ParameterServerResult r = run_parameter_server_engine(setup, &log);
  CHECK(r.flows == 8);
  CHECK(r.clients[0].updates == 2);
  CHECK(r.applied.size() == 2);
  CHECK(log.of("apply").size() == 4);
  for (const Span& apply : log.of("apply")) CHECK(apply.who != 2);
}

// per_message p = 1 ms, one client, k = 2 servers, one bucket of S = 1,000 bytes in m = 3 tensors split evenly
// (3 messages to each server). At 10 the client sends its 6 messages (to 16); the two 500 B shards share its
// uplink and arrive at 16 + 2 + 1 = 19. Each server applies and receives its 3 messages, 19-23, then sends them
// back, 23-26; the pulls share the client's downlink, there at 29, and the client handles 6 messages, to 35.
// Closed form: C + 2 alpha + 2 S / B + a + 2 k m p + 2 N m p = 10 + 4 + 2 + 1 + 12 + 6 = 35 ms.
TEST_CASE("parameter servers: per-message cost at both ends, one client and two servers") {
  const Star star(1, 2);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10});
  setup.shards = even_bucket(1000, 2, 3);
  setup.per_message = ms(1);
  SpanLog log;
  const ParameterServerResult r = run_parameter_server_engine(setup, &log);
  CHECK(r.iteration_times == std::vector<SimTime>{ms(35)});
  CHECK(log.of("push") == std::vector<Span>{{"push", 0, 0, ms(10), ms(19)}});
  CHECK(log.of("pull") == std::vector<Span>{{"pull", 0, 0, ms(26), ms(35)}});
  for (const Span& apply : log.of("apply")) CHECK(apply.end - apply.start == ms(4));  // a + m p
}

// The same cost, two clients and one server: each client sends its 3 messages (10-13); the pushes share the
// server's downlink, there at 17; the server applies and receives, 17-21 and 21-25, sends 2 x 3 messages, 25-31;
// the pulls share its uplink, there at 35, and each client handles its 3, to 38. Closed form:
// C + 2 alpha + 2 N S / B + N a + 2 k m p + 2 N m p = 10 + 4 + 4 + 2 + 6 + 12 = 38 ms.
TEST_CASE("parameter servers: per-message cost at both ends, two clients and one server") {
  const Star star(2, 1);
  Router network(star.topology);
  ParameterServerSetup setup = star_setup(network, star, {10, 10});
  setup.shards = even_bucket(1000, 1, 3);
  setup.per_message = ms(1);
  setup.iterations = 2;
  const ParameterServerResult r = run_parameter_server_engine(setup);
  CHECK(r.iteration_times == std::vector<SimTime>{ms(38), ms(38)});
}
