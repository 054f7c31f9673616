#pragma once
// A calibration's domain: the system it was fitted on, recorded in the file (`domain:`) and checked wherever the
// calibration is used, so that a fit on one system is not silently carried to another.
//
//   domain:
//     gpu: "A100-SXM4-40GB"            # the logs' GPU (the catalog's name when it knows the device); "" unknown
//     device: "NVIDIA A100-SXM4-40GB"  # as the logs' rank lines print it
//     nodes: 2                         # the largest fitted system's hosts and ranks
//     ranks: 16
//     links:                           # per link class some log crossed: the nominal rate per direction of its
//       - {class: nvlink, rate_gb_per_s: 300, count: 16}   # most common link, and how many duplex links of the
//       - {class: net, rate_gb_per_s: 25, count: 16}       # class the largest system has
//     sizes_bytes: [64, 8589934592]    # smallest and largest measured size
//     logs:
//       - {file: "a100-2node.log", nccl_version: "2.18.5", env: ["NCCL_IB_HCA=mlx5"]}   # when the log states them
//
// The check (compare_domain) names each difference that matters for the fitted parameters, one sentence each:
//
//   GPU       the target's GPU is known and is not the fitted one (launch and step latencies are the GPU's and
//             NCCL's as much as the wire's; the NVLink efficiency is the GPU's reach of its links)
//   rate      a link class the target uses runs at a nominal rate more than kRateTolerance away from the fitted
//             one: its efficiency is carried as the same fraction of a different link, which nothing measured
//   class     a link class the target uses that no log crossed: it keeps NCCL's defaults, not a fit
//   scale     the target has more than kScaleFactor times the fitted ranks or nodes: per-step latencies are carried
//             to more steps and hops than any log timed
//
// A link class's technology within the kind (RoCE or InfiniBand under `net`) is not in a topology spec, so the
// check compares kind and rate. `strict` turns the differences into an InputError (the commands'
// --strict-calibration, a scenario's strict_calibration: true).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/topology/router.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

struct DomainLinkClass {
  LinkKind kind = LinkKind::network;
  double rate_gb_per_s = 0;  // nominal, per direction, of the class's most common link (GB = 1e9 bytes)
  std::int64_t count = 0;    // duplex links of the class
  friend bool operator==(const DomainLinkClass&, const DomainLinkClass&) = default;
};

struct DomainLog {
  std::string file;
  std::string nccl_version;      // "" when the log does not state it
  std::vector<std::string> env;  // NCCL_* settings the log states ("NCCL_ALGO=Tree")
  friend bool operator==(const DomainLog&, const DomainLog&) = default;
};

struct CalibrationDomain {
  std::string gpu;     // catalog name when known, else the device name; "" unknown
  std::string device;  // the logs' device name(s), as printed
  std::int64_t nodes = 0;
  std::int64_t ranks = 0;
  std::vector<DomainLinkClass> links;  // in LinkKind order
  std::int64_t min_size_bytes = 0;
  std::int64_t max_size_bytes = 0;
  std::vector<DomainLog> logs;
  friend bool operator==(const CalibrationDomain&, const CalibrationDomain&) = default;
};

// The system a calibration is used on (or fitted on): its GPU and the link classes of its GPUs' collective.
struct SystemShape {
  std::string gpu;  // catalog name; "" unknown
  std::int64_t nodes = 0;
  std::int64_t ranks = 0;
  std::vector<DomainLinkClass> links;  // the classes the collective can cross, in LinkKind order
};

// A nominal rate within this factor of the fitted one is the same link (datasheet rates are rounded: 25 GB/s and
// 200 Gbps).
inline constexpr double kRateTolerance = 1.1;
// More than this many times the fitted ranks or nodes is "far beyond": three doublings, i.e. a tree three levels
// deeper and a ring eight times longer than any log timed.
inline constexpr double kScaleFactor = 8;

// The link classes of `topology` as a domain records them (every class present, its most common rate and count).
std::vector<DomainLinkClass> link_classes_of(const Topology& topology);
// The shape of a collective over the first `ranks` GPUs: the classes of the routes from GPU 0 to every rank and from
// each rank to the next (what the collective crosses), with their rates as link_classes_of records them; its hosts.
SystemShape system_shape(Router& router, std::size_t ranks, std::string gpu);

// One sentence per difference that matters (see above); empty when the target is inside the domain.
std::vector<std::string> compare_domain(const CalibrationDomain& domain, const SystemShape& target);
// One sentence: which fitted parameters apply to the target and how (for the line after the differences).
std::string describe_application(const CalibrationDomain& domain, const SystemShape& target);

}  // namespace syncsim
