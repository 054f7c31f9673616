// A job's per-step collective sequence from its NCCL Inspector logs (inspector_sequence.hpp). The system: the
// synthetic log of tests/data/inspector (README.md's table: 8 ranks, TP groups of 4, DP groups of 2, a world
// communicator, three steps with gaps 1000, 500, 2000, 300 and 200 us). Expected: 3 steps; per communicator its calls
// of one step with their whole-buffer sizes and medians; the global ranks of each group; every rank's five calls in
// order with those gaps (rank 1's late step left out by the median). Then each refusal, at its file, line and key.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/inspector_sequence.hpp"

using namespace syncsim;

namespace {

const std::string kSequenceLog = std::string(SYNCSIM_INSPECTOR_DATA) + "/synthetic-sequence-2node-8gpu.log";

// One verbose record of communicator `id` (n ranks), rank `rank` of process pid 100 + rank, its kernel at [start,
// start + 10) us.
std::string sequence_line(const std::string& id, int rank, int n, const std::string& coll, std::int64_t size, int sn,
                          std::int64_t start, bool timestamps = true) {
  const std::string trace =
      timestamps ? fmt::format(R"(, "event_trace_ts": {{"coll_start_ts": {}, "coll_stop_ts": {}, "kernel_events": )"
                               R"([{{"channel_id": 0, "kernel_start_ts": {}, "kernel_stop_ts": {}}}]}})",
                               start - 5, start - 4, start, start + 10)
                 : "";
  return fmt::format(R"({{"header": {{"id": "{}", "rank": {}, "n_ranks": {}, "nnodes": 1}}, "metadata": {{)"
                     R"("hostname": "h", "pid": {}}}, "coll_perf": {{"coll": "{}", "coll_sn": {}, )"
                     R"("coll_msg_size_bytes": {}, "coll_exec_time_us": 10{}}}}})"
                     "\n",
                     id, rank, n, 100 + rank, coll, sn, size, trace);
}

// Two ranks, one communicator, `steps` AllReduces of 1 MiB, 100 us apart.
std::string two_rank_log(int steps) {
  std::string text;
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < 2; ++r) text += sequence_line("0xa", r, 2, "AllReduce", 1 << 20, s, 1000 + 110 * s);
  }
  return text;
}

std::string sequence_refusal(const std::string& text) {
  try {
    (void)extract_collective_sequence({parse_inspector_log(text, "job.log")});
  } catch (const InputError& e) {
    const auto& where = e.where();
    return fmt::format("{}:{} {}: {}", where ? where->source : "", where ? where->line : 0, e.key(), e.message());
  }
  return "read";
}

}  // namespace

