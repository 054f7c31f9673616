#include "syncsim/planner/layout_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/layout_probe.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::planner {

namespace {

// Lightest first (layout_space.hpp): the first that fits is the one the candidate runs with.
constexpr ActivationCheckpointing kCheckpointing[] = {ActivationCheckpointing::none, ActivationCheckpointing::selective,
                                                      ActivationCheckpointing::full};

// A fitting candidate with its bound, or the closest to fitting.
struct Probed {
  LayoutChoice choice;
  SimTime bound;
  double excess = 0;  // bytes over the usable memory (<= 0 fits)
};

// The point's scenario with a plain layout: what the probe needs (GPU, model, topology, workers) loads at any count.
Scenario probe_scenario(const std::filesystem::path& scenario, const SweepPoint& point, bool global_batch_key) {
  std::vector<std::string> overrides = point.overrides;
  overrides.emplace_back("parallelism={}");
  overrides.emplace_back("model.micro_batches=1");
  if (global_batch_key) overrides.emplace_back("model.global_batch=");  // not given: micro_batches stands
  return load_scenario(scenario, overrides);
}

run::ProbeLayout probe_layout(const LayoutChoice& c) {
  return {.parallelism = parallelism_of(c), .batch_per_gpu = c.batch_per_gpu, .micro_batches = c.micro_batches};
}

// The lightest checkpointing under which `choice` fits (with its bound), or the excess of the best try; nullopt
// when the model refuses the layout (counted by the key it names). Only the first `levels` of kCheckpointing.
std::optional<Probed> probe(run::LayoutProbe& probe, LayoutChoice choice, double headroom, LayoutSearchStats& stats,
                            std::size_t levels = std::size(kCheckpointing)) {
  Probed best{choice, SimTime::zero(), 0};
  bool tried = false;
  for (std::size_t level = 0; level < levels; ++level) {
    const ActivationCheckpointing checkpointing = kCheckpointing[level];
    choice.checkpointing = checkpointing;
    MemoryReport m;
    try {
      m = probe.memory(probe_layout(choice));
    } catch (const InputError& e) {
      if (checkpointing != ActivationCheckpointing::none) continue;  // the model has no such form: the next one
      ++stats.skipped[fmt::format("refused by the model at {}", e.key().empty() ? "its layout" : e.key())];
      return std::nullopt;
    }
    const double usable = static_cast<double>(m.capacity.value) * (1 - headroom);
    const double excess = static_cast<double>(m.total.value) - usable;
    if (excess <= 0) {
      try {
        return Probed{choice, probe.lower_bound(probe_layout(choice)), excess};
      } catch (const InputError& e) {
        ++stats.skipped[fmt::format("not simulated ({})", e.key().empty() ? "the layout" : e.key())];
        return std::nullopt;
      }
    }
    if (!tried || excess < best.excess) best = {choice, SimTime::zero(), excess};
    tried = true;
  }
  return best;
}

TrainingReport simulate(const std::filesystem::path& scenario, const SweepPoint& point, const LayoutChoice& choice,
                        bool global_batch_key, run::Workspace& workspace, std::vector<std::string>& overrides) {
  overrides = point.overrides;
  for (std::string& o : overrides_of(choice, global_batch_key)) overrides.push_back(std::move(o));
  return run::run_scenario(load_scenario(scenario, overrides), workspace).report;
}

// Whether `zero2` is `zero1`'s layout with ZeRO-2 for ZeRO-1: the same memory and compute but the gradients, and
// only more traffic (a reduce-scatter after every micro-batch), so never faster where ZeRO-1 fits as is.
bool zero1_twin(const LayoutChoice& zero1, const LayoutChoice& zero2) {
  return zero2.tensor == zero1.tensor && zero2.context == zero1.context && zero2.pipeline == zero1.pipeline &&
         zero2.virtual_stages == zero1.virtual_stages && zero2.expert == zero1.expert && zero2.data == zero1.data &&
         zero2.batch_per_gpu == zero1.batch_per_gpu && zero2.micro_batches == zero1.micro_batches &&
         zero2.tp_comm_overlap == zero1.tp_comm_overlap && zero2.userbuffers == zero1.userbuffers &&
         zero2.sequence_parallel == zero1.sequence_parallel && zero2.fp8_all_gather == zero1.fp8_all_gather &&
         zero2.grad_reduce_in_fp32 == zero1.grad_reduce_in_fp32;
}

std::string skip_summary(const SkipCounts& skipped) {
  std::string out;
  for (const auto& [reason, count] : skipped) out += fmt::format("{}{} ({})", out.empty() ? "" : "; ", reason, count);
  return out.empty() ? "none generated" : out;
}

}  // namespace

