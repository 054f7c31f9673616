// Stragglers, degraded links, faults and checkpoints: what goes wrong in a run and how training recovers.
#include <fmt/format.h>

#include <cctype>
#include <set>

#include "enum_names.hpp"
#include "field_reader.hpp"
#include "sections.hpp"

namespace syncsim::scenario_detail {

namespace {

constexpr double kMaxNormalSigma = 0.5;
constexpr double kMaxLognormalSigma = 1.0;
constexpr double kMinDegradedFactor = 1e-6;

LinkEnds read_between(const ConfigNode& node, const std::string& path) {
  const auto& items = read_list(node, path);
  if (items.size() != 2) {
    fail(node, path,
         fmt::format("expected two node names like [nic3, leaf0], got {}",
                     node.kind == ConfigNode::Kind::sequence ? fmt::format("{} items", items.size()) : describe(node)));
  }
  LinkEnds ends{located(read_text(items[0], item_path(path, 0)), items[0], item_path(path, 0)),
                located(read_text(items[1], item_path(path, 1)), items[1], item_path(path, 1))};
  if (ends.a.value == ends.b.value) fail(items[1], item_path(path, 1), "expected two different nodes");
  return ends;
}

Located<std::int64_t> read_rank(const ConfigNode& node, const std::string& path) {
  return located(read_count(node, path, 0), node, path);
}

FaultPolicy default_policy(StrategyKind strategy) {
  return strategy == StrategyKind::async || strategy == StrategyKind::ssp ? FaultPolicy::continue_without
                                                                          : FaultPolicy::restart_from_checkpoint;
}

// Why `policy` cannot recover `strategy`, or empty when it can.
std::string policy_problem(FaultPolicy policy, StrategyKind strategy) {
  const bool barrier_free = strategy == StrategyKind::async || strategy == StrategyKind::ssp;
  if (policy == FaultPolicy::continue_without && !barrier_free) {
    return fmt::format(
        "strategy {} waits for every worker, so it cannot continue without one; use elastic or "
        "restart_from_checkpoint",
        to_string(strategy));
  }
  if (policy == FaultPolicy::elastic && barrier_free) {
    return fmt::format("elastic re-forms the AllReduce ring, and strategy {} has none; use continue",
                       to_string(strategy));
  }
  return {};
}

FaultConfig read_fault(const ConfigNode& node, const std::string& path, StrategyKind strategy) {
  const MapReader reader(node, path, {"at", "kind", "rank", "between", "policy"});
  FaultConfig fault;
  fault.where = node.where;
  fault.key = path;
  fault.at = read_duration(reader.require("at", "when the fault happens, e.g. 2s"), reader.path("at"));
  const ConfigNode& kind = reader.require("kind", "worker_down or link_down");
  fault.kind = read_choice(kind, reader.path("kind"), kFaultKindNames);
  const ConfigNode* rank = reader.get("rank");
  const ConfigNode* between = reader.get("between");
  if (fault.kind == FaultKind::worker_down) {
    fault.rank = read_rank(reader.require("rank", "the worker that fails"), reader.path("rank"));
    if (between) fail(*between, reader.path("between"), "a worker_down fault names a rank, not a link");
  } else {
    fault.between =
        read_between(reader.require("between", "the link's two nodes, e.g. [nic3, leaf0]"), reader.path("between"));
    if (rank) fail(*rank, reader.path("rank"), "a link_down fault names a link (between), not a rank");
  }
  if (const ConfigNode* policy = reader.get("policy")) {
    fault.policy =
        located(read_choice(*policy, reader.path("policy"), kFaultPolicyNames), *policy, reader.path("policy"));
    const std::string problem = policy_problem(fault.policy.value, strategy);
    if (!problem.empty()) fail(*policy, reader.path("policy"), problem);
  } else {
    fault.policy = reader.defaulted("policy", default_policy(strategy));
  }
  return fault;
}

bool is_plain_number(const std::string& text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text.back()));
}

}  // namespace

StragglerConfig read_stragglers(const ConfigNode& node) {
  const MapReader reader(node, "stragglers", {"jitter", "slow"});
  StragglerConfig stragglers;
  if (const ConfigNode* jitter = reader.get("jitter")) {
    const MapReader jitter_reader(*jitter, reader.path("jitter"), {"distribution", "sigma"});
    const ConfigNode& distribution = jitter_reader.require("distribution", "lognormal, normal or none");
    stragglers.jitter.distribution = read_choice(distribution, jitter_reader.path("distribution"), kJitterNames);
    if (stragglers.jitter.distribution != JitterKind::none) {
      const ConfigNode& sigma = jitter_reader.require("sigma", "the spread, e.g. 0.05");
      // Beyond these the multiplier stops meaning a spread: normal's 1 + sigma x N(0, 1) is clamped at 0.05 (in
      // 3% of draws at 0.5, in half of them at 10), lognormal's median exp(-sigma^2 / 2) falls to 0.6 at 1.
      const bool normal = stragglers.jitter.distribution == JitterKind::normal;
      const double most = normal ? kMaxNormalSigma : kMaxLognormalSigma;
      stragglers.jitter.sigma =
          read_number_in(sigma, jitter_reader.path("sigma"), 0, most, false,
                         fmt::format("a spread in [0, {}] for {} jitter", most, normal ? "normal" : "lognormal"));
    }
  }
  if (const ConfigNode* slow = reader.get("slow")) {
    const std::string path = reader.path("slow");
    std::set<std::int64_t> seen;
    const auto& items = read_list(*slow, path);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const MapReader item(items[i], item_path(path, i), {"rank", "factor"});
      SlowRank entry;
      entry.rank = read_rank(item.require("rank", "the slow worker"), item.path("rank"));
      entry.factor = read_number_in(item.require("factor", "its compute time multiplier, e.g. 1.5"),
                                    item.path("factor"), 0, 1e6, true, "a multiplier above zero");
      if (!seen.insert(entry.rank.value).second) {
        throw entry.rank.error(fmt::format("rank {} is already listed as slow", entry.rank.value));
      }
      stragglers.slow.push_back(std::move(entry));
    }
  }
  return stragglers;
}

