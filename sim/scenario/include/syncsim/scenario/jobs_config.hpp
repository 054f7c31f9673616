#pragma once
// Several training jobs on one cluster (docs/jobs.md): the `jobs:`, `placement:`, `background:` and
// `window_iterations:` keys of a scenario.
//
//   cluster: {gpu: H100-SXM-80GB, topology: "fattree:n=16,radix=8,bw=400Gbps,oversub=2"}
//   jobs:
//     - {name: a, gpus: 8, model: {name: resnet50, batch_per_gpu: 64}}
//     - {name: b, gpus: 8, model: {name: resnet50, batch_per_gpu: 64}, training: {bucket_size: 50MB}}
//   placement: spread                  # packed | rail | spread | random | {a: [0, 2], b: [1, 3]}
//   background:
//     - {between: [0, 5], rate: 100Gbps}                     # node 0 to node 5, constant
//     - {link_class: spine, rate: 50Gbps, burst: 2ms}         # every switch-to-switch link, seeded on/off
//   window_iterations: 20              # at least this many iterations of the slowest job are measured
//
// Each job's model, parallelism and training are read by the single-job section readers, so a job's section means
// exactly what the same section of a single-job scenario means; job_scenario() gives that scenario.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "syncsim/scenario/located.hpp"
#include "syncsim/scenario/model_config.hpp"
#include "syncsim/scenario/parallelism_config.hpp"
#include "syncsim/scenario/scenario.hpp"
#include "syncsim/scenario/training_config.hpp"

namespace syncsim {

struct JobConfig {
  Located<std::string> name;
  Located<std::int64_t> gpus;
  ModelConfig model;
  TrainingConfig training;
  ParallelismConfig parallelism;
};

enum class PlacementPolicy { packed, rail, spread, random, explicit_nodes };
std::string_view to_string(PlacementPolicy policy);

// One job's node list under an explicit placement (`placement: {a: [0, 1], b: [2, 3]}`): node indices as
// docs/jobs.md numbers them (hosts where the topology has them, else GPUs).
struct JobNodes {
  Located<std::string> job;
  std::vector<Located<std::int64_t>> nodes;
};

struct PlacementConfig {
  Located<PlacementPolicy> policy;
  std::vector<JobNodes> explicit_nodes;  // with PlacementPolicy::explicit_nodes: one entry per job, in file order
};

// Traffic that is not a training job: from every node of `from` to every node of `to` (`between: [A, B]`, each a
// node or a list of nodes) or on every directed link of a class (`link_class:`), `rate` in all (split evenly over
// the pairs) or per link. Without `burst` the traffic is constant; with it, each flow alternates seeded on and off
// periods of mean `burst` (exponential), sending at twice `rate` while on, so that its mean is `rate`.
struct BackgroundConfig {
  std::vector<Located<std::int64_t>> from;
  std::vector<Located<std::int64_t>> to;
  std::optional<Located<std::string>> link_class;
  Located<Bandwidth> rate;
  std::optional<Located<SimTime>> burst;
  SourceLocation where;
  std::string key;  // "background[0]"
};

// The link classes `link_class:` takes: every link of a kind (nvlink, pcie, network), or `spine`: every link between
// two network switches (leaf-spine and spine-core).
inline constexpr std::array<std::string_view, 4> kBackgroundLinkClasses{"nvlink", "pcie", "network", "spine"};

struct JobsConfig {
  std::vector<JobConfig> jobs;
  PlacementConfig placement;
  std::vector<BackgroundConfig> background;
  // The window holds at least this many iterations of the slowest job (docs/jobs.md, "The window").
  Located<std::int64_t> window_iterations;
};

// Bounds on the counts a jobs scenario may hold (docs/jobs.md).
inline constexpr std::int64_t kMaxJobs = 256;
inline constexpr std::int64_t kMaxBackground = 1024;
inline constexpr std::int64_t kMaxBackgroundFlows = 65'536;
inline constexpr std::int64_t kMaxWindowIterations = 10'000;
inline constexpr std::int64_t kDefaultWindowIterations = 20;

// A scenario file with `jobs:`: its name, seed and cluster as a Scenario (model, training and parallelism left at
// their defaults: each job has its own), and the jobs. load_scenario refuses such a file; `syncsim run` loads it
// with load_jobs_scenario.
struct JobsScenario {
  Scenario base;
  JobsConfig config;
};

// The file's jobs scenario, or nullopt when it has no `jobs:` (then load_scenario reads it). `--set` overrides
// apply as to any scenario (jobs[1].gpus=8). InputError with file, line, column and key for bad input.
std::optional<JobsScenario> load_jobs_scenario(const std::filesystem::path& file,
                                               const std::vector<std::string>& overrides = {});
std::optional<JobsScenario> parse_jobs_scenario(std::string_view yaml, std::string_view source = "<string>",
                                                const std::vector<std::string>& overrides = {});

// Job `job` as a single-job scenario: the cluster, seed and source of the jobs scenario, the job's model, training
// and parallelism, cluster.workers at the job's GPU count; named after the job.
Scenario job_scenario(const JobsScenario& scenario, std::size_t job);

}  // namespace syncsim
