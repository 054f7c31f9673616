// The keys of a scenario with several jobs (jobs_config.hpp, docs/jobs.md): `jobs:`, `placement:`, `background:`
// and `window_iterations:`. Each job's model, training and parallelism go through the single-job readers; their
// errors get the job's key in front ("jobs[1].model.batch_per_gpu").
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>

#include "enum_names.hpp"
#include "field_reader.hpp"
#include "sections.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/scenario/global_batch.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

namespace syncsim {

std::string_view to_string(PlacementPolicy policy) {
  switch (policy) {
    case PlacementPolicy::packed:
      return "packed";
    case PlacementPolicy::rail:
      return "rail";
    case PlacementPolicy::spread:
      return "spread";
    case PlacementPolicy::random:
      return "random";
    case PlacementPolicy::explicit_nodes:
      return "explicit";
  }
  return "packed";
}

Scenario job_scenario(const JobsScenario& scenario, std::size_t job) {
  const JobConfig& config = scenario.config.jobs.at(job);
  Scenario out;
  out.source = scenario.base.source;
  out.name = config.name.value;
  out.seed = scenario.base.seed;
  out.cluster = scenario.base.cluster;
  out.cluster.workers = config.gpus;
  out.model = config.model;
  out.training = config.training;
  out.parallelism = config.parallelism;
  return out;
}

namespace scenario_detail {

namespace {

constexpr std::array<std::pair<std::string_view, PlacementPolicy>, 4> kPlacementNames{
    {{"packed", PlacementPolicy::packed},
     {"rail", PlacementPolicy::rail},
     {"spread", PlacementPolicy::spread},
     {"random", PlacementPolicy::random}}};

// `make()`, with an error's key path put under the job's ("model.x" -> "jobs[1].model.x").
template <typename F>
auto in_job(std::size_t job, F&& make) {
  try {
    return make();
  } catch (const InputError& e) {
    if (e.key().starts_with("jobs[")) throw;
    throw InputError(e.message(), e.where(), fmt::format("jobs[{}]{}{}", job, e.key().empty() ? "" : ".", e.key()));
  }
}

JobConfig read_job(const ConfigNode& node, std::size_t index, const std::filesystem::path& base_dir,
                   bool has_calibration) {
  const std::string path = item_path("jobs", index);
  const MapReader reader(node, path, {"name", "gpus", "model", "parallelism", "training"});
  JobConfig job;
  const ConfigNode& name = reader.require("name", "the job's name, as the report and placement name it");
  job.name = located(read_text(name, reader.path("name")), name, reader.path("name"));
  if (job.name.value.empty()) fail(name, reader.path("name"), "expected a job name");
  const ConfigNode& gpus = reader.require("gpus", "how many GPUs the job trains on");
  job.gpus = located(read_count(gpus, reader.path("gpus"), 1), gpus, reader.path("gpus"));
  ConfigNode absent;
  absent.where = SourceLocation{node.where.source, 0, 0};
  const auto section = [&](std::string_view key) -> const ConfigNode& {
    const ConfigNode* found = reader.get(key);
    return found ? *found : absent;
  };
  const ConfigNode& model = reader.require("model", "a catalog name or layers, and batch_per_gpu");
  in_job(index, [&] {
    job.model = read_model(model, base_dir);
    job.training = read_training(section("training"), has_calibration);
    job.parallelism = read_parallelism(section("parallelism"), base_dir);
    return 0;
  });
  return job;
}

std::vector<Located<std::int64_t>> read_node_set(const ConfigNode& node, const std::string& path) {
  std::vector<Located<std::int64_t>> out;
  if (node.kind != ConfigNode::Kind::sequence) {
    out.push_back(located(read_count(node, path, 0), node, path));
    return out;
  }
  if (node.items.empty()) fail(node, path, "expected a node index or a non-empty list of them");
  if (static_cast<std::int64_t>(node.items.size()) > kMaxBackgroundFlows) {
    fail(node, path, fmt::format("expected at most {} nodes", kMaxBackgroundFlows));
  }
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    out.push_back(located(read_count(node.items[i], item_path(path, i), 0), node.items[i], item_path(path, i)));
  }
  return out;
}

PlacementConfig read_placement(const ConfigNode& node, const std::vector<JobConfig>& jobs) {
  PlacementConfig placement;
  if (node.kind != ConfigNode::Kind::mapping) {
    placement.policy = located(read_choice(node, "placement", kPlacementNames), node, "placement");
    return placement;
  }
  placement.policy = located(PlacementPolicy::explicit_nodes, node, "placement");
  for (const ConfigEntry& entry : node.entries) {
    const std::string path = child_path("placement", entry.key);
    const bool known =
        std::any_of(jobs.begin(), jobs.end(), [&](const JobConfig& j) { return j.name.value == entry.key; });
    if (!known) fail(entry.value, path, fmt::format("no job is named '{}'", entry.key));
    if (entry.value.kind != ConfigNode::Kind::sequence || entry.value.items.empty()) {
      fail(entry.value, path, "expected the job's nodes, a list of node indices like [0, 1]");
    }
    placement.explicit_nodes.push_back(
        JobNodes{located(entry.key, entry.value, path), read_node_set(entry.value, path)});
  }
  for (const JobConfig& job : jobs) {
    const bool placed = std::any_of(placement.explicit_nodes.begin(), placement.explicit_nodes.end(),
                                    [&](const JobNodes& n) { return n.job.value == job.name.value; });
    if (!placed) fail(node, "placement", fmt::format("job '{}' has no node list", job.name.value));
  }
  return placement;
}

BackgroundConfig read_background_entry(const ConfigNode& node, const std::string& path) {
  const MapReader reader(node, path, {"between", "link_class", "rate", "burst"});
  BackgroundConfig bg;
  bg.where = node.where;
  bg.key = path;
  const ConfigNode* between = reader.get("between");
  const ConfigNode* link_class = reader.get("link_class");
  if ((between != nullptr) == (link_class != nullptr)) {
    fail(node, path, "expected one of between: [A, B] (two nodes or node lists) or link_class: CLASS");
  }
  if (between) {
    const std::string at = reader.path("between");
    const auto& ends = read_list(*between, at);
    if (ends.size() != 2) fail(*between, at, "expected [A, B]: two nodes, or two lists of nodes");
    bg.from = read_node_set(ends[0], item_path(at, 0));
    bg.to = read_node_set(ends[1], item_path(at, 1));
    if (static_cast<std::int64_t>(bg.from.size() * bg.to.size()) > kMaxBackgroundFlows) {
      fail(*between, at, fmt::format("expected at most {} node pairs", kMaxBackgroundFlows));
    }
  } else {
    const std::string at = reader.path("link_class");
    const std::string text = read_text(*link_class, at);
    if (std::find(kBackgroundLinkClasses.begin(), kBackgroundLinkClasses.end(), text) == kBackgroundLinkClasses.end()) {
      fail(*link_class, at, choice_message(text, kBackgroundLinkClasses));
    }
    bg.link_class = located(text, *link_class, at);
  }
  const ConfigNode& rate = reader.require("rate", "a bandwidth like 100Gbps");
  bg.rate = located(read_bandwidth(rate, reader.path("rate")), rate, reader.path("rate"));
  if (const ConfigNode* burst = reader.get("burst")) {
    const SimTime b = read_duration(*burst, reader.path("burst"));
    if (b <= SimTime::zero()) fail(*burst, reader.path("burst"), "expected a mean burst above zero, like 2ms");
    bg.burst = located(b, *burst, reader.path("burst"));
  }
  return bg;
}

}  // namespace

JobsConfig read_jobs(const MapReader& root, const std::filesystem::path& base_dir, bool has_calibration) {
  JobsConfig config;
  const ConfigNode& jobs = root.require("jobs");
  const auto& items = read_list(jobs, "jobs");
  if (items.empty()) fail(jobs, "jobs", "expected a list of jobs, each {name, gpus, model, ...}");
  if (static_cast<std::int64_t>(items.size()) > kMaxJobs) {
    fail(jobs, "jobs", fmt::format("expected at most {} jobs, got {}", kMaxJobs, items.size()));
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < items.size(); ++i) {
    config.jobs.push_back(read_job(items[i], i, base_dir, has_calibration));
    const Located<std::string>& name = config.jobs.back().name;
    if (!names.insert(name.value).second) throw name.error(fmt::format("job name '{}' is used twice", name.value));
  }
  const ConfigNode* placement = root.get("placement");
  config.placement.policy = root.defaulted("placement", PlacementPolicy::packed);
  if (placement) config.placement = read_placement(*placement, config.jobs);
  if (const ConfigNode* background = root.get("background")) {
    const auto& entries = read_list(*background, "background");
    if (static_cast<std::int64_t>(entries.size()) > kMaxBackground) {
      fail(*background, "background", fmt::format("expected at most {} entries", kMaxBackground));
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      config.background.push_back(read_background_entry(entries[i], item_path("background", i)));
    }
  }
  config.window_iterations = root.defaulted("window_iterations", kDefaultWindowIterations);
  if (const ConfigNode* window = root.get("window_iterations")) {
    const std::int64_t n = read_count(*window, "window_iterations", 1);
    if (n > kMaxWindowIterations) {
      fail(*window, "window_iterations", fmt::format("expected at most {} iterations", kMaxWindowIterations));
    }
    config.window_iterations = located(n, *window, "window_iterations");
  }
  return config;
}

void check_jobs(JobsScenario& scenario, const Topology& topology) {
  const auto available = static_cast<std::int64_t>(topology.gpu_count());
  std::int64_t used = 0;
  auto& jobs = scenario.config.jobs;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Located<std::int64_t>& gpus = jobs[i].gpus;
    if (gpus.value > available - used) {
      throw gpus.error(
          fmt::format("job '{}' does not fit: it needs {} GPUs and the jobs before it leave {} of the "
                      "cluster's {}",
                      jobs[i].name.value, gpus.value, available - used, available));
    }
    used += gpus.value;
    Scenario job = job_scenario(scenario, i);
    in_job(i, [&] {
      check_across_sections(job);
      check_against_topology(job, topology);
      derive_micro_batches(job, gpus.value);
      return 0;
    });
    jobs[i].model = job.model;
  }
}

}  // namespace scenario_detail

