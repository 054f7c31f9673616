#pragma once
// NCCL topology XML import (`file:path=x.xml`): the file NCCL writes when NCCL_TOPO_DUMP_FILE is set.
//
//   <system version="1">
//     <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD" familyid="23" modelid="49">        -> cpu0
//       <pci busid="0000:01:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">  -> PCIe switch
//         <pci busid="0000:07:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
//           <gpu dev="0" sm="80" rank="0" gdr="1">                                            -> a GPU
//             <nvlink target="0000:c4:00.0" count="2" tclass="0x068000"/>                    -> to the NVSwitch
//           </gpu>
//         </pci>
//         <pci busid="0000:0c:00.0" class="0x020700" link_speed="16.0 GT/s PCIe" link_width="16">
//           <nic><net name="mlx5_0" dev="0" speed="200000" port="1" gdr="1"/></nic>           -> a NIC
//         </pci>
//       </pci>
//     </cpu>
//   </system>
//
// The mapping follows NCCL's own reading of the file (src/graph/topo.cc, ncclTopoGetSystemFromXml):
//  - every <cpu> (a NUMA node) is a cpu node; the CPUs of one host are linked pairwise (QPI/UPI/xGMI, as a pcie
//    link) at NCCL's inter-CPU rate for the CPU's arch, vendor and model;
//  - a <pci> holding a <gpu> is a gpu, one holding a <nic> is a nic (its ports, the <net>s, name it); any other
//    <pci> (bridges, class 0x060400) is a pcie_switch. Each hangs off its parent by a PCIe link of
//    link_width x NCCL's per-lane rate for link_speed; a <nic> straight under a <cpu> gets NCCL's local rate;
//  - <nvlink> counts links to a GPU (tclass 0x03...), to the NVSwitch fabric (0x068000: NCCL folds every NVSwitch
//    into one node, and so does this: one nvswitch node per file) or to the GPU's CPU (0x068001, POWER9); each link
//    carries NCCL's per-link NVLink rate for the GPU's sm. A <c2c> (Grace) links the GPU to its CPU.
// GPU indices follow the `rank` attribute when every GPU has one (ranks 8..15 of a second node become 0..7),
// else (host, dev). Latencies are not in the file: each link gets a documented default (nccl_xml_read.cpp).
// The file is one server as NCCL sees it: NICs are endpoints and no network switch is invented behind them.
// Several hosts (distinct host_hash, as in a fused multi-node NVLink dump) are read when NVLink joins them.
//
// Every problem is an InputError at file:line:column: malformed XML, a missing or bad attribute, an unknown
// link_speed or tclass, an NVLink target that is no GPU of the file, no GPU at all, or GPUs that cannot reach
// each other. One GPU is accepted here (as read_dot does); `file:` specs still need two, like every topology kind.
#include <filesystem>
#include <string_view>

#include "syncsim/topology/topology.hpp"

namespace syncsim {

Topology read_nccl_xml(const std::filesystem::path& path);
// `source` names the text in errors and becomes the description.
Topology read_nccl_xml_text(std::string_view text, std::string_view source);

}  // namespace syncsim
