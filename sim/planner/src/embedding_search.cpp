#include "syncsim/planner/embedding_search.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/plan_batch.hpp"
#include "syncsim/run/recommendation_probe.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim::planner {

namespace {

// TorchRec's planner splits a column-wise table into shards of this many columns unless told otherwise
// (torchrec/distributed/planner/constants.py, DEFAULT_CW_DIM).
constexpr std::int64_t kColumnShardDim = 32;

struct Option {
  std::string request;  // the YAML request
  std::string label;
};

std::string cached(const std::string& type, const std::string& extra) {
  return fmt::format("{{type: {}{}, compute_kernel: fused_uvm_caching, cache_load_factor: {}}}", type, extra,
                     kDefaultCacheLoadFactor);
}

// The large tables' options (see the header); column-wise only where the dimension splits into shards of 32 that the
// GPUs can hold one each.
std::vector<Option> large_options(std::int64_t dim, std::int64_t workers) {
  const std::int64_t shards = dim % kColumnShardDim == 0 ? dim / kColumnShardDim : 0;
  const bool columns = shards >= 2 && shards <= workers;
  const std::string cw = fmt::format(", shards: {}", shards);
  const std::string factor = fmt::format("{}", kDefaultCacheLoadFactor);
  std::vector<Option> out{{"table_wise", "table_wise"}, {"row_wise", "row_wise"}};
  if (columns) out.push_back({fmt::format("{{type: column_wise{}}}", cw), fmt::format("column_wise x{}", shards)});
  out.push_back({cached("table_wise", ""), "table_wise fused_uvm_caching " + factor});
  out.push_back({cached("row_wise", ""), "row_wise fused_uvm_caching " + factor});
  if (columns) {
    out.push_back({cached("column_wise", cw), fmt::format("column_wise x{} fused_uvm_caching {}", shards, factor)});
  }
  out.push_back({"{type: row_wise, compute_kernel: fused_uvm}", "row_wise fused_uvm"});
  out.push_back({"{type: table_wise, compute_kernel: fused_uvm}", "table_wise fused_uvm"});
  return out;
}

struct Candidate {
  EmbeddingMix mix;
  SimTime bound;
};

// A candidate's scenario: the point's overrides, the batch the point holds, the mix's.
std::vector<std::string> overrides_for(const SweepPoint& point, const std::vector<std::string>& batch,
                                       const std::vector<std::string>& mix) {
  std::vector<std::string> out = point.overrides;
  out.insert(out.end(), batch.begin(), batch.end());
  out.insert(out.end(), mix.begin(), mix.end());
  return out;
}

// The batch per GPU that holds `global_batch` at the point's count, as an override when it differs.
std::vector<std::string> batch_overrides(const std::filesystem::path& scenario, const SweepPoint& point,
                                         std::int64_t global_batch) {
  const Scenario s = load_scenario(scenario, point.overrides);
  const std::int64_t gpus = point_gpus(point);
  const std::int64_t per_gpu = gpus * s.model.micro_batches;
  if (global_batch % per_gpu != 0) {
    throw InputError(fmt::format("{} samples per iteration do not divide over {} GPUs x {} micro-batches", global_batch,
                                 gpus, s.model.micro_batches),
                     SourceLocation{"--gpus"});
  }
  if (global_batch / per_gpu == s.model.batch_per_gpu.value) return {};
  return {fmt::format("model.batch_per_gpu={}", global_batch / per_gpu)};
}

// Whether a probed placement's host memory fits every GPU's host share (none used always fits).
bool host_fits(const run::RecommendationMemory& m) {
  return m.host_on_fullest.value == 0 || (m.host_capacity && m.host_on_fullest <= *m.host_capacity);
}

// Whether a probed placement fits: the fullest GPU with the headroom kept, and every GPU's host share.
bool probe_fits(const run::RecommendationProbe& p, double headroom) {
  return host_fits(p.memory) && fits_with_headroom(p.memory.report, headroom);
}

std::string reason(const InputError& e) {
  return fmt::format("refused by the model at {}", e.key().empty() ? "its placement" : e.key());
}

// Tables on parameter servers: the server counts, the most first.
std::vector<EmbeddingMix> server_counts(const Scenario& s, std::int64_t workers) {
  std::set<std::int64_t, std::greater<>> counts{s.training.parameter_servers.count.value};
  for (std::int64_t c = 1; c <= workers; c *= 2) counts.insert(c);
  std::vector<EmbeddingMix> out;
  for (std::int64_t c : counts) {
    out.push_back({fmt::format("{} server(s)", c), {fmt::format("training.parameter_servers.count={}", c)}});
  }
  return out;
}

}  // namespace

bool searches_embeddings(const Scenario& base) {
  return base.model.recommendation.shape.has_value() ||
         (base.model.layers.empty() && !base.model.transformer && find_recommendation(base.model.name.value));
}

