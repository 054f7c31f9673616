#pragma once
// One reader per scenario section (read_cluster.cpp, read_model.cpp, ...) and the checks across sections.
// Each takes the section's node (a null node when the section is absent, located at the source) and validates
// everything that can be judged from the section alone.
#include <filesystem>
#include <vector>

#include "config_tree.hpp"
#include "field_reader.hpp"
#include "syncsim/scenario/jobs_config.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim::scenario_detail {

// Relative file paths in the scenario (topology files, calibration) are resolved against `base_dir` (the
// scenario file's directory; empty for text that did not come from a file).
ClusterConfig read_cluster(const ConfigNode& node, const std::filesystem::path& base_dir);
ModelConfig read_model(const ConfigNode& node, const std::filesystem::path& base_dir);
// model.transformer's block, and model.hf_config's file (read_transformer.cpp).
Located<LlamaShape> read_transformer(const ConfigNode& node, const std::string& path);
Located<LlamaShape> read_hf_config_key(const ConfigNode& node, const std::string& path,
                                       const std::filesystem::path& base_dir);
// model.recommendation, model.embedding_sharding and model.embedding_optimizer (read_recommendation.cpp).
RecommendationConfig read_recommendation(const MapReader& model);
TrainingConfig read_training(const ConfigNode& node, bool has_calibration);
Located<GradientCompression> read_compression(const ConfigNode& node, const std::string& path);
StragglerConfig read_stragglers(const ConfigNode& node);
std::vector<LinkDegradation> read_degraded_links(const ConfigNode& node);
std::vector<FaultConfig> read_faults(const ConfigNode& node, StrategyKind strategy);
CheckpointConfig read_checkpoint(const ConfigNode& node);
ReliabilityConfig read_reliability(const ConfigNode& node);  // read_reliability.cpp
ParallelismConfig read_parallelism(const ConfigNode& node, const std::filesystem::path& base_dir);
// parallelism.tp_comm_overlap as a mapping (read_userbuffers.cpp), or the mapping in a file (key path "").
UserbuffersConfig read_userbuffers(const ConfigNode& node, const std::string& path);
// parallelism.tp_comm_overlap as the path of a userbuffers file, resolved against `base_dir`: its mapping, its errors
// at the file's lines.
UserbuffersConfig read_userbuffers_file(const ConfigNode& node, const std::string& path,
                                        const std::filesystem::path& base_dir);
ConvergenceConfig read_convergence(const ConfigNode& node);
// jobs:, placement:, background: and window_iterations: of a scenario with several jobs (read_jobs.cpp); then each
// job against the others and the topology (the GPUs they need together, each job's layout at its GPU count).
JobsConfig read_jobs(const MapReader& root, const std::filesystem::path& base_dir, bool has_calibration);
void check_jobs(JobsScenario& scenario, const Topology& topology);

// The scenario file's tree with the `--set` overrides applied (scenario_loader.cpp); then its `name:` and `seed:`
// into `scenario` (with its source), as every scenario reads them.
ConfigNode scenario_tree(std::string_view yaml, const std::string& source, const std::vector<std::string>& overrides);
void read_identity(const MapReader& reader, const std::string& source, Scenario& scenario);

// Checks that need more than one section: ranks against the worker count, the inline GPU's peaks against the
// model's precision, fault policies against the strategy. Then against the built topology: worker count, ranks,
// node names.
void check_across_sections(const Scenario& scenario);
void check_against_topology(const Scenario& scenario, const Topology& topology);

// A spec string's `KEY=V` turned into a mapping node, each value at its column in the file (for `--set
// cluster.topology.KEY=V` on a topology given as a string). Overrides act on the tree, before any section is read,
// so that an overridden topology key goes through the one reader (read_topology) like any other value and keeps
// its place for messages; hence string -> spec -> mapping here, and mapping -> spec in the reader.
ConfigNode topology_string_to_mapping(const ConfigNode& node, const std::string& path);

}  // namespace syncsim::scenario_detail
