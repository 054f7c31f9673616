#include "syncsim/run/memory_budget.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "syncsim/core/input_error.hpp"

namespace syncsim::run {

namespace {

std::optional<std::int64_t> whole(const TopologySpec& spec, const std::string& key) {
  const auto it = spec.params.find(key);
  if (it == spec.params.end()) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long value = std::stoll(it->second, &used);
    if (used != it->second.size() || value < 0) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::int64_t> planned_gpus(const TopologySpec& spec) {
  if (spec.kind == "ring" || spec.kind == "mesh" || spec.kind == "switch" || spec.kind == "fattree") {
    return whole(spec, "n");
  }
  if (spec.kind == "dgx") {
    const std::optional<std::int64_t> nodes = whole(spec, "nodes");
    const std::optional<std::int64_t> gpus = spec.params.count("gpus") ? whole(spec, "gpus") : 8;
    if (!nodes || !gpus) return std::nullopt;
    return *nodes * *gpus;
  }
  if (spec.kind == "torus") {
    const auto it = spec.params.find("dims");
    if (it == spec.params.end()) return std::nullopt;
    std::int64_t total = 1;
    std::size_t start = 0;
    while (start <= it->second.size()) {
      const std::size_t end = std::min(it->second.find('x', start), it->second.size());
      try {
        total *= std::stoll(it->second.substr(start, end - start));
      } catch (const std::exception&) {
        return std::nullopt;
      }
      start = end + 1;
    }
    return total;
  }
  return std::nullopt;
}

Bytes memory_budget() {
  const char* text = std::getenv("SYNCSIM_MEMORY_BUDGET");
  if (text == nullptr || *text == '\0') return kDefaultBudget;
  try {
    return parse_bytes(text);
  } catch (const InputError& e) {
    throw InputError(e.message(), SourceLocation{"SYNCSIM_MEMORY_BUDGET"});
  }
}

void check_memory_budget(const TopologySpec& spec, const std::string& key) {
  const std::optional<std::int64_t> gpus = planned_gpus(spec);
  if (!gpus) return;
  const double needed = static_cast<double>(*gpus) * static_cast<double>(kBytesPerGpu);
  const Bytes budget = memory_budget();
  if (needed <= static_cast<double>(budget.value)) return;
  throw InputError(
      fmt::format("{} GPUs need about {:.1f} GiB ({} KiB per GPU), over the memory budget of {:.1f} "
                  "GiB; set SYNCSIM_MEMORY_BUDGET (e.g. 64GB) to allow it",
                  *gpus, needed / (1LL << 30), kBytesPerGpu >> 10, static_cast<double>(budget.value) / (1LL << 30)),
      spec.location, key);
}

void check_run_memory(const Scenario& s) {
  check_memory_budget(s.cluster.topology);  // the GPUs first: a huge topology is the cause, not the counts below
  const std::optional<std::int64_t> gpus = planned_gpus(s.cluster.topology);
  const double workers = static_cast<double>(s.cluster.workers ? s.cluster.workers->value : gpus.value_or(1));
  const double iterations =
      static_cast<double>(s.training.iterations) + static_cast<double>(s.training.warmup_iterations);
  // A catalog model's layers are not known here; its largest (a transformer's) stays under a thousand.
  const double layers = s.model.layers.empty() ? 1000.0 : static_cast<double>(s.model.layers.size());
  const double micro_batches = static_cast<double>(s.model.micro_batches);
  struct Term {
    double bytes;
    std::string key;
    std::string what;
  };
  // Parameter servers: every client pushes to and pulls from every server each iteration, and the trace keeps each.
  const bool servers = s.training.communication.value == Communication::parameter_server ||
                       s.training.strategy.value == StrategyKind::hybrid;
  const double server_count = servers ? static_cast<double>(s.training.parameter_servers.count.value) : 0.0;
  const Term terms[] = {
      {iterations * workers * server_count * kBytesPerServerMessage, "training.parameter_servers.count",
       fmt::format("{:.0f} parameter servers over {:.0f} workers for {:.0f} iterations", server_count, workers,
                   iterations)},
      {iterations * (kBytesPerIteration + workers * kBytesPerRankIteration),
       s.training.warmup_iterations > s.training.iterations ? "training.warmup_iterations" : "training.iterations",
       fmt::format("{} iterations{} over {:.0f} workers", s.training.iterations,
                   s.training.warmup_iterations > 0 ? fmt::format(" (and {} warm-up)", s.training.warmup_iterations)
                                                    : std::string(),
                   workers)},
      {micro_batches * (layers * kBytesPerLayerMicroBatch + workers * kBytesPerRankMicroBatch), "model.micro_batches",
       fmt::format("{:.0f} micro-batches of {:.0f} layers over {:.0f} workers", micro_batches, layers, workers)},
  };
  const Term* largest = &terms[0];
  double needed = 0;
  for (const Term& term : terms) {
    needed += term.bytes;
    if (term.bytes > largest->bytes) largest = &term;
  }
  const Bytes budget = memory_budget();
  if (needed <= static_cast<double>(budget.value)) return;
  throw InputError(fmt::format("{} need about {:.3g} GiB, over the memory budget of {:.1f} GiB; set "
                               "SYNCSIM_MEMORY_BUDGET (e.g. 64GB) to allow it",
                               largest->what, needed / (1LL << 30), static_cast<double>(budget.value) / (1LL << 30)),
                   SourceLocation{s.source, 0, 0}, largest->key);
}

}  // namespace syncsim::run