std::vector<LinkDegradation> read_degraded_links(const ConfigNode& node) {
  std::vector<LinkDegradation> links;
  const auto& items = read_list(node, "degraded_links");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string path = item_path("degraded_links", i);
    const MapReader reader(items[i], path, {"between", "factor", "from", "until"});
    LinkDegradation link;
    link.where = items[i].where;
    link.key = path;
    link.between =
        read_between(reader.require("between", "the link's two nodes, e.g. [nic3, leaf0]"), reader.path("between"));
    // At least 1e-6 of the bandwidth: below it a link is down (a link_down fault says so), and a factor of 1e-300
    // would make one transfer outlast the simulated clock.
    link.factor =
        read_number_in(reader.require("factor", "the fraction of bandwidth left, e.g. 0.25"), reader.path("factor"),
                       kMinDegradedFactor, 1, false, "a fraction of the bandwidth in [1e-06, 1]");
    if (const ConfigNode* from = reader.get("from")) link.from = read_duration(*from, reader.path("from"));
    if (const ConfigNode* until = reader.get("until")) {
      link.until = read_duration(*until, reader.path("until"));
      if (*link.until <= link.from) fail(*until, reader.path("until"), "expected a time after `from`");
    }
    links.push_back(std::move(link));
  }
  return links;
}

// Two failures of one worker at one instant are one failure written twice (the engine would take the second for
// a new failure once the first is recovered): refused at the second.
void check_not_repeated(const std::vector<FaultConfig>& faults, const ConfigNode& item) {
  const FaultConfig& fault = faults.back();
  if (fault.kind != FaultKind::worker_down) return;
  for (std::size_t i = 0; i + 1 < faults.size(); ++i) {
    const FaultConfig& earlier = faults[i];
    if (earlier.kind == FaultKind::worker_down && earlier.at == fault.at && earlier.rank->value == fault.rank->value) {
      fail(item, fault.key,
           fmt::format("rank {} already fails at {} ({}); a worker fails once at an instant", fault.rank->value,
                       format_duration(fault.at), earlier.key));
    }
  }
}

std::vector<FaultConfig> read_faults(const ConfigNode& node, StrategyKind strategy) {
  std::vector<FaultConfig> faults;
  const auto& items = read_list(node, "faults");
  for (std::size_t i = 0; i < items.size(); ++i) {
    faults.push_back(read_fault(items[i], item_path("faults", i), strategy));
    check_not_repeated(faults, items[i]);
  }
  return faults;
}

CheckpointConfig read_checkpoint(const ConfigNode& node) {
  const MapReader reader(node, "checkpoint",
                         {"interval", "restart_cost", "storage_bandwidth", "storage_bandwidth_per_node", "async"});
  CheckpointConfig checkpoint;
  if (const ConfigNode* interval = reader.get("interval")) {
    const std::string path = reader.path("interval");
    if (interval->kind == ConfigNode::Kind::scalar && is_plain_number(interval->text)) {
      checkpoint.every_iterations = read_count(*interval, path, 1);
    } else {
      checkpoint.every = read_duration(*interval, path);
      if (*checkpoint.every <= SimTime::zero()) fail(*interval, path, "expected an interval above zero");
    }
  }
  if (const ConfigNode* cost = reader.get("restart_cost")) {
    checkpoint.restart_cost = read_duration(*cost, reader.path("restart_cost"));
  }
  if (const ConfigNode* bw = reader.get("storage_bandwidth")) {
    checkpoint.storage_bandwidth = read_bandwidth(*bw, reader.path("storage_bandwidth"));
  }
  if (const ConfigNode* bw = reader.get("storage_bandwidth_per_node")) {
    checkpoint.storage_bandwidth_per_node = read_bandwidth(*bw, reader.path("storage_bandwidth_per_node"));
  }
  if (const ConfigNode* async = reader.get("async")) checkpoint.async = read_bool(*async, reader.path("async"));
  return checkpoint;
}

}  // namespace syncsim::scenario_detail
