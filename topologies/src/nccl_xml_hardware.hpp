#pragma once
// NCCL's hardware constants for its topology XML, and the attribute readers that apply them (nccl_xml_read.cpp uses
// them to turn link_speed, link_width, nvlink counts and CPU models into bandwidths).
//
// Every bandwidth is NCCL's own (NVIDIA/nccl src/graph/topo.h and topo.cc), in GB/s, one direction:
//
//   what                            value                      NCCL source
//   PCIe, per lane, by link_speed   2.5 GT/s   0.1875           topo.cc kvDictPciGen {15, 30, 60, 120, 240, 480} in
//                                   5 GT/s     0.375            units of 100 Mbps per lane; ncclTopoAddPci:
//                                   8 GT/s     0.75             bw = link_width * rate / 80 GB/s
//                                   16 GT/s    1.5              (Gen3 x16 = 12 = topo.h PCI_BW, Gen4 x16 = 24,
//                                   32 GT/s    3                Gen5 x16 = 48)
//                                   64 GT/s    6
//   PCIe, link_speed "" / Unknown   0.75 (Gen3)                 kvDictPciGen fallback
//   PCIe, link_width "" / 0         16 lanes                    ncclTopoAddPci
//   NVLink, per link, by GPU sm     sm60 18, sm70 20, sm80 20,  topo.h SM60/SM70/SM80/SM86/SM90/SM100_NVLINK_BW,
//                                   sm86 12, sm90 20.6,         ncclTopoNVLinkBw (below sm60: the sm80 value);
//                                   sm100+ 40.1                 an <nvlink count="c"> carries c x this
//   C2C (Grace)                     bw x count / 1000           ncclTopoAddC2c (bw in MB/s per link)
//   between CPUs of a host          POWER9 32, Arm 6            P9_BW, ARM_BW
//                                   Intel BDW 6, SKL 10,        BDW/SKL/SRP/ERP_QPI_BW, by familyid/modelid
//                                   SRP 22, ERP 40
//                                   AMD Zen1/2 16, Zen3/4 24,   AMD_ZEN12/ZEN34/ZEN5_BW, by familyid
//                                   Zen5 32
//                                   Zhaoxin 6, Yongfeng 9       ZPI_BW, YONGFENG_ZPI_BW
//   a <nic> right under a <cpu>     5000                        LOC_BW ("same device")
//
// Latencies are not in NCCL's file and these are syncsim's defaults: NCCL's tuning model (tuning.cc hwLat, LL
// protocol) charges one GPU-to-GPU step 0.6 us over NVLink and 1.0 us over PCIe; such a step usually crosses two
// links (GPU -> NVSwitch -> GPU, GPU -> PCIe switch -> GPU), so each link gets half. A hop between CPUs is charged
// like one more PCIe link.
#include <cstdint>
#include <string>
#include <string_view>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time.hpp"
#include "syncsim/core/units.hpp"
#include "xml_reader.hpp"

namespace syncsim::nccl_xml {

inline constexpr SimTime kNvlinkLatency = SimTime::from_ns(300);
inline constexpr SimTime kPcieLatency = SimTime::from_ns(500);
inline constexpr SimTime kInterCpuLatency = SimTime::from_ns(500);
inline constexpr double kLocalGBps = 5000;

// The file being read: turns positions into locations and reads attributes, throwing InputError with the element
// (missing attribute: at the element, key "gpu") or the value (bad value: at the value, key "gpu.dev").
struct Source {
  std::string name;

  SourceLocation at(xml::Position p) const { return SourceLocation{name, p.line, p.column}; }
  [[noreturn]] void fail(const xml::Element& element, const std::string& message) const;
  [[noreturn]] void fail(const xml::Element& element, const xml::Attribute& attribute,
                         const std::string& message) const;
  const xml::Attribute& required(const xml::Element& element, std::string_view attribute_name) const;
  // A whole number in decimal or 0x hex (NCCL reads them with strtol base 0), at least `minimum`.
  std::int64_t integer(const xml::Element& element, const xml::Attribute& attribute, std::int64_t minimum) const;
  std::int64_t integer(const xml::Element& element, std::string_view attribute_name, std::int64_t minimum) const;
};

std::string lower(std::string_view text);

// A bus id as a number, as NCCL compares them (busIdToInt64: hex digits, ':' and '.' skipped), so NVML's
// "00000000:07:00.0" matches /sys's "0000:07:00.0".
std::uint64_t bus_id(const Source& source, const xml::Element& element, const xml::Attribute& attribute);

// The link between a <pci> and its parent: link_width x the per-lane rate for link_speed.
Bandwidth pcie_bandwidth(const Source& source, const xml::Element& pci);

double nvlink_gb_per_s(std::int64_t sm);

// The rate NCCL gives links from this <cpu> to the host's other CPUs (needs arch; on x86_64 vendor and familyid,
// on Intel modelid too).
double inter_cpu_gb_per_s(const Source& source, const xml::Element& cpu);

}  // namespace syncsim::nccl_xml
