// model.collectives: the job's collective sequence replayed on the scenario's cluster (collectives_replay.hpp), its
// result turned into the report: each worker's gaps are its compute, its collectives its exposed communication, its
// wait for a group's last rank idle time.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "collectives_replay.hpp"
#include "convergence_run.hpp"
#include "engines.hpp"
#include "replayed_faults.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::run {

namespace {

// What a sequence's step is not: a layout, sharding, a straggler model or faults of the scenario's own.
void check_collectives_replay_supported(const Scenario& s) {
  refuse_what_layouts_lack(s, "with model.collectives");
  refuse_unsimulated_overheads(s, "with model.collectives", false);
  const ParallelismConfig& p = s.parallelism;
  for (const Located<std::int64_t>* degree : {&p.tensor, &p.pipeline, &p.context, &p.expert}) {
    if (degree->value > 1) {
      throw degree->error("the job's layout is in its collectives' communicators: model.collectives replays them");
    }
  }
  if (p.sharding.value != ShardingLevel::none) {
    throw p.sharding.error("the job's sharding is in its collectives: model.collectives replays them");
  }
  if (!s.faults.empty()) {
    throw InputError("faults are not simulated yet with model.collectives", s.faults[0].where, s.faults[0].key);
  }
  if (s.stragglers.jitter.distribution != JitterKind::none || !s.stragglers.slow.empty()) {
    throw InputError("stragglers are not simulated yet with model.collectives (the log's gaps are the ranks' own)",
                     SourceLocation{s.source, 0, 0}, "stragglers");
  }
}

using CallShape = std::vector<std::pair<CollectiveOp, std::int64_t>>;

// Communicators that make the same calls at once over disjoint ranks (a layout's tensor-parallel groups).
struct CommunicatorFamily {
  CallShape shape;
  std::vector<std::vector<std::size_t>> groups;
  std::vector<bool> member;  // by global rank: in one of the groups
};

TrainingReport::CollectiveSequenceReport sequence_report(const Scenario& s, const CollectiveSequence& sequence,
                                                         const CollectiveReplaySetup& setup) {
  TrainingReport::CollectiveSequenceReport out;
  out.file = std::filesystem::path(s.model.collectives->value.front()).filename().string();
  out.ranks = sequence.ranks;
  out.communicators = static_cast<std::int64_t>(sequence.communicators.size());
  out.calls_per_step = static_cast<std::int64_t>(setup.calls.size());
  out.steps_in_log = sequence.steps;
  for (const CollectiveReplaySetup::Op& op : setup.rank_ops.front()) out.rank0_gaps_per_step += op.gap;
  out.warnings = sequence.warnings;
  return out;
}

}  // namespace

CollectiveSequence scenario_collective_sequence(const Scenario& scenario) {
  const Located<std::vector<std::string>>& files = *scenario.model.collectives;
  return at_value(files, [&] {
    std::vector<InspectorLog> logs;
    for (const std::string& file : files.value) logs.push_back(read_inspector_log(file));
    return extract_collective_sequence(logs);
  });
}

