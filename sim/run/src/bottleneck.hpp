#pragma once
// Bottleneck attribution: what bounds a run's iteration, named by its causes of lost time rather than by its
// largest time share (a run at 67% efficiency with a third of its time in exposed AllReduce is bound by that
// AllReduce, not by the compute that fills the rest).
//
// Causes (TrainingReport::causes), each with what an iteration would gain without it:
//   communication        per group kind (data, tensor, context, pipeline, expert, replicas): the synchronous engine
//                        repeats the run with every collective free, the model-parallel engine with that kind's
//                        collectives free (measured); otherwise the exposed time the engine reports
//   parameter_server     with parameter servers: the exposed communication, waiting on the servers and their links
//   stragglers           the synchronous engine repeats the run without stragglers (measured); otherwise the
//                        straggler wait
//   failures             the run's faults: the work thrown away and the wait for their detection; with
//                        `reliability:` the long job's lost progress, detection and repair wait (shares of its time)
//   restarts             the run's faults: detection to resumption; with `reliability:` the long job's restarts
//   checkpoint_saves     with `reliability:`, the long job's checkpoint stalls
//   stragglers           (from the shares) the idle time less the faults' downtime, which every worker waits alike
//   pipeline_bubble, overlap_interference, framework_overhead
//                        their time on the critical path, from the shares
// Causes the engine measured replace the share-derived ones of the same kind and group. Ranked by time, largest
// first; a communication cause names the busiest link (with parameter servers: the busiest link touching a server).
//
// The bound is the largest cause when it costs at least kMaterialShare of the iteration, and compute otherwise
// (a cause below a tenth of the iteration is not what to fix first). The summary says it in words:
//   "33% of the iteration is exposed data-parallel communication on pod0 -> pod1 (inter-node network)"
//   "22% of the iteration is waiting on stragglers"
//   "compute-bound: 91% of the iteration is compute; the largest loss is 4% (data-parallel communication)"
#include <vector>

#include "syncsim/training/training_report.hpp"

namespace syncsim::run {

inline constexpr double kMaterialShare = 0.10;

// The report's causes completed from its shares, with their shares and resources, ranked (see above).
std::vector<CauseReport> ranked_causes(const TrainingReport& report);

// The bound from report.causes (ranked_causes of the report when it has none).
BottleneckReport attribute_bottleneck(const TrainingReport& report);

}  // namespace syncsim::run