LayoutSearchStats& LayoutSearchStats::operator+=(const LayoutSearchStats& o) {
  candidates += o.candidates;
  for (const auto& [reason, count] : o.skipped) skipped[reason] += count;
  not_fitting += o.not_fitting;
  simulated += o.simulated;
  pruned += o.pruned;
  unexplored += o.unexplored;
  return *this;
}

SearchedPoint search_layouts(const std::filesystem::path& scenario, const SweepPoint& point, std::int64_t global_batch,
                             const LayoutSearchOptions& options, run::Workspace& workspace) {
  // The point with a plain layout, which loads at any count: a count the scenario's own layout (options.space.written)
  // cannot take is no error here, only no incumbent.
  const bool key = options.space.global_batch_key;
  const Scenario plain = probe_scenario(scenario, point, key);
  run::LayoutProbe prober(plain, workspace);
  const std::int64_t gpus = plain.cluster.workers
                                ? plain.cluster.workers->value
                                : static_cast<std::int64_t>(plain.cluster.built->topology.gpu_count());
  SearchedPoint out;
  std::vector<Probed> fitting;
  std::optional<Probed> closest;
  // The last ZeRO-1 candidate that fitted, with the index of its checkpointing in kCheckpointing. Its ZeRO-2 twin
  // has the same compute and more traffic, so it can only win by fitting with less recomputation: only those
  // lighter levels are tried for it.
  std::optional<std::pair<LayoutChoice, std::size_t>> zero1_fits;
  for (const LayoutChoice& choice : layout_choices(options.space, gpus, global_batch, out.stats.skipped)) {
    std::size_t levels = std::size(kCheckpointing);
    if (choice.sharding == ShardingLevel::gradients && zero1_fits && zero1_twin(zero1_fits->first, choice)) {
      levels = zero1_fits->second;
      if (levels == 0) {
        ++out.stats.skipped["ZeRO-2 where ZeRO-1 fits as is (the same memory need met, only more traffic)"];
        continue;
      }
    }
    const std::optional<Probed> p = probe(prober, choice, options.memory_headroom, out.stats, levels);
    if (p && levels < std::size(kCheckpointing) && p->excess > 0) {
      // No lighter recomputation fits: ZeRO-1's layout is as light and moves less.
      ++out.stats.skipped["ZeRO-2 needing as much recomputation as ZeRO-1 (only more traffic)"];
      continue;
    }
    ++out.stats.candidates;
    if (p && choice.sharding == ShardingLevel::optimizer && p->excess <= 0) {
      const auto* at = std::find(std::begin(kCheckpointing), std::end(kCheckpointing), p->choice.checkpointing);
      zero1_fits = {choice, static_cast<std::size_t>(at - std::begin(kCheckpointing))};
    }
    if (!p) continue;  // refused by the model, counted
    if (p->excess <= 0) {
      fitting.push_back(*p);
    } else {
      ++out.stats.not_fitting;
      if (!closest || p->excess < closest->excess) closest = p;
    }
  }
  if (fitting.empty() && !closest) {
    throw InputError(fmt::format("no layout of {} GPUs to try: {}", gpus, skip_summary(out.stats.skipped)),
                     SourceLocation{"--gpus"});
  }
  if (fitting.empty()) {
    out.label = label_of(closest->choice);
    out.report = simulate(scenario, point, closest->choice, key, workspace, out.overrides);
    out.stats.simulated = 1;
    return out;
  }
  // Ties in the bound go to the earlier candidate: the order of layout_choices, deterministic.
  std::stable_sort(fitting.begin(), fitting.end(), [](const Probed& a, const Probed& b) { return a.bound < b.bound; });
  std::optional<SimTime> best;
  const auto try_choice = [&](const LayoutChoice& choice) {
    // What candidates share is their routes (the workspace's router); their collectives seldom recur (another
    // layout, other groups and bucket sizes), and at a frontier count each outcome holds the traffic of a few hundred
    // thousand links: kept for the point, they were most of its memory (docs/performance.md).
    workspace.collectives().clear();
    std::vector<std::string> overrides;
    TrainingReport r;
    try {
      r = simulate(scenario, point, choice, key, workspace, overrides);
    } catch (const InputError& e) {
      // A layout the engine refuses (a run-cost budget it passes, which `syncsim run` of it meets the same way) is
      // left out like one the model refuses: counted by what refused it, never the end of the plan.
      ++out.stats.skipped[fmt::format("refused by the engine at {}", e.key().empty() ? "its layout" : e.key())];
      return;
    }
    keep_fastest(out, best, label_of(choice), std::move(overrides), std::move(r));
  };
  // The scenario's own layout first, when it fits as written: the search then only ever improves on it.
  std::string incumbent;  // its label
  const std::optional<LayoutChoice> own = own_layout(options.space, gpus, global_batch);
  const auto own_fits = [&] {
    try {
      return fits_with_headroom(prober.memory(probe_layout(*own)), options.memory_headroom);
    } catch (const InputError&) {
      return false;  // the model refuses it at this count: a plain candidate's fate
    }
  };
  if (own && own_fits()) {
    incumbent = label_of(*own);
    try_choice(*own);
    std::erase_if(fitting, [&](const Probed& p) { return label_of(p.choice) == incumbent; });
  }
  simulate_in_bound_order(
      fitting.size(), [&](std::size_t i) { return std::optional(fitting[i].bound); }, [&] { return best; },
      [&](std::size_t i) { try_choice(fitting[i].choice); }, options.max_simulations, out.stats);
  if (!best) {
    throw InputError(fmt::format("no layout of {} GPUs could be simulated: {}", gpus, skip_summary(out.stats.skipped)),
                     SourceLocation{"--gpus"});
  }
  return out;
}