namespace {

using namespace scenario_detail;

// A scenario with several jobs: name, seed and cluster as any scenario has them, then the jobs. The single-job keys
// the co-simulation does not model yet are refused by name (docs/jobs.md, "Not modelled yet").
JobsScenario read_jobs_scenario(const ConfigNode& root, const std::string& source,
                                const std::filesystem::path& base_dir) {
  const MapReader reader(root, "",
                         {"name", "seed", "cluster", "jobs", "placement", "background", "window_iterations", "model",
                          "training", "parallelism", "stragglers", "degraded_links", "faults", "checkpoint",
                          "detection_timeout", "reliability", "calibration", "strict_calibration", "convergence"});
  for (const char* key : {"model", "training", "parallelism"}) {
    if (const ConfigNode* node = reader.get(key)) fail(*node, key, "with jobs:, each job has its own (jobs[i].KEY)");
  }
  for (const char* key : {"stragglers", "degraded_links", "faults", "checkpoint", "detection_timeout", "reliability",
                          "calibration", "strict_calibration", "convergence"}) {
    if (const ConfigNode* node = reader.get(key)) {
      fail(*node, key, "not modelled with jobs: yet (docs/jobs.md, \"Not modelled yet\")");
    }
  }
  JobsScenario scenario;
  read_identity(reader, source, scenario.base);
  scenario.base.cluster = read_cluster(reader.require("cluster", "the GPU and the topology"), base_dir);
  scenario.config = read_jobs(reader, base_dir, false);
  auto built = built_scenario_topology(scenario.base);
  check_jobs(scenario, built->topology);
  scenario.base.cluster.built = std::move(built);
  return scenario;
}

std::optional<JobsScenario> jobs_in(std::string_view yaml, const std::string& source,
                                    const std::filesystem::path& base_dir, const std::vector<std::string>& overrides) {
  const ConfigNode root = scenario_tree(yaml, source, overrides);
  if (root.kind != ConfigNode::Kind::mapping || !root.find("jobs")) return std::nullopt;
  return read_jobs_scenario(root, source, base_dir);
}

}  // namespace

std::optional<JobsScenario> load_jobs_scenario(const std::filesystem::path& file,
                                               const std::vector<std::string>& overrides) {
  const std::string text = read_input_file(file, "scenario file");
  const std::filesystem::path base_dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  return jobs_in(text, file.string(), base_dir, overrides);
}

std::optional<JobsScenario> parse_jobs_scenario(std::string_view yaml, std::string_view source,
                                                const std::vector<std::string>& overrides) {
  return jobs_in(yaml, std::string(source), {}, overrides);
}

}  // namespace syncsim
