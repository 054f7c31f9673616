#pragma once
// LogSystem: the simulated system behind one nccl-tests log, and the measured points it is compared with.
//
// A calibration is fitted for a topology *family* (a spec such as `dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,...`)
// and every log is simulated on that family scaled to the log's shape (scale_topology_spec):
//
//   kind                    what the log sets                     example (a 1-node log, 8 ranks)
//   dgx                     nodes = hosts, gpus = ranks per host  dgx:nodes=2,gpus=8,... -> dgx:nodes=1,gpus=8,...
//   ring, mesh, switch,     n = ranks                             switch:n=4,bw=32GB/s -> switch:n=8,bw=32GB/s
//   fattree
//   torus, file             nothing: the spec as given, whose first `ranks` GPUs run the collective
//
// Every other key keeps its value, in its place in the text, so the scaled spec reads like the one given.
//
// A dgx family on a log whose GPU the catalog knows (every rank's device the same GPU) also takes the GPU's fabric
// (gpu_spec.hpp): nvlink_bw is the GPU's NVLink rate per direction unless the family gives one, and where one
// NVLink domain spans several hosts (a GB200 NVL72 rack: 72 GPUs, trays of 4, so at most 18 trays) the hosts are
// laid out as the fewest racks that hold them, evenly filled, one domain each: a log of 32 trays of 4 GB200s is 2
// racks of 16 trays, nvlink_domain=16. A family's own nvlink_domain=T is the most trays a domain holds.
//
//   LogSystem system(log, "dgx:nodes=2,gpus=8,nvlink_bw=300GB/s,nic_bw=200Gbps", "--topology");
//   for (const MeasuredPoint& p : measured_points(log, Placement::out_of_place)) {
//     const CollectiveOutcome out = system.simulate(p.size, calibration_model);
//   }
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/collectives/collective_runner.hpp"
#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/topology/router.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim {

struct MeasuredPoint {
  Bytes size;
  double time_us = 0;
  int line = 0;  // the row's line in the log
};

// The log's rows as measured points. Rows of size 0 are left out: nccl-tests times an empty call there (a few
// hundred nanoseconds of nothing), which no transfer model predicts or should.
std::vector<MeasuredPoint> measured_points(const NcclTestsLog& log, Placement placement);

// The family spec scaled to `ranks` ranks on `hosts` hosts (see the table above). Throws InputError (naming
// `source`) when the spec does not parse, or a dgx family meets hosts with different rank counts.
std::string scale_topology_spec(std::string_view family, int ranks, int hosts, std::string_view source,
                                const std::optional<GpuSpec>& gpu = std::nullopt);

// The catalog GPU of an nccl-tests device name ("NVIDIA A100-SXM4-40GB", "Tesla V100-SXM2-32GB", "NVIDIA GB200";
// find_gpu ignores the vendor words), or nullopt when the catalog does not know it.
std::optional<GpuSpec> catalog_gpu_of_device(const std::string& name);

// What validate and calibrate say about a log before its results: the reader's warnings, then one for each device
// the catalog does not know, whose NVLink rate and NCCL ceiling are then the topology's defaults, not the GPU's
// (found by fuzzing: a misspelt device silently changed a fit).
std::vector<std::string> log_warnings(const NcclTestsLog& log);

class LogSystem {
 public:
  // Builds the family scaled to the log; throws InputError when the topology has fewer GPUs than the log ranks.
  LogSystem(const NcclTestsLog& log, std::string_view topology_family, std::string_view source);

  const std::string& topology_spec() const { return spec_; }
  const Topology& topology() const { return *topology_; }
  CollectiveOp op() const { return op_; }
  std::size_t ranks() const { return ranks_; }
  // The link classes the collective's routes use (GPU 0 to every rank, and each rank to the next): the classes
  // whose parameters the log can tell anything about.
  const std::vector<LinkKind>& link_classes() const { return classes_; }
  // NCCL's bus-bandwidth ceiling for the log's GPUs (nccl_busbw_cap), when every rank's device name is a catalog
  // GPU of one architecture; applied to NCCL's own model only (a calibrated one has fitted what it needs).
  const std::optional<Bandwidth>& busbw_cap() const { return busbw_cap_; }
  // The log's GPUs' compute capability, on the same condition: it resolves nvls=auto (NVSwitches reduce from
  // Hopper on) and NVLS's efficiency.
  const std::optional<int>& compute_capability() const { return compute_capability_; }
  // The collective's system as a calibration's domain is checked against (calibration_domain.hpp): the log's GPU
  // (catalog names, or the device names the catalog does not know, joined by " + "), hosts and link classes.
  SystemShape shape();

  // The collective at `size` under one calibrated model (every regime tried, the fastest wins), or one transfer
  // cost (wrapped as a one-regime model), or NCCL's own model when `model` is null. `algorithm` fixes the
  // algorithm (nullopt: auto).
  CollectiveOutcome simulate(Bytes size, const CalibratedModel* model,
                             std::optional<Algorithm> algorithm = std::nullopt);
  CollectiveOutcome simulate(Bytes size, const TransferCost& cost, std::optional<Algorithm> algorithm = std::nullopt);

 private:
  std::string spec_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<Router> router_;
  CollectiveOp op_;
  std::size_t ranks_;
  Rank root_{0};  // broadcast and reduce: the log's root
  std::vector<LinkKind> classes_;
  std::optional<Bandwidth> busbw_cap_;
  std::optional<int> compute_capability_;
  std::string gpu_name_;
};

}  // namespace syncsim
