#include "syncsim/planner/layout_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "syncsim/core/input_error.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::planner {

namespace {

constexpr std::int64_t kTensorSizes[] = {1, 2, 4, 8};
constexpr std::int64_t kPipelineSizes[] = {1, 2, 4, 8, 16};
constexpr const char* kShardings[] = {"none", "optimizer", "full"};

struct Layout {
  std::int64_t tensor = 1;
  std::int64_t pipeline = 1;
  std::string sharding;
  bool checkpointed = false;
  std::int64_t micro_batches = 1;  // per iteration, so that every layout trains the same global batch
};

std::vector<std::string> overrides_of(const Layout& l) {
  return {fmt::format("parallelism.tensor={}", l.tensor),
          fmt::format("parallelism.pipeline={}", l.pipeline),
          "parallelism.context=1",
          "parallelism.expert=1",
          "parallelism.shard_group=all",
          "parallelism.sharding=" + l.sharding,
          std::string("parallelism.activation_checkpointing=") + (l.checkpointed ? "full" : "none"),
          fmt::format("model.micro_batches={}", l.micro_batches)};
}

std::string label_of(const Layout& l, std::int64_t gpus) {
  const std::int64_t data = gpus / (l.tensor * l.pipeline);
  return fmt::format("TP{} PP{} DP{} {} mb{}{}", l.tensor, l.pipeline, data, l.sharding, l.micro_batches,
                     l.checkpointed ? " +ckpt" : "");
}

// The layouts of n GPUs before the memory check (the model's blocks bound the pipeline; none: data only), each
// with the micro-batches that keep the global batch at `samples` per iteration per per-GPU batch (the scenario's
// own layout's data-parallel size x its micro-batches): a layout that cannot is left out.
std::vector<Layout> layouts_of(std::int64_t gpus, std::int64_t blocks, std::int64_t samples) {
  std::vector<Layout> out;
  for (const std::int64_t t : kTensorSizes) {
    for (const std::int64_t p : kPipelineSizes) {
      if (blocks == 0 && (t > 1 || p > 1)) continue;
      if (p > std::max<std::int64_t>(blocks, 1) || gpus % (t * p) != 0) continue;
      const std::int64_t data = gpus / (t * p);
      if (samples % data != 0) continue;
      for (const char* sharding : kShardings) {
        if (data < 2 && std::string(sharding) != "none") continue;  // nothing to shard over
        out.push_back({t, p, sharding, false, samples / data});
      }
    }
  }
  return out;
}

// The scenario's global batch at this size, in per-GPU batches: its own layout's data-parallel size x micro-batches.
std::int64_t global_batches(const Scenario& s, std::int64_t gpus) {
  const ParallelismConfig& p = s.parallelism;
  const std::int64_t split = p.tensor.value * p.pipeline.value * p.context.value;
  return std::max<std::int64_t>(1, gpus / split) * s.model.micro_batches;
}

}  // namespace

std::vector<LayoutCandidate> layout_candidates(const std::filesystem::path& scenario,
                                               const std::vector<SweepPoint>& points) {
  std::vector<LayoutCandidate> out;
  for (const SweepPoint& point : points) {
    const Scenario base = load_scenario(scenario, point.overrides);
    const ModelSpec model = run::scenario_model(base);
    const auto blocks = static_cast<std::int64_t>(model.transformer() ? model.transformer()->blocks.size() : 0);
    const std::int64_t gpus = base.cluster.workers ? base.cluster.workers->value : 0;
    std::optional<LayoutCandidate> closest;
    double closest_excess = 0;
    bool any = false;
    for (Layout layout : layouts_of(gpus, blocks, global_batches(base, gpus))) {
      for (const bool checkpointed : {false, true}) {
        if (checkpointed && blocks == 0) break;
        layout.checkpointed = checkpointed;
        SweepPoint run = point;
        for (std::string& o : overrides_of(layout)) run.overrides.push_back(std::move(o));
        MemoryReport m;
        try {
          m = run::scenario_memory(load_scenario(scenario, run.overrides));
        } catch (const InputError&) {
          break;  // a layout the model refuses (its heads or experts do not split so): not a candidate
        }
        LayoutCandidate candidate{point.index, label_of(layout, gpus), std::move(run)};
        if (m.fits) {
          candidate.run.index = out.size();
          out.push_back(std::move(candidate));
          any = true;
          break;  // checkpointing only where the layout does not fit without it
        }
        const double excess = static_cast<double>(m.total.value) - static_cast<double>(m.capacity.value);
        if (!closest || excess < closest_excess) {
          closest = std::move(candidate);
          closest_excess = excess;
        }
      }
    }
    if (!any && closest) {
      closest->run.index = out.size();
      out.push_back(std::move(*closest));
    }
    if (!any && !closest) throw InputError(fmt::format("no layout of {} GPUs to try", gpus), SourceLocation{"--gpus"});
  }
  return out;
}

std::vector<PlanPoint> best_layouts(const std::vector<LayoutCandidate>& candidates, std::vector<PlanPoint> results,
                                    std::size_t points) {
  std::vector<std::optional<PlanPoint>> best(points);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    PlanPoint& p = results[i];
    p.layout = candidates[i].label;
    std::optional<PlanPoint>& b = best[candidates[i].point];
    const bool better = !b || (p.fits && !b->fits) || (p.fits == b->fits && p.samples_per_s > b->samples_per_s);
    if (better) b = std::move(p);
  }
  std::vector<PlanPoint> out;
  for (std::optional<PlanPoint>& b : best) {
    if (!b) throw InputError("plan: a point without layouts");
    out.push_back(std::move(*b));
  }
  return out;
}

void rebase_on_smallest(std::vector<PlanPoint>& points) {
  std::map<std::pair<std::string, std::string>, const PlanPoint*> smallest;
  for (const PlanPoint& p : points) {
    if (!p.fits || p.samples_per_s <= 0) continue;
    const PlanPoint*& s = smallest[{p.gpu, p.network}];
    if (s == nullptr || p.gpus < s->gpus) s = &p;
  }
  std::map<std::pair<std::string, std::string>, double> per_gpu;
  for (const auto& [key, p] : smallest) per_gpu[key] = p->samples_per_s / static_cast<double>(p->gpus);
  for (PlanPoint& p : points) {
    const auto found = per_gpu.find({p.gpu, p.network});
    if (found == per_gpu.end()) continue;
    p.single_gpu_samples_per_s = found->second;
    p.scaling_efficiency = p.samples_per_s / (static_cast<double>(p.gpus) * found->second);
  }
}

}  // namespace syncsim::planner
