#include "bottleneck.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>

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

}  // namespace

BottleneckReport attribute_bottleneck(const TrainingReport& report) {
  BottleneckReport out;
  // Computed from the shares rather than the raw times so that the attribution always agrees with the shares
  // the report prints next to it.
  out.compute_share = report.compute_share + report.optimizer_share;
  out.communication_share = report.exposed_communication_share;
  out.straggler_share = report.idle_share;
  const double bubble = report.pipeline_bubble_share;
  if (bubble > out.compute_share && bubble > out.communication_share && bubble > out.straggler_share) {
    out.bound = "pipeline_bubble";
    out.resource = "pipeline bubble";
    return out;
  }
  if (out.compute_share >= out.communication_share && out.compute_share >= out.straggler_share) {
    out.bound = "compute";
    out.resource = "compute";
    return out;
  }
  if (out.straggler_share > out.communication_share) {
    out.bound = "stragglers";
    out.resource = "straggler wait";
    return out;
  }
  const bool servers = report.communication == "parameter_server";
  out.bound = servers ? "parameter_server" : "communication";
  const auto& links = report.busiest_links;
  auto chosen = links.begin();
  if (servers) {
    const auto server_link = std::find_if(
        links.begin(), links.end(), [](const LinkReport& l) { return is_server_node(l.from) || is_server_node(l.to); });
    if (server_link != links.end()) chosen = server_link;
  }
  if (chosen == links.end()) {
    // Exposed time with no link recorded: the engine modelled the wait without per-link traffic.
    out.resource = servers ? "parameter servers" : "collectives";
    return out;
  }
  out.resource = describe(*chosen);
  out.link_class = chosen->link_class;
  return out;
}

}  // namespace syncsim::run