TEST_CASE("the synthetic job's sequence: three steps, its calls, groups and gaps", "[inspector][sequence]") {
  const CollectiveSequence seq = extract_collective_sequence({read_inspector_log(kSequenceLog)});
  CHECK(seq.ranks == 8);
  CHECK(seq.steps == 3);
  CHECK(seq.warnings.empty());
  REQUIRE(seq.communicators.size() == 7);  // world, 2 TP, 4 DP
  std::vector<std::string> names;
  for (const SequenceCommunicator& c : seq.communicators) names.push_back(c.name);
  // In order of first record: the log is in time order, and TP Group 0's rank 0 logs first.
  CHECK(names == std::vector<std::string>{"TP Group 0", "TP Group 1", "DP Group 0", "DP Group 1", "DP Group 2",
                                          "DP Group 3", "World"});
  const SequenceCommunicator& tp1 = seq.communicators[1];
  CHECK(tp1.global_ranks == std::vector<int>{4, 5, 6, 7});
  REQUIRE(tp1.calls.size() == 2);
  for (const SequenceCall& call : tp1.calls) {
    CHECK(call.op == CollectiveOp::allreduce);
    CHECK(call.size_bytes == 8 << 20);
    CHECK(call.measured_us == 120);
  }
  const SequenceCommunicator& dp2 = seq.communicators[4];
  CHECK(dp2.global_ranks == std::vector<int>{2, 6});
  REQUIRE(dp2.calls.size() == 2);
  CHECK(dp2.calls[0].op == CollectiveOp::reduce_scatter);
  CHECK(dp2.calls[0].size_bytes == 64 << 20);  // the whole buffer: 2 ranks x 32 MiB
  CHECK(dp2.calls[1].op == CollectiveOp::all_gather);
  CHECK(dp2.calls[1].measured_us == 650);
  const SequenceCommunicator& world = seq.communicators[6];
  CHECK(world.global_ranks == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE(world.calls.size() == 1);
  CHECK(world.calls[0].size_bytes == 8192);

  REQUIRE(seq.rank_steps.size() == 8);
  for (int rank = 0; rank < 8; ++rank) {
    INFO("rank " << rank);
    const std::vector<SequenceOp>& ops = seq.rank_steps[static_cast<std::size_t>(rank)];
    REQUIRE(ops.size() == 5);
    const int tp = rank / 4;
    const int dp = 2 + rank % 4;
    const std::vector<std::pair<int, int>> expected_calls = {{tp, 0}, {tp, 1}, {dp, 0}, {dp, 1}, {6, 0}};
    const std::vector<double> expected_gaps = {1000, 500, 2000, 300, 200};
    for (std::size_t i = 0; i < ops.size(); ++i) {
      CHECK(ops[i].communicator == expected_calls[i].first);
      CHECK(ops[i].call == expected_calls[i].second);
      CHECK(ops[i].gap_us == expected_gaps[i]);
    }
  }
}

TEST_CASE("the sequence refuses what a step cannot be made of, at file, line and key", "[inspector][sequence]") {
  CHECK(extract_collective_sequence({parse_inspector_log(two_rank_log(2), "job.log")}).steps == 2);
  // One step is no repeating pattern (the period is the whole log).
  CHECK(sequence_refusal(two_rank_log(1)) ==
        "job.log:1 coll_perf.coll_sn: no repeating step: communicator 0xa logged 1 call a rank, not a pattern "
        "repeated a whole number of times (the log must hold at least two whole steps)");
  // Three AllReduces and a different fourth: the calls do not repeat.
  CHECK_THAT(sequence_refusal(two_rank_log(3) + sequence_line("0xa", 0, 2, "AllReduce", 2048, 3, 2000) +
                              sequence_line("0xa", 1, 2, "AllReduce", 2048, 3, 2000)),
             Catch::StartsWith("job.log:1 coll_perf.coll_sn: no repeating step"));
  // Ragged: rank 1 logged a call fewer than rank 0.
  CHECK(sequence_refusal(two_rank_log(2) + sequence_line("0xa", 0, 2, "AllReduce", 1 << 20, 2, 1220)) ==
        "job.log:4 coll_perf: ragged communicator 0xa: rank 1 logged 2 calls, rank 0 3");
  // Ragged: rank 1's second call is another size.
  std::string other = two_rank_log(1) + sequence_line("0xa", 0, 2, "AllReduce", 1 << 20, 1, 1110) +
                      sequence_line("0xa", 1, 2, "AllReduce", 4096, 1, 1110);
  CHECK_THAT(
      sequence_refusal(other),
      Catch::StartsWith("job.log:4 coll_perf: ragged communicator 0xa: call 1 of rank 1 is AllReduce of 4096 B"));
  // A call syncsim does not model.
  CHECK(sequence_refusal(two_rank_log(2) + sequence_line("0xa", 0, 2, "AllGatherV", 1024, 2, 1300)) ==
        "job.log:5 coll_perf.coll: the job's step holds AllGatherV, which syncsim does not model as a collective (it "
        "replays AllReduce, AllGather, ReduceScatter, Broadcast and Reduce)");
  // No kernel timestamps: not a verbose log.
  std::string plain;
  for (int s = 0; s < 2; ++s) {
    for (int r = 0; r < 2; ++r) plain += sequence_line("0xa", r, 2, "AllReduce", 1 << 20, s, 1000, false);
  }
  CHECK_THAT(sequence_refusal(plain),
             Catch::StartsWith("job.log:1 coll_perf.event_trace_ts: no kernel timestamps: a step's gaps come from the "
                               "verbose log (NCCL_INSPECTOR_DUMP_VERBOSE=1)"));
  // A kernel that stops before it starts.
  CHECK_THAT(sequence_refusal(R"({"header": {"id": "0xa", "rank": 0, "n_ranks": 1, "nnodes": 1}, "coll_perf": )"
                              R"({"coll": "AllReduce", "coll_sn": 0, "coll_msg_size_bytes": 8, "coll_exec_time_us": )"
                              R"(1, "event_trace_ts": {"kernel_events": [{"kernel_start_ts": 9, "kernel_stop_ts": )"
                              R"(3}]}}})"),
             Catch::StartsWith("job.log:1 coll_perf.event_trace_ts.kernel_events[0].kernel_stop_ts: a kernel that "
                               "stops (3) before it starts (9)"));
}

TEST_CASE("gaps below zero (overlapping collectives) count as none, with a warning", "[inspector][sequence]") {
  // Rank 0 and 1's second call starts 5 us before the first one stops: overlapping kernels.
  std::string text;
  for (int s = 0; s < 2; ++s) {
    for (int r = 0; r < 2; ++r) {
      text += sequence_line("0xa", r, 2, "AllReduce", 1 << 20, 2 * s, 1000 + 100 * s);
      text += sequence_line("0xa", r, 2, "AllReduce", 4096, 2 * s + 1, 1005 + 100 * s);
    }
  }
  const CollectiveSequence seq = extract_collective_sequence({parse_inspector_log(text, "job.log")});
  REQUIRE(seq.rank_steps[0].size() == 2);
  CHECK(seq.rank_steps[0][1].gap_us == 0);
  CHECK(seq.rank_steps[0][0].gap_us == 100 - 15);  // from the second call's stop (1015) to the next step's (1100)
  REQUIRE(seq.warnings.size() == 1);
  CHECK_THAT(seq.warnings[0], Catch::StartsWith("2 collectives overlapped the one before"));
}
