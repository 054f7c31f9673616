// The layout search (syncsim plan --layouts auto): candidates valid by construction that hold the global batch, a
// lower bound no simulation goes below, the fastest simulated layout standing for its count and reproduced by
// `syncsim run` with its overrides, and efficiency per GPU against the smallest count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "syncsim/planner/layout_search.hpp"
#include "syncsim/planner/plan_grid.hpp"
#include "syncsim/run/layout_probe.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

// "TP<n> PP<n> [VP<n>] [CP<n>] DP<n> <sharding> b<n> m<n> [+<checkpointing>]", word by word (std::regex here made
// GCC 12 warn under the sanitizers, inside libstdc++).
bool is_layout_label(const std::string& label) {
  std::istringstream in(label);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  const auto numbered = [](const std::string& w, const std::string& prefix) {
    return w.size() > prefix.size() && w.starts_with(prefix) &&
           std::all_of(w.begin() + static_cast<std::ptrdiff_t>(prefix.size()), w.end(),
                       [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  const auto lower = [](const std::string& w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::islower(c) != 0; });
  };
  std::size_t i = 0;
  const auto take = [&](auto&& is) { return i < words.size() && is(words[i]) ? (++i, true) : false; };
  const auto prefixed = [&](const char* prefix) {
    return [&, prefix](const std::string& w) { return numbered(w, prefix); };
  };
  if (!take(prefixed("TP")) || !take(prefixed("PP"))) return false;
  take(prefixed("VP"));
  take(prefixed("CP"));
  if (!take(prefixed("DP")) || !take(lower) || !take(prefixed("b")) || !take(prefixed("m"))) return false;
  take([&](const std::string& w) { return w.size() > 1 && w[0] == '+' && lower(w.substr(1)); });
  return i == words.size();
}

const std::string kScenario = std::string(SYNCSIM_PLANNER_DATA "/llama3-8b-layouts.yaml");

std::vector<SweepPoint> points_of(const std::string& gpus) {
  const Scenario base = load_scenario(kScenario);
  PlanGrid grid{parse_gpu_counts(gpus), {"H100-SXM-80GB"}, {{"scenario", std::nullopt}}};
  return plan_points(base, grid);
}

LayoutSpace dense_space() {
  LayoutSpace space;
  space.transformer = true;
  space.blocks = 32;
  space.sequence = 8192;
  return space;
}

}  // namespace

TEST_CASE("every layout candidate divides the GPUs and holds the global batch") {
  const LayoutSpace space = dense_space();
  SkipCounts skipped;
  const std::vector<LayoutChoice> choices = layout_choices(space, 256, 512, skipped);
  REQUIRE(choices.size() > 100);
  std::set<std::string> labels;
  for (const LayoutChoice& c : choices) {
    CHECK(c.tensor * c.context * c.pipeline * c.data == 256);
    CHECK(c.data * c.batch_per_gpu * c.micro_batches == 512);
    CHECK(c.pipeline <= space.blocks);
    if (c.virtual_stages > 1) {
      CHECK(space.blocks % (c.pipeline * c.virtual_stages) == 0);
      CHECK(c.micro_batches % c.pipeline == 0);
    }
    if (c.context > 1) CHECK(space.sequence % (2 * c.context) == 0);
    if (c.sharding != ShardingLevel::none) CHECK(c.data > 1);
    CHECK(labels.insert(label_of(c)).second);  // no candidate twice
  }
  // b = 4 over 256 data-parallel ranks needs 1,024 samples: skipped with that reason, not dropped silently.
  CHECK(skipped.at("the global batch does not divide over data-parallel ranks x micro-batch size") > 0);
}

