#include "syncsim/validation/inspector_sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include "syncsim/core/input_error.hpp"

#include "median.hpp"

namespace syncsim {

namespace {

// A record and the file it came from.
struct SourcedRecord {
  const InspectorRecord* record = nullptr;
  const std::string* source = nullptr;
};

// A communicator's records, per communicator rank, and which process each rank is.
struct CommRecords {
  const InspectorRecord* first = nullptr;
  const std::string* first_source = nullptr;
  std::vector<std::vector<SourcedRecord>> by_rank;  // by communicator rank, in coll_sn order once sorted
  std::vector<int> process;                         // by communicator rank; -1 until seen
};

[[noreturn]] void fail_at(const SourcedRecord& at, const std::string& key, const std::string& what) {
  throw InputError(what, SourceLocation{*at.source, at.record->line}, key);
}

std::string comm_label(const InspectorRecord& r) {
  return r.comm_name.empty() ? r.comm_id : fmt::format("{} ({})", r.comm_id, r.comm_name);
}

// The process a record came from: (hostname, pid), or its file when the record names neither.
std::string process_key(const SourcedRecord& s) {
  const InspectorRecord& r = *s.record;
  if (r.hostname.empty() && r.pid == 0) return "file " + *s.source;
  return fmt::format("{} pid {}", r.hostname, r.pid);
}

// The smallest period of the calls (collective and size), a divisor of their count.
std::size_t smallest_period(const std::vector<SourcedRecord>& calls) {
  const auto same = [](const SourcedRecord& a, const SourcedRecord& b) {
    return a.record->op == b.record->op && a.record->whole_buffer_bytes() == b.record->whole_buffer_bytes();
  };
  for (std::size_t p = 1; p < calls.size(); ++p) {
    if (calls.size() % p != 0) continue;
    bool periodic = true;
    for (std::size_t i = p; i < calls.size() && periodic; ++i) periodic = same(calls[i], calls[i - p]);
    if (periodic) return p;
  }
  return calls.size();
}

// Communicator records of every log, grouped, each rank's sorted by coll_sn; processes numbered in order of first
// record. Refuses a call syncsim does not model (the step would miss it) and a rank claimed by two processes.
std::vector<CommRecords> group_by_communicator(const std::vector<InspectorLog>& logs,
                                               std::vector<std::string>& processes) {
  std::map<std::string, std::size_t> comm_index;
  std::map<std::string, int> process_index;
  std::vector<CommRecords> comms;
  for (const InspectorLog& log : logs) {
    if (log.skipped_records > 0) {
      throw InputError(fmt::format("the job's step holds {}, which syncsim does not model as a collective (it "
                                   "replays AllReduce, AllGather, ReduceScatter, Broadcast and Reduce)",
                                   log.first_skipped_call),
                       SourceLocation{log.source, log.first_skipped_line}, "coll_perf.coll");
    }
    for (const InspectorRecord& r : log.records) {
      const SourcedRecord s{&r, &log.source};
      const auto [it, added] = comm_index.emplace(r.comm_id, comms.size());
      if (added) {
        comms.push_back({&r, &log.source, std::vector<std::vector<SourcedRecord>>(static_cast<std::size_t>(r.n_ranks)),
                         std::vector<int>(static_cast<std::size_t>(r.n_ranks), -1)});
      }
      CommRecords& comm = comms[it->second];
      if (r.n_ranks != comm.first->n_ranks) {
        fail_at(s, "header.n_ranks",
                fmt::format("communicator {} has {} ranks here but {} at {}:{}", comm_label(r), r.n_ranks,
                            comm.first->n_ranks, *comm.first_source, comm.first->line));
      }
      const auto [p, new_process] = process_index.emplace(process_key(s), static_cast<int>(processes.size()));
      if (new_process) processes.push_back(p->first);
      int& owner = comm.process[static_cast<std::size_t>(r.rank)];
      if (owner >= 0 && owner != p->second) {
        fail_at(s, "header.rank",
                fmt::format("rank {} of communicator {} is {} here but {} in earlier records", r.rank, comm_label(r),
                            p->first, processes[static_cast<std::size_t>(owner)]));
      }
      owner = p->second;
      comm.by_rank[static_cast<std::size_t>(r.rank)].push_back(s);
    }
  }
  for (CommRecords& comm : comms) {
    for (std::size_t rank = 0; rank < comm.by_rank.size(); ++rank) {
      if (comm.by_rank[rank].empty()) {
        throw InputError(fmt::format("communicator {}: rank {} of {} has no records (the logs of every process of the "
                                     "job are needed)",
                                     comm_label(*comm.first), rank, comm.by_rank.size()),
                         SourceLocation{*comm.first_source, comm.first->line}, "header.rank");
      }
      std::stable_sort(comm.by_rank[rank].begin(), comm.by_rank[rank].end(),
                       [](const SourcedRecord& a, const SourcedRecord& b) { return a.record->sn < b.record->sn; });
    }
  }
  return comms;
}

// Every rank of a communicator makes the same calls (collective, size) as its rank 0.
void check_not_ragged(const CommRecords& comm) {
  const std::vector<SourcedRecord>& base = comm.by_rank[0];
  for (std::size_t rank = 1; rank < comm.by_rank.size(); ++rank) {
    const std::vector<SourcedRecord>& other = comm.by_rank[rank];
    const std::size_t common = std::min(base.size(), other.size());
    for (std::size_t i = 0; i < common; ++i) {
      const InspectorRecord& a = *base[i].record;
      const InspectorRecord& b = *other[i].record;
      if (a.op == b.op && a.whole_buffer_bytes() == b.whole_buffer_bytes()) continue;
      fail_at(other[i], "coll_perf",
              fmt::format("ragged communicator {}: call {} of rank {} is {} of {} B, but rank 0's is {} of {} B "
                          "({}:{})",
                          comm_label(a), i, rank, b.coll, b.whole_buffer_bytes(), a.coll, a.whole_buffer_bytes(),
                          *base[i].source, a.line));
    }
    if (base.size() != other.size()) {
      const bool shorter = other.size() < base.size();
      fail_at(shorter ? other.back() : other[common], "coll_perf",
              fmt::format("ragged communicator {}: rank {} logged {} calls, rank 0 {}", comm_label(*comm.first), rank,
                          other.size(), base.size()));
    }
  }
}

// Each process's global rank: its rank in a communicator that spans every process, or (hostname, pid) order.
std::vector<int> number_processes(const std::vector<CommRecords>& comms, const std::vector<std::string>& processes,
                                  std::vector<std::string>& warnings) {
  std::vector<int> rank_of(processes.size(), -1);
  for (const CommRecords& comm : comms) {
    if (comm.process.size() != processes.size()) continue;
    for (std::size_t r = 0; r < comm.process.size(); ++r)
      rank_of[static_cast<std::size_t>(comm.process[r])] = static_cast<int>(r);
    return rank_of;
  }
  std::vector<int> order(processes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return processes[static_cast<std::size_t>(a)] < processes[static_cast<std::size_t>(b)];
  });
  for (std::size_t i = 0; i < order.size(); ++i) rank_of[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  warnings.push_back(
      fmt::format("no communicator spans all {} processes: global ranks numbered in (hostname, pid) "
                  "order",
                  processes.size()));
  return rank_of;
}

// One rank's call of one step: which communicator and call, and its record.
struct StepCall {
  int communicator = 0;
  int call = 0;
  SourcedRecord at;
};

double kernel_start(const StepCall& c) {
  return *c.at.record->kernel_start_us;
}
double kernel_stop(const StepCall& c) {
  return *c.at.record->kernel_stop_us;
}

// The rank's calls of every step, each step in the order of its kernels' starts; the order the same every step.
std::vector<std::vector<StepCall>> rank_step_calls(const std::vector<CommRecords>& comms,
                                                   const std::vector<std::pair<int, int>>& memberships,
                                                   const std::vector<std::size_t>& per_step, int steps, int rank) {
  std::vector<std::vector<StepCall>> by_step(static_cast<std::size_t>(steps));
  for (int s = 0; s < steps; ++s) {
    std::vector<StepCall>& calls = by_step[static_cast<std::size_t>(s)];
    for (const auto& [c, comm_rank] : memberships) {
      const std::size_t k = per_step[static_cast<std::size_t>(c)];
      const auto& records = comms[static_cast<std::size_t>(c)].by_rank[static_cast<std::size_t>(comm_rank)];
      for (std::size_t j = 0; j < k; ++j) {
        const SourcedRecord& at = records[static_cast<std::size_t>(s) * k + j];
        if (!at.record->kernel_start_us || !at.record->kernel_stop_us) {
          fail_at(at, "coll_perf.event_trace_ts",
                  "no kernel timestamps: a step's gaps come from the verbose log (NCCL_INSPECTOR_DUMP_VERBOSE=1)");
        }
        calls.push_back({c, static_cast<int>(j), at});
      }
    }
    std::stable_sort(calls.begin(), calls.end(),
                     [](const StepCall& a, const StepCall& b) { return kernel_start(a) < kernel_start(b); });
    const std::vector<StepCall>& first = by_step[0];
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].communicator == first[i].communicator && calls[i].call == first[i].call) continue;
      fail_at(calls[i].at, "coll_perf.event_trace_ts",
              fmt::format("rank {}'s collectives come in another order in step {} than in step 1 (its call {} of the "
                          "step here is {} of communicator {}, in step 1 {} of {})",
                          rank, s + 1, i, calls[i].at.record->coll, comm_label(*calls[i].at.record),
                          first[i].at.record->coll, comm_label(*first[i].at.record)));
    }
  }
  return by_step;
}

}  // namespace