std::vector<EmbeddingMix> embedding_mixes(const std::vector<EmbeddingTable>& tables, std::int64_t workers) {
  double total = 0;
  for (const EmbeddingTable& t : tables) total += static_cast<double>(t.rows) * static_cast<double>(t.dim);
  // Large: above the mean table, the few that hold most of the parameters and decide the placement.
  std::vector<std::string> large;
  for (const EmbeddingTable& t : tables) {
    if (static_cast<double>(t.rows) * static_cast<double>(t.dim) * static_cast<double>(tables.size()) > total) {
      large.push_back(t.name);
    }
  }
  const std::size_t small = tables.size() - large.size();
  const std::vector<Option> small_options{
      {"table_wise", "table_wise"}, {"row_wise", "row_wise"}, {"data_parallel", "data_parallel"}};
  const std::vector<Option> big =
      large.empty() ? std::vector<Option>{{"", ""}} : large_options(tables.empty() ? 0 : tables[0].dim, workers);
  std::vector<EmbeddingMix> out;
  for (const Option& l : big) {
    for (const Option& s : small > 0 ? small_options : std::vector<Option>{{"table_wise", ""}}) {
      std::string map = fmt::format("{{default: {}", s.request);
      for (const std::string& name : large) map += fmt::format(", {}: {}", name, l.request);
      std::vector<std::string> parts;
      if (!large.empty()) parts.push_back(fmt::format("{} {}", fmt::join(large, ","), l.label));
      if (small > 0) parts.push_back(fmt::format("{} {}", large.empty() ? "all" : "others", s.label));
      out.push_back({fmt::format("{}", fmt::join(parts, "; ")), {fmt::format("model.embedding_sharding={}}}", map)}});
    }
  }
  return out;
}

SearchedPoint search_embedding_placements(const std::filesystem::path& scenario, const SweepPoint& point,
                                          std::int64_t global_batch, const LayoutSearchOptions& options,
                                          run::Workspace& workspace) {
  const std::vector<std::string> batch = batch_overrides(scenario, point, global_batch);
  const Scenario own = load_scenario(scenario, overrides_for(point, batch, {}));
  const RecommendationShape shape = own.model.recommendation.shape ? own.model.recommendation.shape->value
                                                                   : *find_recommendation(own.model.name.value);
  const std::int64_t gpus = point_gpus(point);
  const bool servers = own.training.communication.value == Communication::parameter_server;
  std::vector<EmbeddingMix> mixes = servers ? server_counts(own, gpus) : embedding_mixes(shape.tables, gpus);
  mixes.insert(mixes.begin(), EmbeddingMix{"the scenario's placement", {}});
  SearchedPoint out;
  std::vector<Candidate> fitting;
  std::optional<std::pair<Candidate, double>> closest;  // the nearest to fitting, by its GPU's excess bytes
  for (const EmbeddingMix& mix : mixes) {
    ++out.stats.candidates;
    std::optional<run::RecommendationProbe> probe;
    try {
      probe = run::probe_recommendation(load_scenario(scenario, overrides_for(point, batch, mix.overrides)), workspace);
    } catch (const InputError& e) {
      ++out.stats.skipped[reason(e)];
      continue;
    }
    if (servers || probe_fits(*probe, options.memory_headroom)) {
      fitting.push_back({mix, probe->lower_bound});
      continue;
    }
    ++out.stats.not_fitting;
    const MemoryReport& m = probe->memory.report;
    const double excess = static_cast<double>(m.total.value) - static_cast<double>(m.capacity.value);
    if (host_fits(probe->memory) && (!closest || excess < closest->second)) {
      closest = {{mix, SimTime::zero()}, excess};
    }
  }
  std::optional<SimTime> best;
  const auto try_mix = [&](const EmbeddingMix& mix) {
    std::vector<std::string> overrides = overrides_for(point, batch, mix.overrides);
    TrainingReport r;
    try {
      r = run::run_scenario(load_scenario(scenario, overrides), workspace).report;
    } catch (const InputError& e) {
      ++out.stats.skipped[fmt::format("refused by the engine at {}", e.key().empty() ? "its placement" : e.key())];
      return;
    }
    keep_fastest(out, best, mix.label, std::move(overrides), std::move(r));
  };
  if (fitting.empty() && closest) try_mix(closest->first.mix);
  // The scenario's own placement first when it fits (the search then only improves on it), the rest by bound; the
  // servers' counts in their order (the most first), unbounded.
  const auto own_first = fitting.begin() != fitting.end() && fitting.front().mix.overrides.empty();
  std::stable_sort(fitting.begin() + (own_first ? 1 : 0), fitting.end(),
                   [](const Candidate& a, const Candidate& b) { return a.bound < b.bound; });
  simulate_in_bound_order(
      fitting.size(), [&](std::size_t i) { return servers ? std::nullopt : std::optional(fitting[i].bound); },
      [&] { return best; }, [&](std::size_t i) { try_mix(fitting[i].mix); }, options.max_simulations, out.stats);
  if (!best) {
    std::string skipped;
    for (const auto& [why, count] : out.stats.skipped) skipped += fmt::format("; {} ({})", why, count);
    throw InputError(fmt::format("no embedding placement of {} GPUs could be simulated: {} do not fit{}", gpus,
                                 out.stats.not_fitting, skipped),
                     SourceLocation{"--gpus"});
  }
  return out;
}

std::string embedding_search_summary(const std::vector<SearchedPoint>& points) {
  return search_summary(points, "embedding placements",
                        "the scenario's, and sharding x compute kernel mixes of the large and the small tables, or "
                        "server counts");
}

}  // namespace syncsim::planner
