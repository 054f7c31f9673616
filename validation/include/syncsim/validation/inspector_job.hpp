#pragma once
// InspectorJob: the records of one job's NCCL Inspector logs (inspector_log.hpp) grouped by communicator, and their
// times aggregated into the measured points that calibration and validation use.
//
// A job writes one log per process (`<hostname>-pid<pid>.log`), each with the records of the communicators that
// process's rank belongs to. Records are grouped by communicator id across all the files given; a communicator's
// records must agree on n_ranks and nnodes, and its host names are at most nnodes. Then every collective call is
// keyed by (collective, whole-buffer size, communicator ranks, communicator nodes): its point is the MEDIAN of all
// its records' times (every rank of every call of every communicator of that shape: a job's step repeats the same
// calls, and the median keeps a stray slow call from moving the point), with the count of records kept.
//
// The points of one (collective, ranks, nodes) become one NcclTestsLog (nccl_tests_log.hpp) with a row per size,
// in-place and out-of-place time both the median, so the fit and the error tables take them as they take an
// nccl-tests table. What the log lacks, the topology must still give: link rates, and which GPUs of a node a
// communicator spans (syncsim simulates a communicator of r ranks on n nodes as r/n GPUs of each of n nodes).
//
//   const InspectorJob job = group_inspector_logs({read_inspector_log("node-00-pid1.log")});
//   check_communicators_fit(job, "dgx:nodes=2,gpus=8", "--topology");
//   for (const NcclTestsLog& log : inspector_nccl_tests_logs(job)) calibrate_on(log);
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/validation/inspector_log.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim {

struct InspectorCommunicator {
  std::string id;
  std::string name;  // "" when the log has none
  int ranks = 0;
  int nodes = 0;
  std::vector<int> ranks_seen;     // sorted: the ranks whose records the files hold
  std::vector<std::string> hosts;  // distinct host names, in order of first record
  int records = 0;
  std::string source;  // the file and line of its first record
  int line = 0;

  std::string label() const;  // "0x7f8c (DP Group 0), 8 ranks on 1 node"
};

struct InspectorPoint {
  CollectiveOp op = CollectiveOp::allreduce;
  int ranks = 0;
  int nodes = 0;
  std::int64_t size_bytes = 0;  // the whole buffer, as nccl-tests prints it
  double median_us = 0;
  int count = 0;       // records aggregated
  std::string source;  // the file and line of its first record
  int line = 0;
};

struct InspectorJob {
  std::vector<std::string> sources;                  // the files, in the order given
  std::vector<InspectorCommunicator> communicators;  // in order of first record
  std::vector<InspectorPoint> points;                // sorted by (collective, ranks, nodes, size)
  std::vector<std::string> warnings;
};

// Throws InputError naming file, line and key for a communicator whose records disagree.
InspectorJob group_inspector_logs(const std::vector<InspectorLog>& logs);
// read_inspector_log of each path, then group_inspector_logs.
InspectorJob read_inspector_job(const std::vector<std::string>& paths);

// Throws InputError (naming the communicator and its first record) when a communicator has more ranks than the
// topology family, as given, has GPUs: the job cannot have run on that system.
void check_communicators_fit(const InspectorJob& job, std::string_view topology_family, std::string_view source);

// One log per (collective, ranks, nodes), in the order of `points`; communicators of one rank are left out (no
// transfer to simulate). Its `source` is the file of its first point; its rows' lines are those of their first
// records in that file (0 for a size first seen in another file). Throws InputError when no table is left.
std::vector<NcclTestsLog> inspector_nccl_tests_logs(const InspectorJob& job);

}  // namespace syncsim
