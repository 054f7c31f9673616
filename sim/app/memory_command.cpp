// `syncsim memory SCENARIO [--set k=v]`: one GPU's memory under the scenario's parallelism, without simulating —
// what each sharding level and model-parallel split leaves on the fullest GPU (memory_check.hpp).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "commands.hpp"
#include "help_format.hpp"
#include "memory_text.hpp"
#include "recommendation_text.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::app {

namespace {

struct MemoryOptions {
  std::string scenario;
  std::vector<std::string> overrides;
};

std::string_view sharding_name(ShardingLevel level) {
  switch (level) {
    case ShardingLevel::none:
      return "none";
    case ShardingLevel::optimizer:
      return "optimizer state (ZeRO-1)";
    case ShardingLevel::gradients:
      return "gradients and optimizer state (ZeRO-2)";
    case ShardingLevel::full:
      return "weights, gradients and optimizer state (ZeRO-3, FSDP)";
  }
  return "";
}

int print_memory(const MemoryOptions& options) {
  const Scenario s = load_scenario(options.scenario, options.overrides);
  const MemoryReport m = run::scenario_memory(s);
  const ParallelismConfig& p = s.parallelism;
  const std::int64_t gpus =
      s.cluster.workers ? s.cluster.workers->value : static_cast<std::int64_t>(s.cluster.built->topology.gpu_count());
  const std::int64_t data = gpus / (p.tensor.value * p.pipeline.value * p.context.value);
  auto& o = std::cout;
  fmt::print(o, "# syncsim memory {}: {} GPUs, {} ({}, {}), batch {} per GPU\n", s.name, gpus, s.model.name.value,
             to_string(s.model.precision.value), to_string(s.model.optimizer.value), s.model.batch_per_gpu.value);
  fmt::print(o, "layout           tensor {} x pipeline {} x context {} x data {}\n", p.tensor.value, p.pipeline.value,
             p.context.value, data);
  fmt::print(o, "sharded          {}{}{}\n", sharding_name(p.sharding.value),
             p.sharding.value == ShardingLevel::none
                 ? ""
                 // over data x context, as both frameworks shard (memory_check.hpp)
                 : fmt::format(" over {} ranks", (p.shard_group ? p.shard_group->value : data) * p.context.value),
             p.sharding.value == ShardingLevel::full && p.pipeline.value > 1
                 ? "; under the pipeline each chunk stays gathered through the iteration"
                 : "");
  fmt::print(o, "per GPU          weights {}  gradients {}  optimizer state {}  activations {}\n", gib_text(m.weights),
             gib_text(m.gradients), gib_text(m.optimizer_state), gib_text(m.activations));
  print_allocator_lines(o, m, s);
  if (const auto tables = run::scenario_recommendation_memory(s)) print_embedding_lines(o, *tables, gpus);
  if (p.pipeline.value > 1 && p.schedule.value == PipelineSchedule::interleaved) {
    const std::int64_t chunks = p.virtual_stages->value;
    fmt::print(o,
               "fullest stage    {} of {}, activations of {} forward passes of one chunk in {} in flight ({:.2f} "
               "micro-batches' worth)\n",
               m.stage, p.pipeline.value, m.in_flight, chunks,
               static_cast<double>(m.in_flight) / static_cast<double>(chunks));
  } else if (p.pipeline.value > 1) {
    fmt::print(o, "fullest stage    {} of {}, activations of {} micro-batch(es) in flight\n", m.stage, p.pipeline.value,
               m.in_flight);
  }
  fmt::print(o, "memory           {}\n", memory_verdict(m));
  return 0;
}

}  // namespace

Action add_memory_command(CLI::App& app) {
  auto options = std::make_shared<MemoryOptions>();
  CLI::App* command = app.add_subcommand(
      "memory", "One GPU's memory under the scenario's parallelism and sharding, without simulating");
  set_examples(command, {"syncsim memory examples/llama7b-sharding.yaml --set parallelism.sharding=full",
                         "syncsim memory examples/llama3-70b-layouts.yaml --set parallelism.pipeline=2"});
  command->add_option("scenario", options->scenario, "Scenario file (YAML)")->required();
  command->add_option("--set", options->overrides, "Override a scenario value: key.path=value (repeatable)");
  return [options]() { return print_memory(*options); };
}

}  // namespace syncsim::app
