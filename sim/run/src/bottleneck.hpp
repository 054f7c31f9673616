#pragma once
// Bottleneck attribution: what bounds a run's iteration, named from the report the engine produced.
//
// A worker's time splits into compute (forward, backward, optimizer step), exposed communication (waiting for
// collectives the compute did not hide) and straggler wait (waiting for slower workers); the report's shares are
// those parts averaged over workers. The largest part names the bound:
//
//   compute share largest        -> bound "compute"            (more GPUs scale; the network is hidden)
//   straggler share largest      -> bound "stragglers"         (slow or jittery workers set the pace)
//   communication share largest  -> bound "communication"      resource: the busiest link, e.g. "pod0 -> pod1
//                                                              (inter-node network)" and its class (nvlink, pcie,
//                                                              network)
//                                   bound "parameter_server"   with parameter servers: the busiest link that
//                                                              touches a server (ps0, ps1, ...) when one carried
//                                                              traffic, else the busiest link
//
// Ties go to compute, then communication: a balanced run is reported as the cheaper thing to fix first.
#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

BottleneckReport attribute_bottleneck(const TrainingReport& report);

}  // namespace syncsim::run
