// Checks across sections, and against the built topology: what no single section can judge alone.
#include <fmt/format.h>

#include <unordered_map>

#include "sections.hpp"

namespace syncsim::scenario_detail {

namespace {

void check_rank(const Located<std::int64_t>& rank, std::int64_t workers, const std::string& why) {
  if (rank.value >= workers) {
    throw rank.error(fmt::format("rank {} does not exist: {} (ranks 0..{})", rank.value, why, workers - 1));
  }
}

// The layout's sizes against the workers: tensor x pipeline x context divides them, data is the rest, a shard
// group divides data, and the expert groups divide the ranks that hold a layer's experts (data x context).
void check_layout(const ParallelismConfig& p, std::int64_t workers, const std::string& why) {
  const std::int64_t model_parallel = p.tensor.value * p.pipeline.value * p.context.value;
  if (workers % model_parallel != 0) {
    const Located<std::int64_t>& at = p.tensor.value > 1 ? p.tensor : p.pipeline.value > 1 ? p.pipeline : p.context;
    throw at.error(
        fmt::format("tensor x pipeline x context = {} does not divide the workers: {}", model_parallel, why));
  }
  const std::int64_t data = workers / model_parallel;
  if (p.data && p.data->value != data) {
    throw p.data->error(
        fmt::format("expected {} (or auto): the workers / (tensor x pipeline x context), as {}", data, why));
  }
  if (p.shard_group && data % p.shard_group->value != 0) {
    throw p.shard_group->error(
        fmt::format("a shard group of {} does not divide the {} data-parallel ranks", p.shard_group->value, data));
  }
  if ((data * p.context.value) % p.expert.value != 0) {
    throw p.expert.error(fmt::format("expert groups of {} do not divide the {} ranks of data x context", p.expert.value,
                                     data * p.context.value));
  }
}

// Every rank the scenario names, and the parameter server and group counts, against the worker count.
void check_workers(const Scenario& scenario, std::int64_t workers, const std::string& why) {
  check_layout(scenario.parallelism, workers, why);
  for (const SlowRank& slow : scenario.stragglers.slow) check_rank(slow.rank, workers, why);
  for (const FaultConfig& fault : scenario.faults) {
    if (fault.rank) check_rank(*fault.rank, workers, why);
  }
  const TrainingConfig& training = scenario.training;
  const auto& servers = training.parameter_servers;
  // Hybrid's clients are groups; so are sync's over servers when group_size is given (distributed_replicated).
  const bool grouped = training.group_size && (training.strategy.value == StrategyKind::hybrid ||
                                               (training.strategy.value == StrategyKind::sync &&
                                                training.communication.value == Communication::parameter_server));
  if (grouped) {
    const Located<std::int64_t>& group = *training.group_size;
    if (group.value > workers || workers % group.value != 0) {
      throw group.error(fmt::format("groups of {} do not divide the workers evenly: {}", group.value, why));
    }
  }
  const std::int64_t clients = grouped ? workers / training.group_size->value : workers;
  if (training.communication.value == Communication::parameter_server &&
      servers.placement == ServerPlacement::colocated && servers.count.value > clients) {
    if (!grouped) {
      throw servers.count.error(
          fmt::format("{} colocated servers need as many workers, but {}", servers.count.value, why));
    }
    throw servers.count.error(
        fmt::format("{} colocated servers need as many groups, but {} workers make {} groups of {}",
                    servers.count.value, workers, clients, training.group_size->value));
  }
}

std::unordered_map<std::string, NodeId> node_names(const Topology& topology) {
  std::unordered_map<std::string, NodeId> names;
  for (std::uint32_t i = 0; i < topology.node_count(); ++i) names.emplace(topology.node(NodeId{i}).name, NodeId{i});
  return names;
}

void check_link(const LinkEnds& ends, const Topology& topology, const std::unordered_map<std::string, NodeId>& names) {
  NodeId ids[2];
  const Located<std::string>* given[2] = {&ends.a, &ends.b};
  for (int i = 0; i < 2; ++i) {
    const auto found = names.find(given[i]->value);
    if (found == names.end()) {
      throw given[i]->error(fmt::format("the topology has no node '{}' (`syncsim topo` lists them)", given[i]->value));
    }
    ids[i] = found->second;
  }
  for (const LinkId link : topology.out_links(ids[0])) {
    if (topology.link(link).dst == ids[1]) return;
  }
  throw ends.b.error(fmt::format("no link joins '{}' and '{}'", ends.a.value, ends.b.value));
}

}  // namespace

void check_across_sections(const Scenario& scenario) {
  // torchao's float8 all-gather and Megatron's FP8 parameters are the tensorwise-scaled FP8 of the fp8 recipe.
  if (scenario.parallelism.fp8_all_gather.value && scenario.model.precision.value != Precision::fp8) {
    throw scenario.parallelism.fp8_all_gather.error(
        fmt::format("FP8 all-gathers need model.precision: fp8 (torchao's and Transformer Engine's tensorwise FP8), "
                    "got {}",
                    to_string(scenario.model.precision.value)));
  }
  if (scenario.cluster.workers) {
    const std::int64_t workers = scenario.cluster.workers->value;
    check_workers(scenario, workers, fmt::format("cluster.workers is {}", workers));
  }
  const auto& gpu = scenario.cluster.gpu;
  const auto& precision = scenario.model.precision;
  if (gpu.inline_spec && !gpu.inline_spec->peak(precision.value)) {
    throw precision.error(fmt::format("GPU '{}' has no {} peak (cluster.gpu.peak_tflops does not give one)",
                                      gpu.name.value, to_string(precision.value)));
  }
  if (gpu.inline_spec && !gpu.inline_spec->peak(companion_precision(precision.value))) {
    throw precision.error(
        fmt::format("GPU '{}' has no {} peak, which {} runs beside its GEMMs "
                    "(cluster.gpu.peak_tflops does not give one)",
                    gpu.name.value, to_string(companion_precision(precision.value)), to_string(precision.value)));
  }
}

void check_against_topology(const Scenario& scenario, const Topology& topology) {
  const auto gpus = static_cast<std::int64_t>(topology.gpu_count());
  if (scenario.cluster.workers) {
    const Located<std::int64_t>& workers = *scenario.cluster.workers;
    if (workers.value > gpus) {
      throw workers.error(fmt::format("{} workers do not fit: the topology has {} GPUs", workers.value, gpus));
    }
  } else {
    check_workers(scenario, gpus, fmt::format("the topology has {} GPUs", gpus));
  }
  const TrainingConfig& training = scenario.training;
  if (training.strategy.value == StrategyKind::hybrid && !training.group_size) {
    for (std::size_t g = 0; g < topology.gpu_count(); ++g) {
      if (!topology.node(topology.gpu(g)).host) {
        throw training.strategy.error(
            "hybrid groups workers by node by default, and this topology has no nodes: set training.group_size");
      }
    }
  }
  if (scenario.degraded_links.empty() && scenario.faults.empty()) return;
  const auto names = node_names(topology);
  for (const LinkDegradation& link : scenario.degraded_links) check_link(link.between, topology, names);
  for (const FaultConfig& fault : scenario.faults) {
    if (fault.between) check_link(*fault.between, topology, names);
  }
}

}  // namespace syncsim::scenario_detail
