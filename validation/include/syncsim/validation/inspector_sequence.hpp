#pragma once
// CollectiveSequence: a job's per-step collective sequence, extracted from its NCCL Inspector logs
// (inspector_log.hpp), what `model.collectives` replays on another topology (docs/calibration.md, "A job's
// collectives as a workload").
//
// The logs must be verbose (NCCL_INSPECTOR_DUMP_VERBOSE=1): the gaps come from each record's kernel timestamps.
//
//   1. Processes: a process is (hostname, pid) (the file, without them). Its global rank is its rank in a
//      communicator that spans every process (the job's world); without one, processes are numbered in
//      (hostname, pid) order, with a warning.
//   2. Communicators: every member rank's records, in coll_sn order, must be the same calls (collective and size):
//      otherwise the communicator is ragged (named, at the first record that differs).
//   3. The step: each communicator's calls c_0 .. c_{n-1} repeat with a smallest period p (c_i = c_{i+p}, p divides
//      n), so n/p times. The job's step count S is the largest that every communicator repeats a whole number of
//      times: the gcd of the n/p; a communicator makes n/S calls a step. S must be at least 2 (one step is no
//      pattern); the records must be whole steps (cut a log's warm-up and its last, partial step).
//   4. Gaps: a rank's collectives of one step, over all its communicators, in the order of their kernels' starts,
//      must come in the same order every step. The gap before a call is the time from the previous call's last
//      kernel stop to its first kernel start (the wrap-around gap before a step's first call: from the previous
//      step's last), the median over the steps that have it; one of below zero (overlapping collectives) counts as
//      zero, with a warning.
//
//       rank r:  |gap_0| c_0 |gap_1| c_1 | ... |gap_{m-1}| c_{m-1} ||gap_0| c_0 ...    (one step, then the next)
//
// Refused (InputError naming the file, line and key of the record that shows it): a call syncsim does not model
// (All2All, AllGatherV, point-to-point), a record without kernel timestamps, a ragged communicator, no repeating
// step, a step whose order changes.
//
//   const CollectiveSequence seq = extract_collective_sequence({read_inspector_log("job.log")});
//   for (const SequenceCall& c : seq.communicators[0].calls) use(c.op, c.size_bytes);
#include <cstdint>
#include <string>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"
#include "syncsim/validation/inspector_log.hpp"

namespace syncsim {

// One call a communicator makes each step.
struct SequenceCall {
  CollectiveOp op = CollectiveOp::allreduce;
  std::string coll;             // as NCCL names it: "AllReduce"
  std::int64_t size_bytes = 0;  // the whole buffer (InspectorRecord::whole_buffer_bytes)
  double measured_us = 0;       // the median of its records' coll_exec_time_us
  std::string source;           // its first record's file and line
  int line = 0;
};

struct SequenceCommunicator {
  std::string id;
  std::string name;                 // "" when the log has none
  std::vector<int> global_ranks;    // global_ranks[communicator rank]
  std::vector<SequenceCall> calls;  // one step's, in coll_sn order
  std::string source;               // its first record's file and line
  int line = 0;
};

// One of a rank's collectives in its step: communicator `communicator`'s call `call`, after `gap_us` of compute.
struct SequenceOp {
  int communicator = 0;
  int call = 0;
  double gap_us = 0;
};

struct CollectiveSequence {
  int ranks = 0;                                    // processes, numbered 0..ranks-1
  int steps = 0;                                    // in the log
  std::vector<SequenceCommunicator> communicators;  // in order of first record
  std::vector<std::vector<SequenceOp>> rank_steps;  // rank_steps[rank]: one step, in order
  std::vector<std::string> warnings;                // one sentence each
};

// Throws InputError as described above.
CollectiveSequence extract_collective_sequence(const std::vector<InspectorLog>& logs);

}  // namespace syncsim
