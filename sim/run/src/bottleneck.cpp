#include "bottleneck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace syncsim::run {

namespace {

// server_placement.cpp names dedicated servers ps0, ps1, ...
bool is_server_node(const std::string& name) {
  return name.size() > 2 && name.starts_with("ps") &&
         std::all_of(name.begin() + 2, name.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Link classes in the words a buyer uses: a network link is between machines, the others inside one.
std::string describe(const LinkReport& link) {
  const std::string where = link.link_class == "network"  ? "inter-node network"
                            : link.link_class == "nvlink" ? "intra-node NVLink"
                            : link.link_class == "pcie"   ? "intra-node PCIe"
                                                          : link.link_class;
  return fmt::format("{} -> {} ({})", link.from, link.to, where);
}

// A layout's group's own busiest link (GroupCommunication::busiest_link), or null.
const LinkReport* group_link(const TrainingReport& report, const std::string& group) {
  for (const GroupCommunication& g : report.group_communication) {
    if (g.group == group && g.busiest_link) return &*g.busiest_link;
  }
  return nullptr;
}

// The link a communication cause names: its group's own where the report has one, else the busiest, or with
// parameter servers the busiest touching a server.
const LinkReport* bound_link(const TrainingReport& report, const CauseReport& cause) {
  if (const LinkReport* own = group_link(report, cause.group)) return own;
  const auto& links = report.busiest_links;
  if (links.empty()) return nullptr;
  if (report.communication == "parameter_server") {
    const auto server_link = std::find_if(
        links.begin(), links.end(), [](const LinkReport& l) { return is_server_node(l.from) || is_server_node(l.to); });
    if (server_link != links.end()) return &*server_link;
  }
  return &links.front();
}

bool has(const std::vector<CauseReport>& causes, const std::string& cause, const std::string& group) {
  return std::any_of(causes.begin(), causes.end(),
                     [&](const CauseReport& c) { return c.cause == cause && c.group == group; });
}

std::string group_words(const std::string& group) {
  if (group.empty()) return "";
  if (group == "replicas") return "replica ";
  if (group == "host-memory") return "host-memory ";  // a recommendation model's tables in host memory
  return group + "-parallel ";
}

std::string cause_words(const CauseReport& c) {
  if (c.cause == "communication") {
    return fmt::format("exposed {}communication{}", group_words(c.group),
                       c.resource.empty() ? "" : " on " + c.resource);
  }
  if (c.cause == "parameter_server") {
    return fmt::format("waiting on the parameter servers{}", c.resource.empty() ? "" : " (" + c.resource + ")");
  }
  if (c.cause == "stragglers") return "waiting on stragglers";
  if (c.cause == "failures") return "lost to failures (detection and work done again)";
  if (c.cause == "restarts") return "restarting after failures";
  if (c.cause == "checkpoint_saves") return "saving checkpoints";
  if (c.cause == "pipeline_bubble") return "the pipeline bubble";
  if (c.cause == "overlap_interference") return "backward slowed by the collectives beside it";
  return "the framework's own overhead";
}

// Per iteration, what the run's faults cost: failures (the work thrown away and the wait for detection) and
// restarts (detection to resumption). Their downtime is every worker's idle time, not stragglers'.
struct FaultCost {
  SimTime failures;
  SimTime restarts;
};

FaultCost fault_cost(const TrainingReport& report) {
  FaultCost cost;
  for (const FaultReport& f : report.faults) {
    cost.failures += f.lost_work + (f.detected - f.at);
    cost.restarts += f.resumed - f.detected;
  }
  const std::int64_t iterations = std::max<std::int64_t>(1, report.iterations);
  return {SimTime::from_ps(cost.failures.ps() / iterations), SimTime::from_ps(cost.restarts.ps() / iterations)};
}

// The share of the run every worker spent down with the faults (in its idle share).
double downtime_share(const TrainingReport& report) {
  return report.total > SimTime::zero() ? report.downtime.seconds() / report.total.seconds() : 0.0;
}

}  // namespace

std::vector<CauseReport> ranked_causes(const TrainingReport& report) {
  std::vector<CauseReport> causes = report.causes;
  const SimTime mean = report.iteration_mean;
  const auto share_of = [&](SimTime t) { return mean > SimTime::zero() ? t.seconds() / mean.seconds() : 0.0; };
  for (CauseReport& c : causes) c.share = share_of(c.per_iteration);
  const bool servers = report.communication == "parameter_server";
  // A cause from a time share: its share of the run, and that share of the mean iteration.
  const auto add = [&](std::string cause, std::string group, double share) {
    if (share <= 0 || has(causes, cause, group)) return;
    const auto t = SimTime::from_ps(static_cast<std::int64_t>(share * static_cast<double>(mean.ps())));
    causes.push_back({std::move(cause), std::move(group), "", t, share, false});
  };
  bool grouped = false;
  for (const GroupCommunication& g : report.group_communication) {
    grouped = grouped || g.exposed > SimTime::zero() || has(causes, "communication", g.group);
    add("communication", g.group, share_of(g.exposed));
  }
  if (!grouped) add(servers ? "parameter_server" : "communication", "", report.exposed_communication_share);
  const FaultCost faults = fault_cost(report);
  add("failures", "", share_of(faults.failures));
  add("restarts", "", share_of(faults.restarts));
  add("stragglers", "", report.idle_share - downtime_share(report));
  if (report.goodput) {
    // A long job's failure process (reliability:): its badput, as shares of the job's own time (the badput's are of
    // the GPU time paid for, the idle spares' included).
    const auto badput = [&](std::initializer_list<std::string_view> names) {
      double sum = 0;
      double spares = 0;
      for (const auto& [cause, share] : report.goodput->badput) {
        if (std::find(names.begin(), names.end(), cause) != names.end()) sum += share;
        if (cause == "spares_idle") spares = share;
      }
      return spares < 1 ? sum / (1 - spares) : 0.0;
    };
    add("failures", "", badput({"lost_progress", "detection", "repair_wait"}));
    add("restarts", "", badput({"restart"}));
    add("checkpoint_saves", "", badput({"checkpoint_save"}));
  }
  add("pipeline_bubble", "", report.pipeline_bubble_share);
  add("overlap_interference", "", report.overlap_interference_share);
  add("framework_overhead", "", report.framework_overhead_share);
  std::erase_if(causes, [](const CauseReport& c) { return c.share <= 0; });
  std::stable_sort(causes.begin(), causes.end(),
                   [](const CauseReport& a, const CauseReport& b) { return a.share > b.share; });
  // Each cause with a group link of its own names it; the largest without one names the busiest link.
  bool busiest_named = false;
  for (CauseReport& c : causes) {
    if (c.cause != "communication" && c.cause != "parameter_server") continue;
    const bool own = group_link(report, c.group) != nullptr;
    if (!own && busiest_named) continue;
    busiest_named = busiest_named || !own;
    if (const LinkReport* link = bound_link(report, c)) c.resource = describe(*link);
  }
  return causes;
}

BottleneckReport attribute_bottleneck(const TrainingReport& report) {
  BottleneckReport out;
  // The shares, as the report prints them beside the bound.
  out.compute_share = report.compute_share + report.recompute_share + report.optimizer_share;
  out.communication_share = report.exposed_communication_share;
  out.straggler_share = std::max(0.0, report.idle_share - downtime_share(report));  // faults' downtime is not theirs
  const std::vector<CauseReport> causes = report.causes.empty() ? ranked_causes(report) : report.causes;
  if (causes.empty() || causes.front().share < kMaterialShare) {
    out.bound = "compute";
    out.resource = "compute";
    out.bound_share = out.compute_share;
    out.summary = causes.empty()
                      ? fmt::format("compute-bound: {:.0f}% of the iteration is compute", 100 * out.compute_share)
                      : fmt::format(
                            "compute-bound: {:.0f}% of the iteration is compute; the largest "
                            "loss is {:.0f}% ({})",
                            100 * out.compute_share, 100 * causes.front().share, cause_words(causes.front()));
    return out;
  }
  const CauseReport& top = causes.front();
  out.bound = top.cause;
  out.bound_share = top.share;
  out.summary = fmt::format("{:.0f}% of the iteration is {}", 100 * top.share, cause_words(top));
  if (top.cause == "stragglers") {
    out.resource = "straggler wait";
  } else if (top.cause == "communication" || top.cause == "parameter_server") {
    const LinkReport* link = bound_link(report, top);
    out.resource = link != nullptr                   ? describe(*link)
                   : top.cause == "parameter_server" ? "parameter servers"
                                                     : "collectives";
    if (link != nullptr) out.link_class = link->link_class;
  } else {
    out.resource = cause_words(top);
  }
  return out;
}

}  // namespace syncsim::run
