// The NCCL Inspector reader (inspector_log.hpp) and the grouping by communicator (inspector_job.hpp): records as the
// plugin's README shows them, unknown keys ignored, every refusal naming line and key; medians and counts.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/inspector_job.hpp"

using namespace syncsim;

namespace {

// A record with the README's keys; `extra` is spliced into coll_perf.
std::string inspector_line(int rank, int n_ranks, const std::string& coll, std::int64_t size, double time_us,
                           const std::string& id = "0x7f8c496ae9f661", int nnodes = 1, const std::string& extra = "") {
  return fmt::format(
      R"({{"header": {{"id": "{}", "rank": {}, "n_ranks": {}, "nnodes": {}}}, "metadata": {{)"
      R"("inspector_output_format_version": "v4.0", "git_rev": "", "rec_mechanism": "profiler_plugin", )"
      R"("dump_timestamp_us": 1748030377748202, "hostname": "example-hostname", "pid": 1639453}}, "coll_perf": {{)"
      R"("coll": "{}", "coll_sn": 1407, "coll_msg_size_bytes": {}, "coll_exec_time_us": {}, )"
      R"("coll_algobw_gbs": 277.21, "coll_busbw_gbs": 485.12{}}}}})"
      "\n",
      id, rank, n_ranks, nnodes, coll, size, time_us, extra);
}

// The InputError's "source:line" and key for a text that must be refused.
std::string refusal(const std::string& text) {
  try {
    (void)group_inspector_logs({parse_inspector_log(text, "job.log")});
  } catch (const InputError& e) {
    const auto& where = e.where();
    return fmt::format("{}:{} {}", where ? where->source : "", where ? where->line : 0, e.key());
  }
  return "read";
}

}  // namespace

TEST_CASE("an Inspector record as the README shows it reads", "[inspector]") {
  const InspectorLog log = parse_inspector_log(inspector_line(2, 8, "AllReduce", 17179869184, 61974), "job.log");
  REQUIRE(log.records.size() == 1);
  const InspectorRecord& r = log.records[0];
  CHECK(r.comm_id == "0x7f8c496ae9f661");
  CHECK(r.rank == 2);
  CHECK(r.n_ranks == 8);
  CHECK(r.nnodes == 1);
  CHECK(r.hostname == "example-hostname");
  CHECK(r.format_version == "v4.0");
  CHECK(r.op == CollectiveOp::allreduce);
  CHECK(r.msg_size_bytes == 17179869184);
  CHECK(r.time_us == 61974);
  CHECK(r.line == 1);
}

TEST_CASE("unknown keys, verbose event traces and blank lines are ignored", "[inspector]") {
  const std::string verbose = R"(, "coll_timing_source": "kernel_gpu", "event_trace_sn": {"coll_start_sn": 1, )"
                              R"("kernel_events": [{"channel_id": 0, "kernel_start_sn": 3}]}, "future_key": [1, 2])";
  std::string text = "\n";  // appended, not `"\n" + ...`: GCC 12 warns wrongly about that operator+ (stringop-overflow)
  text += inspector_line(0, 4, "ReduceScatter", 1024, 20, "0x1", 1, verbose);
  text += "  \n";
  const InspectorLog log = parse_inspector_log(text, "job.log");
  REQUIRE(log.records.size() == 1);
  CHECK(log.records[0].line == 2);
}

TEST_CASE("AllGather and ReduceScatter sizes are one rank's share: the whole buffer is n_ranks times it",
          "[inspector]") {
  const InspectorLog log = parse_inspector_log(
      inspector_line(0, 4, "AllGather", 1024, 20) + inspector_line(0, 4, "AllReduce", 1024, 20), "job.log");
  CHECK(log.records[0].whole_buffer_bytes() == 4096);
  CHECK(log.records[1].whole_buffer_bytes() == 1024);
}

TEST_CASE("point-to-point records and collectives not modelled are counted and skipped", "[inspector]") {
  const std::string p2p = R"({"header": {"id": "0x1", "rank": 0, "n_ranks": 2, "nnodes": 1}, "p2p_perf": )"
                          R"({"p2p": "Send", "p2p_sn": 1, "p2p_msg_size_bytes": 8, "p2p_exec_time_us": 3}})"
                          "\n";
  const InspectorLog log =
      parse_inspector_log(p2p + inspector_line(0, 2, "All2All", 64, 5) + inspector_line(0, 2, "Reduce", 64, 5), "j");
  CHECK(log.records.size() == 1);
  CHECK(log.skipped_records == 2);
  CHECK(log.warnings.size() == 1);
}

