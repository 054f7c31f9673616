// The convergence proxy end to end through syncsim::run: every strategy's schedule replayed, synchronous runs that
// match one worker with the global batch, the report's section, and bad convergence input.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {
namespace {

TrainingReport run_example(const std::string& file, std::vector<std::string> overrides) {
  return run::run_scenario(load_scenario(fmt::format("{}/{}", SYNCSIM_EXAMPLES_DIR, file), overrides)).report;
}

std::vector<double> losses(const ConvergenceReport& c) {
  std::vector<double> out;
  for (const ConvergenceSample& p : c.curve) out.push_back(p.loss);
  return out;
}

TEST_CASE("syncsim run: 8 synchronous GPUs train the proxy exactly like one GPU with 8 times the batch") {
  const std::string file = "resnet50-dgx-8gpu.yaml";
  const TrainingReport eight = run_example(file, {"convergence.batch_per_worker=4", "convergence.base_batch=32",
                                                  "convergence.lr_scaling=linear", "convergence.eval_every=1"});
  const TrainingReport one =
      run_example(file, {"cluster.workers=1", "convergence.batch_per_worker=32", "convergence.base_batch=32",
                         "convergence.lr_scaling=linear", "convergence.eval_every=1"});
  REQUIRE(eight.convergence.has_value());
  REQUIRE(one.convergence.has_value());
  CHECK(eight.workers == 8);
  CHECK(one.workers == 1);
  CHECK(losses(*eight.convergence) == losses(*one.convergence));
  CHECK(eight.convergence->updates == eight.iterations);
  // The same updates, at each run's own iteration ends.
  CHECK(eight.convergence->curve.back().at == eight.total);
  CHECK(one.convergence->curve.back().at == one.total);
}

TEST_CASE("syncsim run: synchronous parameter servers apply the same updates as AllReduce, at their own times") {
  const std::string file = "allreduce-vs-parameter-servers.yaml";
  const TrainingReport allreduce = run_example(file, {"convergence.eval_every=1"});
  const TrainingReport servers =
      run_example(file, {"training.communication=parameter_server", "convergence.eval_every=1"});
  CHECK(losses(*allreduce.convergence) == losses(*servers.convergence));
  CHECK(servers.convergence->curve.back().at > allreduce.convergence->curve.back().at);  // servers are slower
}

TEST_CASE("syncsim run: every strategy's schedule replays, asynchronous ones apply one update per worker step") {
  const std::string file = "strategies-64gpu-stragglers.yaml";
  for (const std::string strategy : {"sync", "async", "ssp", "local_sgd", "hybrid"}) {
    const TrainingReport r = run_example(file, {"training.strategy=" + strategy, "convergence.target_loss=0.9"});
    INFO(strategy);
    REQUIRE(r.convergence.has_value());
    const ConvergenceReport& c = *r.convergence;
    CHECK(c.curve.front().update == 0);
    CHECK(c.curve.back().update == c.updates);
    CHECK(c.final_loss < c.curve.front().loss);
    for (std::size_t i = 1; i < c.curve.size(); ++i) CHECK(c.curve[i].at >= c.curve[i - 1].at);
    if (r.staleness) CHECK(c.updates == r.staleness->updates);
  }
}

TEST_CASE("syncsim run: the report's convergence section only with a convergence section") {
  const TrainingReport plain = run_example("resnet50-dgx-8gpu.yaml", {});
  CHECK_FALSE(plain.convergence.has_value());
  CHECK_FALSE(to_json(plain).contains("convergence"));
  const TrainingReport with = run_example("resnet50-dgx-8gpu.yaml", {"convergence.problem=mlp"});
  const auto json = to_json(with);
  REQUIRE(json.contains("convergence"));
  CHECK(json["convergence"]["problem"] == "mlp");
  CHECK(json["convergence"]["curve"].size() == with.convergence->curve.size());
  CHECK(json["convergence"]["time_to_target_us"].is_null());
}

TEST_CASE("the convergence section survives to_yaml and back") {
  const Scenario s = load_scenario(std::string(SYNCSIM_EXAMPLES_DIR "/async-staleness.yaml"),
                                   {"convergence.problem=mlp", "convergence.hidden=12", "convergence.lr_scaling=sqrt",
                                    "convergence.base_batch=16", "convergence.warmup_updates=30"});
  const std::string yaml = to_yaml(s);
  const Scenario back = parse_scenario(yaml, "back.yaml");
  REQUIRE(back.convergence.has_value());
  CHECK(to_yaml(back) == yaml);
  CHECK(back.convergence->hidden == 12);
  CHECK(back.convergence->lr_scaling == LrScaling::sqrt);
  CHECK(back.convergence->target_loss->value == 0.6);
}

TEST_CASE("bad convergence input: the key and its place in the file") {
  const std::string base =
      "name: t\ncluster: {gpu: A100-SXM4-80GB, topology: \"ring:n=2\"}\n"
      "model: {name: resnet50, batch_per_gpu: 8}\n";
  const auto error_of = [&](const std::string& section) {
    try {
      parse_scenario(base + section, "t.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("convergence: {problem: svm}\n"),
             Catch::Contains("t.yaml:4:24") && Catch::Contains("convergence.problem"));
  CHECK_THAT(error_of("convergence: {learning_rate: 0}\n"), Catch::Contains("convergence.learning_rate"));
  CHECK_THAT(error_of("convergence: {hidden: 8}\n"), Catch::Contains("problem: mlp"));
  CHECK_THAT(error_of("convergence: {target_los: 0.3}\n"), Catch::Contains("target_loss"));
  CHECK_THAT(error_of("convergence: {classes: 1}\n"), Catch::Contains("convergence.classes"));
  CHECK_THAT(error_of("convergence: {features: 100000}\n"), Catch::Contains("at most 4096"));
}

}  // namespace
}  // namespace syncsim