TEST_CASE("ZeRO-2 is a candidate beside every ZeRO-1 one, and never faster where both fit as they are") {
  SkipCounts skipped;
  const std::vector<LayoutChoice> choices = layout_choices(dense_space(), 64, 128, skipped);
  const auto count = [&](ShardingLevel level) {
    return std::count_if(choices.begin(), choices.end(), [&](const LayoutChoice& c) { return c.sharding == level; });
  };
  CHECK(count(ShardingLevel::gradients) == count(ShardingLevel::optimizer));
  // The same layout under both: the same memory but the gradients, a bound and a run no faster under ZeRO-2.
  const Scenario point = load_scenario(kScenario, {"parallelism={}"});
  run::Workspace workspace;
  run::LayoutProbe probe(point, workspace);
  LayoutChoice zero1{.tensor = 2, .pipeline = 2, .data = 4, .micro_batches = 4, .sharding = ShardingLevel::optimizer};
  LayoutChoice zero2 = zero1;
  zero2.sharding = ShardingLevel::gradients;
  const run::ProbeLayout one{parallelism_of(zero1), 1, 4};
  const run::ProbeLayout two{parallelism_of(zero2), 1, 4};
  CHECK(probe.memory(two).total < probe.memory(one).total);
  CHECK(probe.memory(one).total - probe.memory(two).total == probe.memory(one).gradients - probe.memory(two).gradients);
  CHECK(probe.lower_bound(two) >= probe.lower_bound(one));
  const TrainingReport r1 = run::run_scenario(load_scenario(kScenario, overrides_of(zero1, false))).report;
  const TrainingReport r2 = run::run_scenario(load_scenario(kScenario, overrides_of(zero2, false))).report;
  CHECK(r2.iteration_mean >= r1.iteration_mean);
}

TEST_CASE("a candidate's overrides give the scenario its layout") {
  const LayoutChoice c{.tensor = 4,
                       .context = 1,
                       .pipeline = 2,
                       .virtual_stages = 2,
                       .expert = 1,
                       .data = 2,
                       .batch_per_gpu = 1,
                       .micro_batches = 4,
                       .sharding = ShardingLevel::optimizer,
                       .checkpointing = ActivationCheckpointing::full,
                       .tp_comm_overlap = true};
  const Scenario s = load_scenario(kScenario, overrides_of(c, true));
  const ParallelismConfig& p = s.parallelism;
  CHECK(p.tensor.value == 4);
  CHECK(p.pipeline.value == 2);
  CHECK(p.schedule.value == PipelineSchedule::interleaved);
  CHECK(p.virtual_stages->value == 2);
  CHECK(p.sharding.value == ShardingLevel::optimizer);
  CHECK(p.activation_checkpointing.value == ActivationCheckpointing::full);
  CHECK(p.tp_comm_overlap.value);
  CHECK(s.model.micro_batches == 4);
  CHECK(s.model.global_batch->value == 8);
  CHECK(label_of(c) == "TP4 PP2 VP2 DP2 optimizer b1 m4 +full");
}

TEST_CASE("no simulated iteration is faster than its layout's lower bound") {
  // Every engine a layout can reach: DDP, FSDP alone, FSDP with TP (no pipeline), 1F1B and interleaved pipelines,
  // context parallelism, with and without tp_comm_overlap and checkpointing.
  const std::vector<LayoutChoice> layouts = {
      {.data = 16, .micro_batches = 1},
      {.data = 16, .micro_batches = 1, .sharding = ShardingLevel::full},
      {.data = 16, .micro_batches = 2, .sharding = ShardingLevel::full},
      {.data = 16, .micro_batches = 2, .sharding = ShardingLevel::optimizer},
      {.tensor = 8, .data = 2, .micro_batches = 4, .sharding = ShardingLevel::full},
      {.tensor = 8, .data = 2, .micro_batches = 4, .tp_comm_overlap = true},
      {.tensor = 4, .pipeline = 2, .data = 2, .micro_batches = 4, .sharding = ShardingLevel::optimizer},
      {.tensor = 4, .pipeline = 2, .data = 2, .micro_batches = 4, .sharding = ShardingLevel::gradients},
      {.data = 16, .micro_batches = 2, .sharding = ShardingLevel::gradients},
      {.tensor = 2,
       .pipeline = 4,
       .virtual_stages = 2,
       .data = 2,
       .micro_batches = 8,
       .checkpointing = ActivationCheckpointing::full},
      {.tensor = 2, .context = 2, .pipeline = 2, .data = 2, .batch_per_gpu = 2, .micro_batches = 2},
  };
  const Scenario point = load_scenario(kScenario, {"parallelism={}"});
  run::Workspace workspace;
  run::LayoutProbe probe(point, workspace);
  for (const LayoutChoice& c : layouts) {
    INFO(label_of(c));
    const run::ProbeLayout layout{parallelism_of(c), c.batch_per_gpu, c.micro_batches};
    const SimTime bound = probe.lower_bound(layout);
    const TrainingReport r = run::run_scenario(load_scenario(kScenario, overrides_of(c, false))).report;
    CHECK(bound > SimTime::zero());
    CHECK(bound <= r.iteration_mean);
    CHECK(probe.memory(layout).total == r.memory.total);  // the probe's memory is the run's
  }
}