CollectiveSequence extract_collective_sequence(const std::vector<InspectorLog>& logs) {
  CollectiveSequence seq;
  std::vector<std::string> processes;
  const std::vector<CommRecords> comms = group_by_communicator(logs, processes);
  for (const CommRecords& comm : comms) check_not_ragged(comm);
  seq.ranks = static_cast<int>(processes.size());
  const std::vector<int> rank_of = number_processes(comms, processes, seq.warnings);

  int steps = 0;
  for (const CommRecords& comm : comms) {
    steps = std::gcd(steps, static_cast<int>(comm.by_rank[0].size() / smallest_period(comm.by_rank[0])));
  }
  if (steps < 2) {
    const CommRecords& comm = comms.front();
    const std::size_t calls = comm.by_rank[0].size();
    throw InputError(fmt::format("no repeating step: communicator {} logged {} call{} a rank{}, not a pattern repeated "
                                 "a whole number of times (the log must hold at least two whole steps)",
                                 comm_label(*comm.first), calls, calls == 1 ? "" : "s",
                                 comms.size() > 1 ? " (with the other communicators' calls)" : ""),
                     SourceLocation{*comm.first_source, comm.first->line}, "coll_perf.coll_sn");
  }
  seq.steps = steps;

  std::vector<std::size_t> per_step;
  std::vector<std::vector<std::pair<int, int>>> memberships(processes.size());  // by global rank: (comm, comm rank)
  for (std::size_t c = 0; c < comms.size(); ++c) {
    const CommRecords& comm = comms[c];
    const std::size_t k = comm.by_rank[0].size() / static_cast<std::size_t>(steps);
    per_step.push_back(k);
    SequenceCommunicator out{comm.first->comm_id, comm.first->comm_name, {}, {}, *comm.first_source, comm.first->line};
    for (std::size_t r = 0; r < comm.process.size(); ++r) {
      const int g = rank_of[static_cast<std::size_t>(comm.process[r])];
      out.global_ranks.push_back(g);
      memberships[static_cast<std::size_t>(g)].emplace_back(static_cast<int>(c), static_cast<int>(r));
    }
    for (std::size_t j = 0; j < k; ++j) {
      const SourcedRecord& first = comm.by_rank[0][j];
      std::vector<double> times;
      for (const auto& records : comm.by_rank) {
        for (std::size_t i = j; i < records.size(); i += k) times.push_back(records[i].record->time_us);
      }
      out.calls.push_back({first.record->op, first.record->coll, first.record->whole_buffer_bytes(),
                           median_of(std::move(times)), *first.source, first.record->line});
    }
    seq.communicators.push_back(std::move(out));
  }

  int overlapping = 0;
  seq.rank_steps.resize(processes.size());
  for (std::size_t g = 0; g < processes.size(); ++g) {
    const auto by_step = rank_step_calls(comms, memberships[g], per_step, steps, static_cast<int>(g));
    const std::size_t m = by_step[0].size();
    for (std::size_t i = 0; i < m; ++i) {
      std::vector<double> gaps;
      for (std::size_t s = 0; s < by_step.size(); ++s) {
        if (i == 0 && s == 0) continue;  // the first step's first call has no call before it
        const StepCall& before = i > 0 ? by_step[s][i - 1] : by_step[s - 1][m - 1];
        gaps.push_back(kernel_start(by_step[s][i]) - kernel_stop(before));
      }
      double gap = median_of(std::move(gaps));
      if (gap < 0) {
        ++overlapping;
        gap = 0;
      }
      seq.rank_steps[g].push_back({by_step[0][i].communicator, by_step[0][i].call, gap});
    }
  }
  if (overlapping > 0) {
    seq.warnings.push_back(
        fmt::format("{} collective{} overlapped the one before on the same rank: replayed one after "
                    "the other, with no gap",
                    overlapping, overlapping == 1 ? "" : "s"));
  }
  return seq;
}

}  // namespace syncsim
