// The replay of each kind of schedule (convergence_replay.hpp), on schedules written by hand: synchronous SGD on
// N workers against one worker with the global batch, asynchronous SGD with and without staleness, local SGD,
// elastic member sets, divergence, and determinism.
#include <catch2/catch.hpp>

#include "syncsim/convergence/convergence_replay.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::convergence {
namespace {

ConvergenceConfig config_for(ProxyProblem problem, std::int64_t batch) {
  ConvergenceConfig c;
  c.problem = problem;
  c.batch_per_worker = batch;
  c.learning_rate = 0.2;
  c.base_batch = 64;  // the same for every run compared, so that scaling rules give them the same rate
  c.eval_every = 5;
  return c;
}

SimTime seconds(double s) {
  return SimTime::from_seconds(s);
}

UpdateSchedule synchronous(std::int64_t workers, std::int64_t updates) {
  UpdateSchedule s;
  s.workers = workers;
  s.member_sets.emplace_back();
  for (std::int64_t w = 0; w < workers; ++w) s.member_sets[0].push_back(w);
  for (std::int64_t u = 0; u < updates; ++u) s.updates.push_back({seconds(0.1 * double(u + 1)), 0, u, false});
  return s;
}

// Clients take turns; client c's k-th update reads the version it got back with its previous one, so staleness is
// clients - 1 once every client has pushed (0 with one client).
UpdateSchedule round_robin(std::int64_t clients, std::int64_t updates) {
  UpdateSchedule s;
  s.kind = ScheduleKind::asynchronous;
  s.workers = clients;
  std::vector<std::int64_t> read(static_cast<std::size_t>(clients), 0);
  for (std::int64_t u = 0; u < updates; ++u) {
    const std::int64_t c = u % clients;
    s.updates.push_back({seconds(0.01 * double(u + 1)), c, read[static_cast<std::size_t>(c)], false});
    read[static_cast<std::size_t>(c)] = u + 1;
  }
  return s;
}

TEST_CASE("synchronous SGD on N workers reproduces one worker with the global batch exactly") {
  for (const ProxyProblem problem : {ProxyProblem::logistic, ProxyProblem::mlp}) {
    for (const LrScaling scaling : {LrScaling::none, LrScaling::linear}) {
      for (const std::int64_t n : {2, 8, 13}) {
        ConvergenceConfig many = config_for(problem, 4);
        ConvergenceConfig one = config_for(problem, 4 * n);
        many.lr_scaling = one.lr_scaling = scaling;
        many.warmup_updates = one.warmup_updates = 10;
        const ConvergenceResult a = replay_convergence(many, 21, synchronous(n, 40));
        const ConvergenceResult b = replay_convergence(one, 21, synchronous(1, 40));
        INFO(to_string(problem) << ", " << to_string(scaling) << ", N = " << n);
        CHECK(a.parameters == b.parameters);  // bit for bit
        REQUIRE(a.curve.size() == b.curve.size());
        for (std::size_t i = 0; i < a.curve.size(); ++i) {
          CHECK(a.curve[i].loss == b.curve[i].loss);
          CHECK(a.curve[i].samples == b.curve[i].samples);
        }
        CHECK(a.curve.back().loss < a.curve.front().loss);  // it learned something
      }
    }
  }
}

TEST_CASE("asynchronous SGD with one client is synchronous SGD with one worker") {
  const ConvergenceConfig c = config_for(ProxyProblem::mlp, 8);
  const ConvergenceResult async = replay_convergence(c, 4, round_robin(1, 60));
  const ConvergenceResult sync = replay_convergence(c, 4, synchronous(1, 60));
  CHECK(async.parameters == sync.parameters);
}

TEST_CASE("staleness costs progress per update: the same updates, read from older versions, reach a higher loss") {
  ConvergenceConfig c = config_for(ProxyProblem::logistic, 8);
  c.learning_rate = 0.5;
  c.eval_every = 2048;
  std::vector<double> loss;
  for (const std::int64_t clients : {1, 16, 64}) {
    loss.push_back(replay_convergence(c, 8, round_robin(clients, 2048)).curve.back().loss);
  }
  CHECK(loss[0] < loss[1]);
  CHECK(loss[1] < loss[2]);
}

TEST_CASE("the replay keeps exactly the versions that stale clients still hold") {
  // Client 1 reads version 0 and pushes only after client 0's 5 updates: its gradient is 5 versions old.
  UpdateSchedule s;
  s.kind = ScheduleKind::asynchronous;
  s.workers = 2;
  for (std::int64_t u = 0; u < 5; ++u) s.updates.push_back({seconds(double(u + 1)), 0, u, false});
  s.updates.push_back({seconds(6), 1, 0, false});
  const ConvergenceResult r = replay_convergence(config_for(ProxyProblem::logistic, 8), 2, s);
  CHECK(r.updates == 6);
  // A version never produced cannot be read.
  s.updates.push_back({seconds(7), 1, 99, false});
  CHECK_THROWS_AS(replay_convergence(config_for(ProxyProblem::logistic, 8), 2, s), std::logic_error);
}

TEST_CASE("local SGD averaging after every step matches synchronous SGD up to rounding") {
  ConvergenceConfig c = config_for(ProxyProblem::mlp, 8);
  UpdateSchedule local = synchronous(4, 30);
  local.kind = ScheduleKind::local;
  for (ScheduledUpdate& u : local.updates) u.average = true;
  const ConvergenceResult a = replay_convergence(c, 5, local);
  const ConvergenceResult b = replay_convergence(c, 5, synchronous(4, 30));
  REQUIRE(a.parameters.size() == b.parameters.size());
  for (std::size_t i = 0; i < a.parameters.size(); ++i) CHECK(a.parameters[i] == Approx(b.parameters[i]).margin(1e-9));
  // Averaging only every 10 steps lets the copies drift apart in between: a different trajectory.
  for (std::size_t u = 0; u < local.updates.size(); ++u) local.updates[u].average = (u + 1) % 10 == 0;
  CHECK(replay_convergence(c, 5, local).parameters != b.parameters);
}

TEST_CASE("elastic member sets: the survivors' samples only") {
  UpdateSchedule s = synchronous(4, 20);
  s.member_sets.push_back({0, 1, 3});
  for (std::size_t u = 10; u < 20; ++u) s.updates[u].source = 1;
  const ConvergenceResult r = replay_convergence(config_for(ProxyProblem::logistic, 8), 3, s);
  CHECK(r.samples == 10 * 32 + 10 * 24);
}

TEST_CASE("evaluations: before the first update, every eval_every updates and after the last") {
  ConvergenceConfig c = config_for(ProxyProblem::logistic, 8);
  c.eval_every = 7;
  const ConvergenceResult r = replay_convergence(c, 1, synchronous(2, 20));
  std::vector<std::int64_t> at;
  for (const ConvergenceSample& p : r.curve) at.push_back(p.update);
  CHECK(at == std::vector<std::int64_t>{0, 7, 14, 20});
  CHECK(r.curve[1].at == seconds(0.7));
  c.eval_every.reset();  // default: about 100 points
  CHECK(replay_convergence(c, 1, synchronous(2, 1000)).eval_every == 10);
}

TEST_CASE("time to target: the first evaluation at or below the target") {
  ConvergenceConfig c = config_for(ProxyProblem::logistic, 8);
  c.eval_every = 1;
  const ConvergenceResult free_run = replay_convergence(c, 1, synchronous(4, 100));
  const double target = free_run.curve[40].loss;
  c.target_loss.emplace();
  c.target_loss->value = target;
  const ConvergenceResult r = replay_convergence(c, 1, synchronous(4, 100));
  REQUIRE(r.updates_to_target.has_value());
  CHECK(*r.updates_to_target <= 40);
  CHECK(r.curve[static_cast<std::size_t>(*r.updates_to_target)].loss <= target);
  for (std::int64_t u = 0; u < *r.updates_to_target; ++u) CHECK(r.curve[static_cast<std::size_t>(u)].loss > target);
  CHECK(*r.time_to_target == seconds(0.1 * double(*r.updates_to_target)));
  c.target_loss->value = 1e-9;
  CHECK_FALSE(replay_convergence(c, 1, synchronous(4, 100)).time_to_target.has_value());
}

TEST_CASE("a learning rate far too large diverges, and the replay says when instead of going on") {
  ConvergenceConfig c = config_for(ProxyProblem::logistic, 8);
  c.learning_rate = 1e4;
  c.eval_every = 1;
  const ConvergenceResult r = replay_convergence(c, 1, synchronous(2, 200));
  REQUIRE(r.diverged_at_update.has_value());
  CHECK(r.updates < 200);
  CHECK(*r.diverged_at_update == r.updates);
  CHECK(r.curve.back().loss > 100 * r.curve.front().loss);
  for (const ConvergenceSample& p : r.curve) CHECK(std::isfinite(p.loss));
}

TEST_CASE("the replay is deterministic, and the seed matters") {
  const ConvergenceConfig c = config_for(ProxyProblem::mlp, 8);
  const ConvergenceResult a = replay_convergence(c, 77, round_robin(8, 300));
  const ConvergenceResult b = replay_convergence(c, 77, round_robin(8, 300));
  CHECK(a.parameters == b.parameters);
  CHECK(replay_convergence(c, 78, round_robin(8, 300)).parameters != a.parameters);
}

TEST_CASE("an update averaging more samples than the exact sum can hold is refused at the section") {
  ConvergenceConfig c = config_for(ProxyProblem::logistic, 1 << 16);
  c.where = SourceLocation{"s.yaml", 30, 1};
  CHECK_THROWS_AS(replay_convergence(c, 1, synchronous(8, 1)), InputError);
}

}  // namespace
}  // namespace syncsim::convergence
