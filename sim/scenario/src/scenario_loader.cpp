// Loading a scenario: read the file, parse it into a ConfigNode tree, apply `--set` overrides, then read and
// check each section (sections.hpp) and the whole against the topology it describes.
#include "syncsim/scenario/scenario_loader.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "config_tree.hpp"
#include "field_reader.hpp"
#include "overrides.hpp"
#include "sections.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/scenario/global_batch.hpp"

namespace syncsim {

namespace {

using namespace scenario_detail;

const ConfigNode& section(const MapReader& reader, std::string_view key, const ConfigNode& absent) {
  const ConfigNode* node = reader.get(key);
  return node ? *node : absent;
}

}  // namespace

void scenario_detail::read_identity(const MapReader& reader, const std::string& source, Scenario& scenario) {
  scenario.source = source;
  const ConfigNode* name = reader.get("name");
  scenario.name = name ? read_text(*name, "name") : std::filesystem::path(source).stem().string();
  // The name is the output folder syncsim-out/NAME: a name, not a path that could lead out of syncsim-out/.
  const std::string& n = scenario.name;
  const auto path_char = [](char c) { return c == '/' || c == '\\' || (c >= 0 && c < 0x20); };
  if (name && (n.find("..") != n.npos || n.starts_with('.') || std::any_of(n.begin(), n.end(), path_char))) {
    fail(*name, "name",
         "expected a plain name, the output folder syncsim-out/NAME (no '/', '\\', '..', control characters or "
         "leading '.')");
  }
  // A folder name of spaces hides in a listing, and file systems refuse one past 255 bytes (found by fuzzing: a
  // 300-character name failed at the folder, after the run, with no key).
  constexpr std::size_t kMaxNameBytes = 200;
  if (name && (n.size() > kMaxNameBytes || (!n.empty() && (n.front() == ' ' || n.back() == ' ')))) {
    fail(*name, "name",
         fmt::format("expected a plain name of at most {} bytes, without spaces at either end (the output folder "
                     "syncsim-out/NAME), got {} bytes",
                     kMaxNameBytes, n.size()));
  }
  if (scenario.name.empty()) scenario.name = "scenario";
  if (const ConfigNode* seed = reader.get("seed"))
    scenario.seed = static_cast<std::uint64_t>(read_count(*seed, "seed", 0));
}

namespace {

Scenario read_scenario(const ConfigNode& root, const std::string& source, const std::filesystem::path& base_dir) {
  if (root.kind != ConfigNode::Kind::mapping) {
    fail(root, "",
         fmt::format("expected a scenario mapping (cluster:, model:, training:, ...), got {}",
                     root.kind == ConfigNode::Kind::null ? "an empty document" : describe(root)));
  }
  const MapReader reader(root, "",
                         {"name", "seed", "cluster", "model", "training", "parallelism", "stragglers", "degraded_links",
                          "faults", "checkpoint", "detection_timeout", "reliability", "calibration",
                          "strict_calibration", "convergence", "jobs", "placement", "background", "window_iterations"});
  if (const ConfigNode* jobs = reader.get("jobs")) {
    fail(*jobs, "jobs",
         "a scenario with several jobs runs with `syncsim run`, `syncsim plan` and `syncsim-gui` only (docs/jobs.md)");
  }
  for (const char* key : {"placement", "background", "window_iterations"}) {
    if (const ConfigNode* node = reader.get(key)) fail(*node, key, "needs jobs: beside it (docs/jobs.md)");
  }
  ConfigNode absent;
  absent.where = SourceLocation{source, 0, 0};

  Scenario scenario;
  read_identity(reader, source, scenario);
  if (const ConfigNode* calibration = reader.get("calibration")) {
    std::filesystem::path path(read_text(*calibration, "calibration", "a file path"));
    if (path.is_relative() && !base_dir.empty()) path = (base_dir / path).lexically_normal();
    scenario.calibration = located(path.string(), *calibration, "calibration");
  }
  if (const ConfigNode* strict = reader.get("strict_calibration")) {
    if (!scenario.calibration) fail(*strict, "strict_calibration", "needs a calibration file beside it (calibration:)");
    scenario.strict_calibration = located(read_bool(*strict, "strict_calibration"), *strict, "strict_calibration");
  }
  scenario.cluster = read_cluster(reader.require("cluster", "the GPU and the topology"), base_dir);
  scenario.model = read_model(reader.require("model", "a catalog name or layers, and batch_per_gpu"), base_dir);
  scenario.training = read_training(section(reader, "training", absent), scenario.calibration.has_value());
  scenario.parallelism = read_parallelism(section(reader, "parallelism", absent), base_dir);
  scenario.stragglers = read_stragglers(section(reader, "stragglers", absent));
  scenario.degraded_links = read_degraded_links(section(reader, "degraded_links", absent));
  scenario.faults = read_faults(section(reader, "faults", absent), scenario.training.strategy.value);
  scenario.checkpoint = read_checkpoint(section(reader, "checkpoint", absent));
  if (const ConfigNode* timeout = reader.get("detection_timeout")) {
    scenario.detection_timeout = read_duration(*timeout, "detection_timeout");
  }
  if (const ConfigNode* reliability = reader.get("reliability")) scenario.reliability = read_reliability(*reliability);
  if (const ConfigNode* convergence = reader.get("convergence")) scenario.convergence = read_convergence(*convergence);
  check_across_sections(scenario);
  auto built = built_scenario_topology(scenario);
  check_against_topology(scenario, built->topology);
  const auto gpus = static_cast<std::int64_t>(built->topology.gpu_count());
  derive_micro_batches(scenario, scenario.cluster.workers ? scenario.cluster.workers->value : gpus);
  scenario.cluster.built = std::move(built);
  return scenario;
}

Scenario parse_in(std::string_view yaml, const std::string& source, const std::filesystem::path& base_dir,
                  const std::vector<std::string>& overrides) {
  return read_scenario(scenario_tree(yaml, source, overrides), source, base_dir);
}

}  // namespace

ConfigNode scenario_detail::scenario_tree(std::string_view yaml, const std::string& source,
                                          const std::vector<std::string>& overrides) {
  ConfigNode root = parse_config(yaml, source);
  if (!overrides.empty()) {
    if (root.kind == ConfigNode::Kind::null) root.where = SourceLocation{source, 1, 1};
    apply_overrides(root, overrides);
  }
  return root;
}

Scenario load_scenario(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
  const std::string source = file.string();
  const std::string text = read_input_file(file, "scenario file");
  const std::filesystem::path base_dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  return parse_in(text, source, base_dir, overrides);
}

Scenario parse_scenario(std::string_view yaml, std::string_view source, const std::vector<std::string>& overrides) {
  return parse_in(yaml, std::string(source), {}, overrides);
}

Topology build_scenario_topology(const Scenario& scenario) {
  try {
    return build_topology(scenario.cluster.topology);
  } catch (const InputError& error) {
    // An error inside a topology file (a DOT attribute on some line of it) keeps that file's own key.
    if (error.where() && error.where()->line > 0 && error.where()->source != scenario.source) throw;
    // Generators name their own keys ("nodes"); in a scenario they live under cluster.topology.
    const std::string key = error.key().empty() ? "cluster.topology" : "cluster.topology." + error.key();
    throw InputError(error.message(), error.where(), key);
  }
}

std::shared_ptr<const Topology> scenario_topology(const Scenario& scenario) {
  const ClusterConfig& cluster = scenario.cluster;
  if (cluster.built && cluster.built->kind == cluster.topology.kind &&
      cluster.built->params == cluster.topology.params) {
    return {cluster.built, &cluster.built->topology};  // shares the loader's
  }
  const std::shared_ptr<const BuiltTopology> built = built_scenario_topology(scenario);
  return {built, &built->topology};
}

}  // namespace syncsim