void keep_fastest(SearchedPoint& out, std::optional<SimTime>& best, std::string label,
                  std::vector<std::string> overrides, TrainingReport report) {
  ++out.stats.simulated;
  if (best && report.iteration_mean >= *best) return;
  best = report.iteration_mean;
  out.label = std::move(label);
  out.overrides = std::move(overrides);
  out.report = std::move(report);
}

void simulate_in_bound_order(std::size_t count, const std::function<std::optional<SimTime>(std::size_t)>& bound,
                             const std::function<std::optional<SimTime>()>& best,
                             const std::function<void(std::size_t)>& simulate, std::int64_t max_simulations,
                             LayoutSearchStats& stats) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::optional<SimTime> floor = bound(i);
    const std::optional<SimTime> fastest = best();
    if (floor && fastest && *floor >= *fastest) {
      stats.pruned += static_cast<std::int64_t>(count - i);
      return;
    }
    if (stats.simulated >= max_simulations) {
      stats.unexplored += static_cast<std::int64_t>(count - i);
      return;
    }
    simulate(i);
  }
}

LayoutSpace layout_space(const Scenario& base) {
  const ModelSpec model = run::scenario_model(base);
  LayoutSpace space;
  space.batch_per_gpu = base.model.batch_per_gpu.value;
  space.tp_comm_overlap = base.parallelism.tp_comm_overlap.value;
  space.written = base.parallelism;
  space.global_batch_key = base.model.global_batch.has_value();
  if (const std::optional<TransformerStructure>& t = model.transformer()) {
    space.transformer = true;
    space.blocks = static_cast<std::int64_t>(t->blocks.size());
    space.sequence = t->sequence;
    space.experts = t->experts;
  }
  return space;
}

bool fits_with_headroom(const MemoryReport& memory, double headroom) {
  return static_cast<double>(memory.total.value) <= static_cast<double>(memory.capacity.value) * (1 - headroom);
}

std::string search_summary(const std::vector<SearchedPoint>& points, std::string_view noun, std::string_view space) {
  LayoutSearchStats all;
  for (const SearchedPoint& p : points) all += p.stats;
  std::string out =
      fmt::format("{}: {} candidates over {} points ({}); {} simulated, {} pruned by their lower bound, {} do not fit",
                  noun, all.candidates, points.size(), space, all.simulated, all.pruned, all.not_fitting);
  if (all.unexplored > 0) {
    out += fmt::format(", {} below the best bound left unsimulated by --max-simulations", all.unexplored);
  }
  for (const auto& [reason, count] : all.skipped) out += fmt::format("; skipped {}: {}", count, reason);
  return out;
}

}  // namespace syncsim::planner