TEST_CASE("a bad record is refused at its line, naming the key", "[inspector][malformed]") {
  const std::string good = inspector_line(0, 8, "AllReduce", 1024, 20);
  CHECK(refusal(good + inspector_line(9, 8, "AllReduce", 1024, 20)) == "job.log:2 header.rank");
  CHECK(refusal(good + inspector_line(0, 8, "AllReduce", 1024, -3)) == "job.log:2 coll_perf.coll_exec_time_us");
  CHECK(refusal(good + inspector_line(0, 8, "AllReduce", 1024, 0)) == "job.log:2 coll_perf.coll_exec_time_us");
  CHECK(refusal(good + inspector_line(0, 8, "AllReduce", 1024, 1e-300)) == "job.log:2 coll_perf.coll_exec_time_us");
  CHECK(refusal(inspector_line(0, 8, "AllReduce", std::int64_t{1} << 60, 20)) ==
        "job.log:1 coll_perf.coll_msg_size_bytes");
  CHECK(refusal(inspector_line(0, 8, "Gather", 1024, 20)) == "job.log:1 coll_perf.coll");
  CHECK(refusal(R"({"header": {"id": 7, "rank": 0, "n_ranks": 8, "nnodes": 1}, "coll_perf": {}})") ==
        "job.log:1 header.id");
  CHECK(refusal(R"({"header": {"id": "0x1", "rank": 0, "n_ranks": 8, "nnodes": 1}, "coll_perf": {"coll": )"
                R"("AllReduce", "coll_sn": 1, "coll_msg_size_bytes": 8}})") == "job.log:1 coll_perf.coll_exec_time_us");
  CHECK(refusal(R"({"metadata": {}})") == "job.log:1 header");
  CHECK(refusal(good + "{\"header\": [1, 2]\n") == "job.log:2 ");
  CHECK(refusal(good + "[1, 2]\n") == "job.log:2 ");
  CHECK(refusal(good + std::string(300, '[')) == "job.log:2 ");
  CHECK(refusal(good + inspector_line(0, 8, "AllReduce", 1024, 20, "0x7f8c496ae9f661", 9)) ==
        "job.log:2 header.nnodes");
  CHECK(refusal("\n\n") == "job.log:0 ");
}

TEST_CASE("a communicator's records must agree on its ranks and nodes", "[inspector][malformed]") {
  const std::string text = inspector_line(0, 8, "AllReduce", 1024, 20) + inspector_line(1, 4, "AllReduce", 1024, 20);
  CHECK(refusal(text) == "job.log:2 header.n_ranks");
}

TEST_CASE("points are the median of their records, with the count kept", "[inspector]") {
  std::string text;
  for (const double t : {10.0, 12.0, 100.0, 11.0}) text += inspector_line(0, 2, "AllReduce", 4096, t);
  text += inspector_line(0, 2, "AllReduce", 65536, 50, "0x2");  // another communicator of the same shape
  const InspectorJob job = group_inspector_logs({parse_inspector_log(text, "job.log")});
  CHECK(job.communicators.size() == 2);
  REQUIRE(job.points.size() == 2);
  CHECK(job.points[0].median_us == 11.5);
  CHECK(job.points[0].count == 4);
  CHECK(job.points[0].line == 1);
  const std::vector<NcclTestsLog> logs = inspector_nccl_tests_logs(job);
  REQUIRE(logs.size() == 1);  // one shape: one table of two sizes
  CHECK(logs[0].rows.size() == 2);
  CHECK(logs[0].rows[1].line == 5);
  CHECK(logs[0].source == "job.log");
}

TEST_CASE("a communicator larger than the topology is refused, naming it", "[inspector][malformed]") {
  const InspectorJob job =
      group_inspector_logs({parse_inspector_log(inspector_line(0, 16, "AllReduce", 1024, 20), "job.log")});
  CHECK_NOTHROW(check_communicators_fit(job, "dgx:nodes=2,gpus=8", "--topology"));
  try {
    check_communicators_fit(job, "dgx:nodes=1,gpus=8", "--topology");
    FAIL("expected a refusal");
  } catch (const InputError& e) {
    CHECK(e.where()->source == "job.log");
    CHECK(e.key() == "header.n_ranks");
    CHECK_THAT(e.message(), Catch::Contains("0x7f8c496ae9f661"));
  }
}

TEST_CASE("a log of one-rank communicators only has nothing to simulate", "[inspector][malformed]") {
  const InspectorJob job = group_inspector_logs({parse_inspector_log(inspector_line(0, 1, "AllReduce", 64, 5), "j")});
  CHECK(job.warnings.size() == 1);
  CHECK_THROWS_AS(inspector_nccl_tests_logs(job), InputError);
}