TEST_CASE("FP8 all-gathers beside tensor and context parallelism: fewer bytes, and the bound stays below the run") {
  // torchtitan's Float8 FSDP with TP (its 2D runs) and with CP (its long-sequence runs): the weight gathers send the
  // blocks' GEMM weights in FP8, and FSDP shards over data x context.
  const std::vector<LayoutChoice> layouts = {
      {.data = 16, .micro_batches = 2, .sharding = ShardingLevel::full},
      {.tensor = 8, .data = 2, .micro_batches = 4, .sharding = ShardingLevel::full},
      {.tensor = 2, .context = 2, .data = 4, .micro_batches = 2, .sharding = ShardingLevel::full},
      {.context = 2, .data = 8, .micro_batches = 2, .sharding = ShardingLevel::full},
  };
  const std::string kFp8 = "model.precision=fp8";
  const Scenario point = load_scenario(kScenario, {"parallelism={}", kFp8});
  run::Workspace workspace;
  run::LayoutProbe probe(point, workspace);
  const auto in_fp8 = [&kFp8](const LayoutChoice& c) {
    std::vector<std::string> overrides = overrides_of(c, false);
    overrides.emplace_back(kFp8);
    return overrides;
  };
  for (LayoutChoice c : layouts) {
    INFO(label_of(c));
    const std::vector<std::string> bf16_gathers = in_fp8(c);
    c.fp8_all_gather = true;
    const std::vector<std::string> fp8_gathers = in_fp8(c);
    const TrainingReport plain = run::run_scenario(load_scenario(kScenario, bf16_gathers)).report;
    const TrainingReport r = run::run_scenario(load_scenario(kScenario, fp8_gathers)).report;
    const auto data_bytes = [](const TrainingReport& report) {
      for (const GroupCommunication& g : report.group_communication) {
        if (g.group == "data") return g.bytes_per_gpu;
      }
      return 0.0;
    };
    // Per unit and micro-batch two gathers and a reduce-scatter, so gathers are 2/3 of the bytes; the blocks' GEMM
    // weights, 87 % of Llama 3 8B's parameters (not the embedding or the head), go at half their bf16 size.
    CHECK(data_bytes(r) < data_bytes(plain) * (1 - 2.0 / 3 * 0.87 / 2 * 0.99));
    CHECK(data_bytes(r) > data_bytes(plain) * (1 - 2.0 / 3 * 0.87 / 2 * 1.01));
    CHECK(r.iteration_mean <= plain.iteration_mean);
    const SimTime bound = probe.lower_bound({parallelism_of(c), c.batch_per_gpu, c.micro_batches});
    CHECK(bound > SimTime::zero());
    CHECK(bound <= r.iteration_mean);
  }
}

TEST_CASE("the searched layout of a point is what syncsim run gives with its overrides") {
  const std::vector<SweepPoint> points = points_of("16");
  run::Workspace workspace;
  LayoutSearchOptions options{.space = layout_space(load_scenario(kScenario))};
  const SearchedPoint found = search_layouts(kScenario, points[0], 8, options, workspace);
  CHECK(found.stats.simulated >= 1);
  CHECK(found.stats.candidates > found.stats.simulated);
  CHECK(found.stats.simulated + found.stats.pruned + found.stats.not_fitting + found.stats.unexplored <=
        found.stats.candidates);
  // Llama 3 8B on 16 H100s fits under ZeRO-1 as it is at many layouts: their ZeRO-2 twins are not probed.
  CHECK(found.stats.skipped.at("ZeRO-2 where ZeRO-1 fits as is (the same memory need met, only more traffic)") > 0);
  INFO(found.label);
  CHECK(is_layout_label(found.label));
  const TrainingReport again = run::run_scenario(load_scenario(kScenario, found.overrides)).report;
  CHECK(again.iteration_mean == found.report.iteration_mean);
  CHECK(again.global_batch == 8);
}
