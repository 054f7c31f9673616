// The `training:` section: strategy and communication (checked against the table in training_config.hpp),
// the AllReduce's algorithm and cost model, buckets, iterations, and each strategy's own knobs.
#include <fmt/format.h>

#include "enum_names.hpp"
#include "field_reader.hpp"
#include "sections.hpp"

namespace syncsim::scenario_detail {

namespace {

// NCCL runs at most 64 channels (MAXCHANNELS); each is a plan of its own in the simulation.
constexpr std::int64_t kMaxChannels = 64;
// A software cost per message beyond a second is no RPC stack's: a typo, refused before it overflows the clock.
constexpr SimTime kMaxPerMessage = SimTime::from_ps(1'000'000'000'000);             // 1 s
constexpr SimTime kMaxFrameworkOverhead = SimTime::from_ps(3'600'000'000'000'000);  // 1 hour per iteration
constexpr double kMaxOverlapSlowdown = 10;
// Parameter servers: the largest deployments published run hundreds (Li et al., OSDI 2014: 200 servers for 800
// workers). Every server is a node of the network, a track of the trace and a message from every client each
// iteration, so a count far beyond that is a typo that would fill the memory (10^6 ended in std::bad_alloc).
constexpr std::int64_t kMaxServers = 4096;

ParameterServerConfig read_servers(const ConfigNode& node, const std::string& path) {
  const MapReader reader(node, path,
                         {"count", "placement", "partition", "per_message", "host", "host_memory_bw", "nic_bw",
                          "apply_rate", "apply_time", "dense", "embeddings"});
  ParameterServerConfig servers;
  const ConfigNode* count = reader.get("count");
  servers.count = count ? located(read_count(*count, reader.path("count"), 1), *count, reader.path("count"))
                        : reader.defaulted("count", std::int64_t{1});
  if (servers.count.value > kMaxServers) {
    throw servers.count.error(
        fmt::format("expected at most {} parameter servers, got {}", kMaxServers, servers.count.value));
  }
  if (const ConfigNode* placement = reader.get("placement")) {
    servers.placement = read_choice(*placement, reader.path("placement"), kPlacementNames);
  }
  if (const ConfigNode* partition = reader.get("partition")) {
    servers.partition = read_choice(*partition, reader.path("partition"), kPartitionNames);
  }
  if (const ConfigNode* per_message = reader.get("per_message")) {
    servers.per_message = read_duration(*per_message, reader.path("per_message"));
    if (servers.per_message > kMaxPerMessage) {
      fail(
          *per_message, reader.path("per_message"),
          fmt::format("expected at most 1s per message (gRPC's is tens of microseconds), got '{}'", per_message->text));
    }
  }
  if (const ConfigNode* host = reader.get("host")) servers.host = read_choice(*host, reader.path("host"), kHostNames);
  if (const ConfigNode* memory = reader.get("host_memory_bw")) {
    servers.host_memory_bw = read_bandwidth(*memory, reader.path("host_memory_bw"));
    if (servers.host != ServerHost::cpu) {
      fail(*memory, reader.path("host_memory_bw"), "a host's memory bandwidth is for servers on CPU hosts (host: cpu)");
    }
  }
  if (const ConfigNode* nic = reader.get("nic_bw")) {
    servers.nic_bw = read_bandwidth(*nic, reader.path("nic_bw"));
    if (servers.placement == ServerPlacement::colocated) {
      fail(*nic, reader.path("nic_bw"), "colocated servers use their worker's links; nic_bw is for dedicated ones");
    }
  }
  if (const ConfigNode* rate = reader.get("apply_rate"))
    servers.apply_rate = read_bandwidth(*rate, reader.path("apply_rate"));
  if (const ConfigNode* time = reader.get("apply_time")) {
    if (servers.apply_rate) fail(*time, reader.path("apply_time"), "give apply_rate or apply_time, not both");
    servers.apply_time = read_duration(*time, reader.path("apply_time"));
  }
  if (const ConfigNode* dense = reader.get("dense")) {
    servers.dense =
        located(read_choice(*dense, reader.path("dense"), kDenseExchangeNames), *dense, reader.path("dense"));
  }
  if (const ConfigNode* embeddings = reader.get("embeddings")) {
    servers.embeddings = located(read_choice(*embeddings, reader.path("embeddings"), kEmbeddingConsistencyNames),
                                 *embeddings, reader.path("embeddings"));
  }
  return servers;
}

std::optional<Located<std::int64_t>> optional_count(const MapReader& reader, std::string_view key,
                                                    std::int64_t minimum) {
  const ConfigNode* node = reader.get(key);
  if (node == nullptr) return std::nullopt;
  return located(read_count(*node, reader.path(key), minimum), *node, reader.path(key));
}

}  // namespace

TrainingConfig read_training(const ConfigNode& node, bool has_calibration) {
  const MapReader reader(
      node, "training",
      {"strategy", "communication", "algorithm", "channels", "latency_model", "protocol", "bucket_size", "overlap",
       "framework_overhead", "overlap_slowdown", "iterations", "warmup_iterations", "staleness_bound", "sync_every",
       "group_size", "parameter_servers", "gradient_compression"});
  TrainingConfig training;
  const ConfigNode* strategy = reader.get("strategy");
  training.strategy = strategy ? located(read_choice(*strategy, reader.path("strategy"), kStrategyNames), *strategy,
                                         reader.path("strategy"))
                               : reader.defaulted("strategy", StrategyKind::sync);
  const StrategyKind kind = training.strategy.value;
  if (const ConfigNode* communication = reader.get("communication")) {
    const std::string path = reader.path("communication");
    training.communication = located(read_choice(*communication, path, kCommunicationNames), *communication, path);
    if (!compatible(kind, training.communication.value)) {
      fail(*communication, path,
           fmt::format("strategy {} cannot use {} (it works with {}; see the table in docs/scenarios.md)",
                       to_string(kind), to_string(training.communication.value),
                       to_string(default_communication(kind))));
    }
  } else {
    training.communication = reader.defaulted("communication", default_communication(kind));
  }

  if (const ConfigNode* algorithm = reader.get("algorithm")) {
    const std::string path = reader.path("algorithm");
    training.algorithm = located(read_choice(*algorithm, path, kAlgorithmChoices), *algorithm, path);
    training.any_algorithm = algorithm->text == "best";
  } else {
    training.algorithm = reader.defaulted<std::optional<Algorithm>>("algorithm", std::nullopt);
  }
  training.channels = optional_count(reader, "channels", 1);
  if (training.channels && training.channels->value > kMaxChannels) {
    throw training.channels->error(
        fmt::format("expected at most {} channels (NCCL's limit), got {}", kMaxChannels, training.channels->value));
  }
  if (const ConfigNode* latency = reader.get("latency_model")) {
    const std::string path = reader.path("latency_model");
    training.latency_model = located(read_choice(*latency, path, kLatencyNames), *latency, path);
    if (training.latency_model.value == LatencySource::calibrated && !has_calibration) {
      fail(*latency, path, "the calibrated latency model needs a calibration file (calibration: CAL.yaml)");
    }
  } else {
    training.latency_model =
        reader.defaulted("latency_model", has_calibration ? LatencySource::calibrated : LatencySource::nccl);
  }
  if (const ConfigNode* protocol = reader.get("protocol")) {
    training.protocol = read_choice(*protocol, reader.path("protocol"), kProtocolNames);
    if (training.protocol && training.latency_model.value != LatencySource::nccl) {
      fail(*protocol, reader.path("protocol"), "a protocol needs latency_model: nccl");
    }
  }
  if (const ConfigNode* bucket = reader.get("bucket_size")) {
    training.bucket_size = read_size(*bucket, reader.path("bucket_size"));
    if (training.bucket_size.value <= 0) fail(*bucket, reader.path("bucket_size"), "expected a bucket size above zero");
  }
  if (const ConfigNode* overlap = reader.get("overlap")) training.overlap = read_bool(*overlap, reader.path("overlap"));
  if (const ConfigNode* overhead = reader.get("framework_overhead")) {
    const SimTime t = read_duration(*overhead, reader.path("framework_overhead"));
    if (t < SimTime::zero() || t > kMaxFrameworkOverhead) {
      fail(*overhead, reader.path("framework_overhead"), "expected a time per iteration from 0 to 1 hour");
    }
    training.framework_overhead = located(t, *overhead, reader.path("framework_overhead"));
  }
  if (const ConfigNode* slowdown = reader.get("overlap_slowdown")) {
    // 0: backward runs as fast beside an AllReduce; 1: twice as slow. Past 10 it is no longer an overlap.
    training.overlap_slowdown = located(read_number_in(*slowdown, reader.path("overlap_slowdown"), 0,
                                                       kMaxOverlapSlowdown, false, "a fraction from 0 to 10"),
                                        *slowdown, reader.path("overlap_slowdown"));
  }
  if (const ConfigNode* iterations = reader.get("iterations")) {
    training.iterations = read_count(*iterations, reader.path("iterations"), 1);
  }
  if (const ConfigNode* warmup = reader.get("warmup_iterations")) {
    training.warmup_iterations = read_count(*warmup, reader.path("warmup_iterations"), 0);
  }

  training.staleness_bound = optional_count(reader, "staleness_bound", 0);
  training.sync_every = optional_count(reader, "sync_every", 1);
  training.group_size = optional_count(reader, "group_size", 1);
  // ssp and local_sgd are never the default, so the strategy was written somewhere: point there.
  const SourceLocation& strategy_at = training.strategy.where;
  if (kind == StrategyKind::ssp && !training.staleness_bound) {
    throw InputError("strategy ssp needs a staleness bound (how many steps a worker may run ahead of the slowest)",
                     strategy_at, reader.path("staleness_bound"));
  }
  if (kind == StrategyKind::local_sgd && !training.sync_every) {
    throw InputError("strategy local_sgd needs sync_every (average the models every K steps)", strategy_at,
                     reader.path("sync_every"));
  }
  // The engine that runs sync and local_sgd (synchronous_run.hpp) is the one with a compute stream beside the
  // AllReduce stream; the others have none to slow or to burden.
  if (kind != StrategyKind::sync && kind != StrategyKind::local_sgd) {
    for (const char* key : {"framework_overhead", "overlap_slowdown"}) {
      if (const ConfigNode* given = reader.get(key)) {
        fail(*given, reader.path(key),
             fmt::format("applies to the sync and local_sgd strategies, not {}", to_string(kind)));
      }
    }
  }
  if (const ConfigNode* compression = reader.get("gradient_compression")) {
    training.gradient_compression = read_compression(*compression, reader.path("gradient_compression"));
    // DDP's communication hooks act on its bucket AllReduces: averaging parameters (local SGD) and pushing to
    // servers are other paths.
    if (training.gradient_compression.value.enabled() &&
        (kind != StrategyKind::sync || training.communication.value != Communication::allreduce)) {
      fail(*compression, reader.path("gradient_compression"),
           fmt::format("compresses DDP's gradient AllReduce: strategy sync over allreduce, not {} over {}",
                       to_string(kind), to_string(training.communication.value)));
    }
  } else {
    training.gradient_compression = reader.defaulted("gradient_compression", GradientCompression{});
  }
  if (const ConfigNode* servers = reader.get("parameter_servers")) {
    training.parameter_servers = read_servers(*servers, reader.path("parameter_servers"));
  } else {
    training.parameter_servers.count = reader.defaulted("parameter_servers.count", std::int64_t{1});
  }
  return training;
}

}  // namespace syncsim::scenario_detail
