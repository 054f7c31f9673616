#pragma once
// NVLS (NVLink SHARP: the NVSwitch reduces) and NVLSTree (NVLS inside each NVLink domain, the domains across the
// network) AllReduce, as NCCL runs them (NCCL 2.30 src/device/all_reduce.h, src/transport/nvls.cc).
//
// Each rank owns 1/m of every slice (m ranks per domain). Per slice of S/k bytes, on one NVLink domain:
//
//            (A) every rank's slice up              (B) the switch's sum of each shard to its owner
//   gpu0 ──S/k──▶ ┌──────────┐                      ┌──────────┐ ──S/km──▶ gpu0    multimem.ld_reduce: the
//   gpu1 ──S/k──▶ │ nvswitch │  adds the m slices   │ nvswitch │ ──S/km──▶ gpu1    switch reads the shard from
//    ...          │ (reduces)│                      │          │    ...             every GPU and adds them
//   gpu(m-1) ───▶ └──────────┘                      └──────────┘ ──S/km──▶ gpu(m-1)
//
//            (D) each owner's reduced shard up      (E) the switch copies every shard to every rank
//   gpu0 ──S/km─▶ ┌──────────┐                      ┌──────────┐ ──S/k───▶ gpu0    multimem.st: one store,
//    ...          │ nvswitch │  multicast           │ nvswitch │    ...             m deliveries
//                 └──────────┘                      └──────────┘ ──S/k───▶ gpu(m-1)
//
// NVLSTree adds (C) between B and D: the owner of a shard sends it to the owners of the same shard in the other
// domains over the network and adds theirs (with two domains, NCCL's tree of two nodes: one exchange each way; with
// more, a direct exchange among the D owners, not NCCL's tree of nodes). So each GPU's NVLink carries S (1 + 1/m)
// each way, against 2 (n-1)/n S for a ring: what lets NVLS's nccl-tests busbw, 2 (n-1)/n S / t by convention, exceed
// the link rate (it counts a ring's traffic, not what moves). Each NIC carries (D-1) S/(D m) each way (NVLSTree).
//
// Pipelining: slice j's stages run at consecutive steps (A at rank step j, B at j+1, C at j+2, D at j+2+x, E at
// j+3+x, x = 1 with C, else 0), so stage A of slice j+1 runs beside stage B of slice j. Participants: the n ranks,
// then one switch per domain (collective_plan.hpp, Participant). With the NVLink of each GPU at B, one domain, no
// latency and k = 1 the four stages take S/B + 2 S/(m B) + S/B; pipelined in k slices the NVLink time tends to
// (1 + 1/m) S / B (the up and down directions overlap).
//
// Costing (latency_model.hpp): NCCL's NVLS runs the Simple protocol only, at nvlsEfficiency of the link rate (0.85
// Hopper, 0.74 Blackwell), and charges its NVLink latency once per collective.
#include <optional>
#include <vector>

#include "syncsim/collectives/algorithm.hpp"
#include "syncsim/collectives/collective_plan.hpp"
#include "syncsim/topology/topology.hpp"

namespace syncsim {

// NCCL's NVLS needs compute capability 9.0, Hopper (src/graph/search.cc: "ccMin < 90" skips it); Blackwell is 10.0.
inline constexpr int kNvlsMinComputeCapability = 90;
inline constexpr int kBlackwellComputeCapability = 100;

// NVLS or NVLSTree.
bool is_nvls(Algorithm algorithm);

class NvlsPlan final : public CollectivePlan {
 public:
  // Throws InputError unless op is AllReduce, every domain has the same number (>= 1) of ranks, the domains cover
  // 0..ranks-1 once, and slices >= 1.
  NvlsPlan(CollectiveOp op, std::size_t ranks, Bytes size, std::vector<NvlinkDomain> domains, std::uint32_t slices);

  std::string_view algorithm() const override;
  CollectiveOp op() const override { return CollectiveOp::allreduce; }
  std::size_t rank_count() const override { return ranks_; }
  Bytes size() const override { return size_; }
  std::size_t participant_count() const override { return ranks_ + domains_.size(); }
  Participant participant(std::uint32_t index) const override;
  std::uint32_t step_count(Rank rank) const override;
  void step(Rank who, std::uint32_t step, PlanStep& out) const override;

 private:
  void rank_step(Rank rank, std::uint32_t step, PlanStep& out) const;
  void switch_step(std::size_t domain, std::uint32_t step, PlanStep& out) const;
  // Whether slice `step - offset` exists.
  bool slice_at(std::uint32_t step, std::uint32_t offset) const { return step >= offset && step - offset < slices_; }

  std::size_t ranks_;
  Bytes size_;
  std::vector<NvlinkDomain> domains_;
  std::uint32_t slices_;
  std::uint32_t exchange_;  // 1 with more than one domain (stage C), else 0
  std::vector<std::uint32_t> domain_of_;
  std::vector<std::uint32_t> position_of_;  // a rank's index in its domain: which shard it owns
};

// The nvswitch node a GPU's NVLinks reach, when they reach exactly one.
std::optional<NodeId> nvlink_switch_of(const Topology& topology, NodeId gpu);
// The NVLink domains whose NVSwitch reduces, from the topology: the ranks on each NVSwitch (in rank order), when
// every rank's GPU has exactly one NVLink to exactly one nvswitch node and every such switch reduces — reduction on,
// or auto with a compute capability of 9.0 or more (NCCL's NVLS needs Hopper) on a switch inside one host (auto
// leaves a multi-host NVLink domain, such as a GB200 NVL72 rack, to rings and trees). Empty otherwise.
std::vector<NvlinkDomain> reducing_nvlink_domains(const Topology& topology, std::size_t ranks,
                                                  std::optional<int> compute_capability);
// The same for ranks on GPUs `gpus` (rank r on GPU index gpus[r]).
std::vector<NvlinkDomain> reducing_nvlink_domains(const Topology& topology, const std::vector<std::size_t>& gpus,
                                                  std::optional<int> compute_capability);
// Bytes on each GPU's NVLink per direction: (1 + 1/m) x size for m ranks per domain.
double nvls_nvlink_bytes(Bytes size, std::size_t domain_ranks);
// NCCL's NVLS channel count (2.30 src/transport/nvls.cc): 16 on Hopper; on Blackwell 24 inside one NVLink domain
// and 32 across several; Hopper's where the GPU is not known.
std::uint32_t nvls_channels(std::optional<int> compute_capability, std::size_t domains);
// Slices of NCCL's NVLS chunk (128 KiB, NCCL_NVLS_CHUNKSIZE) per channel, at least 1 and at most 16 (a pipeline
// that deep is within 1/16 of its limit; more slices only cost events).
std::uint32_t nvls_slices(Bytes per_channel);

}  // namespace syncsim
