// A calibration's domain against the system it is used on (calibration_domain.hpp has the rules).
#include "syncsim/collectives/calibration_domain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/collectives/latency_model.hpp"
#include "syncsim/collectives/transfer_cost.hpp"

namespace syncsim {

namespace {

const DomainLinkClass* find_class(const std::vector<DomainLinkClass>& links, LinkKind kind) {
  for (const DomainLinkClass& link : links) {
    if (link.kind == kind) return &link;
  }
  return nullptr;
}

std::string rate_text(double gb_per_s) {
  return fmt::format("{:g} GB/s ({:g} Gb/s)", gb_per_s, gb_per_s * 8);
}

}  // namespace

std::vector<DomainLinkClass> link_classes_of(const Topology& topology) {
  // Per class: directed links by rate; the most common rate (the higher on a tie) stands for the class.
  std::array<std::map<double, std::int64_t>, 3> rates;
  std::array<std::int64_t, 3> directed{};
  for (std::size_t id = 0; id < topology.link_count(); ++id) {
    const Link& link = topology.link(LinkId{static_cast<std::uint32_t>(id)});
    const auto c = static_cast<std::size_t>(link.kind);
    ++rates[c][link.bandwidth.gb_per_s()];
    ++directed[c];
  }
  std::vector<DomainLinkClass> out;
  for (const LinkKind kind : kLinkKinds) {
    const auto c = static_cast<std::size_t>(kind);
    if (directed[c] == 0) continue;
    double rate = 0;
    std::int64_t most = 0;
    for (const auto& [r, n] : rates[c]) {  // ascending rates: `>=` keeps the higher on a tie
      if (n >= most) {
        rate = r;
        most = n;
      }
    }
    out.push_back({kind, std::stod(fmt::format("{:.6g}", rate)), (directed[c] + 1) / 2});
  }
  return out;
}

SystemShape system_shape(Router& router, std::size_t ranks, std::string gpu) {
  const Topology& topology = router.topology();
  std::array<bool, 3> crossed{};
  const auto note = [&](std::size_t a, std::size_t b) {
    if (a != b) crossed[static_cast<std::size_t>(classify(topology, router.gpu_route(a, b)))] = true;
  };
  for (std::size_t r = 1; r < ranks; ++r) {
    note(0, r);
    note(r - 1, r);
  }
  SystemShape shape;
  shape.gpu = std::move(gpu);
  shape.ranks = static_cast<std::int64_t>(ranks);
  shape.nodes = std::max<std::int64_t>(1, static_cast<std::int64_t>(host_groups(topology, ranks).size()));
  for (const DomainLinkClass& link : link_classes_of(topology)) {
    if (crossed[static_cast<std::size_t>(link.kind)]) shape.links.push_back(link);
  }
  return shape;
}

std::vector<std::string> compare_domain(const CalibrationDomain& domain, const SystemShape& target) {
  std::vector<std::string> out;
  if (!domain.gpu.empty() && !target.gpu.empty() && domain.gpu != target.gpu) {
    out.push_back(fmt::format(
        "GPU: fitted on {}, used with {}: its launch and step latencies and NVLink efficiency are the fitted GPU's",
        domain.gpu, target.gpu));
  }
  for (const DomainLinkClass& used : target.links) {
    const std::string_view name = nccl_class_name(used.kind);
    const DomainLinkClass* fitted = find_class(domain.links, used.kind);
    if (!fitted) {
      out.push_back(fmt::format(
          "{} links: no fitted log crossed them: they keep NCCL's default latency and efficiency, not a fit", name));
      continue;
    }
    const double ratio = used.rate_gb_per_s / fitted->rate_gb_per_s;
    if (ratio > kRateTolerance || ratio < 1 / kRateTolerance) {
      out.push_back(fmt::format(
          "{} link rate: fitted on {}, used on {}: its efficiency is carried as the same fraction of a {} link, "
          "which no log measured",
          name, rate_text(fitted->rate_gb_per_s), rate_text(used.rate_gb_per_s), ratio > 1 ? "faster" : "slower"));
    }
  }
  const auto beyond = [](std::int64_t used, std::int64_t fitted) {
    return fitted > 0 && static_cast<double>(used) > kScaleFactor * static_cast<double>(fitted);
  };
  if (beyond(target.ranks, domain.ranks) || beyond(target.nodes, domain.nodes)) {
    out.push_back(fmt::format(
        "scale: fitted on {} ranks on {} node(s), used on {} ranks on {} nodes (more than {:g} times): per-step "
        "latencies are carried to more steps and hops than any log timed",
        domain.ranks, domain.nodes, target.ranks, target.nodes, kScaleFactor));
  }
  return out;
}

std::string describe_application(const CalibrationDomain& domain, const SystemShape& target) {
  std::string fitted;
  std::string defaults;
  for (const DomainLinkClass& used : target.links) {
    std::string& list = find_class(domain.links, used.kind) ? fitted : defaults;
    list += fmt::format("{}{}", list.empty() ? "" : ", ", nccl_class_name(used.kind));
  }
  return fmt::format(
      "applied: each regime's launch and fill as fitted; per link class{}{} the fitted step latency per step on "
      "every hop and the fitted efficiency as a fraction of each link's own rate{}",
      fitted.empty() ? "" : " (", fitted.empty() ? " none fitted:" : fitted + "):",
      defaults.empty() ? "" : fmt::format("; {}: NCCL's defaults", defaults));
}

}  // namespace syncsim