CollectiveReplaySetup collective_replay_setup(ResolvedScenario& context, const CollectiveSequence& sequence,
                                              std::int64_t steps) {
  const Located<std::vector<std::string>>& files = *context.scenario().model.collectives;
  if (context.workers() != sequence.ranks) {
    throw files.error(fmt::format(
        "the job in {} has {} ranks; the cluster runs {} workers ({}): the replay keeps the log's rank numbering",
        files.value.front(), sequence.ranks, context.workers(),
        context.workers() < sequence.ranks ? "a topology with at least as many GPUs is needed"
                                           : fmt::format("set cluster.workers: {}", sequence.ranks)));
  }
  // Communicators alike (same size, same calls) over disjoint ranks make each call at once: one family, simulated
  // together. Communicators over the same ranks (two process groups of one set of GPUs) are families apart.
  std::vector<CommunicatorFamily> families;
  std::vector<std::size_t> family_of;
  for (const SequenceCommunicator& comm : sequence.communicators) {
    CallShape shape;
    for (const SequenceCall& call : comm.calls) shape.emplace_back(call.op, call.size_bytes);
    const auto fits = [&](const CommunicatorFamily& f) {
      return f.shape == shape && f.groups.front().size() == comm.global_ranks.size() &&
             std::none_of(comm.global_ranks.begin(), comm.global_ranks.end(),
                          [&](int r) { return f.member[static_cast<std::size_t>(r)]; });
    };
    auto family = std::find_if(families.begin(), families.end(), fits);
    if (family == families.end()) {
      families.push_back({shape, {}, std::vector<bool>(static_cast<std::size_t>(sequence.ranks), false)});
      family = families.end() - 1;
    }
    family->groups.emplace_back(comm.global_ranks.begin(), comm.global_ranks.end());
    for (const int r : comm.global_ranks) family->member[static_cast<std::size_t>(r)] = true;
    family_of.push_back(static_cast<std::size_t>(family - families.begin()));
  }
  CollectiveReplaySetup setup;
  setup.ranks = sequence.ranks;
  setup.steps = steps;
  std::vector<std::vector<int>> call_index(sequence.communicators.size());
  for (std::size_t c = 0; c < sequence.communicators.size(); ++c) {
    const SequenceCommunicator& comm = sequence.communicators[c];
    for (const SequenceCall& call : comm.calls) {
      SimTime time = SimTime::zero();
      if (comm.global_ranks.size() > 1) {
        time = context.group_collective(call.op, Bytes{call.size_bytes}, families[family_of[c]].groups).time;
      }
      call_index[c].push_back(static_cast<int>(setup.calls.size()));
      setup.calls.push_back({comm.global_ranks, time});
    }
  }
  for (const std::vector<SequenceOp>& ops : sequence.rank_steps) {
    std::vector<CollectiveReplaySetup::Op>& out = setup.rank_ops.emplace_back();
    for (const SequenceOp& op : ops) {
      out.push_back({call_index[static_cast<std::size_t>(op.communicator)][static_cast<std::size_t>(op.call)],
                     SimTime::from_us(op.gap_us)});
    }
  }
  return setup;
}

RunOutput run_collectives_replay(ResolvedScenario& context, convergence::UpdateSchedule* schedule) {
  const Scenario& s = context.scenario();
  check_collectives_replay_supported(s);
  degrade_for_whole_run(context);
  const CollectiveSequence sequence = scenario_collective_sequence(s);
  const CollectiveReplaySetup setup = collective_replay_setup(context, sequence, s.training.iterations);
  CollectiveReplayResult result;
  try {
    result = run_collective_replay(setup);
  } catch (const InputError& e) {
    throw s.model.collectives->error(fmt::format("{}: {}", s.model.collectives->value.front(), e.message()));
  }
  RunOutput out;
  TrainingReport& r = out.report;
  r = context.base_report();
  // One GPU with no communication runs the step's compute alone: the log's gaps (rank 0's), not the named model's
  // layers, so that scaling efficiency is the step's share without communication.
  r.collective_sequence = sequence_report(s, sequence, setup);
  r.single_gpu_iteration = r.collective_sequence->rank0_gaps_per_step;
  if (r.single_gpu_iteration > SimTime::zero()) {
    r.single_gpu_samples_per_second =
        static_cast<double>(context.batch() * s.model.micro_batches) / r.single_gpu_iteration.seconds();
  }
  for (int rank = 0; rank < setup.ranks; ++rank) {
    const auto i = static_cast<std::size_t>(rank);
    r.per_worker.push_back({.compute = result.compute[i],
                            .optimizer = SimTime::zero(),
                            .exposed_communication = result.communication[i],
                            .straggler_wait = result.wait[i],
                            .framework_overhead = SimTime::zero(),
                            .overlap_interference = SimTime::zero(),
                            .pipeline_bubble = SimTime::zero(),
                            .updates = std::nullopt});
  }
  const std::vector<SimTime> times = fill_run_timeline(context, r, result.iteration_times, result.total);
  compute_shares(r);
  if (schedule != nullptr) *schedule = synchronous_schedule(context.workers(), times);
  return out;
}

}  // namespace syncsim::run
