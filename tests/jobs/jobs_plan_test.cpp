// `syncsim plan` over a job mix (planner/jobs_plan.hpp): each point is run_jobs of the scenario with that fabric and
// placement; the ranking by the worst job's slowdown or the total throughput, ties sharing a rank; bad flags.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

#include "jobs_yaml.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/jobs_plan.hpp"
#include "syncsim/planner/jobs_plan_report.hpp"
#include "syncsim/run/multi_job_run.hpp"

namespace syncsim {
namespace {

// Two comm-bound jobs of 4 GPUs (jobs_yaml.hpp: 100 MB of gradient, no compute) on fattree n=8, radix 4 (leaves of
// two GPUs, two spines), non-blocking or 2:1.
std::string two_wire_jobs(int oversub, const std::string& placement) {
  return "cluster:\n  gpu: " + std::string(jobs_test::kInstantGpu) +
         "\n  topology: \"fattree:n=8,radix=4,bw=100Gbps,oversub=" + std::to_string(oversub) + "\"\njobs:\n" +
         jobs_test::wire_job("a", 4) + jobs_test::wire_job("b", 4) + "placement: " + placement +
         "\nwindow_iterations: 4\n";
}

planner::JobsPlanPoint point(int oversub, const std::string& placement) {
  const std::optional<JobsScenario> s = parse_jobs_scenario(two_wire_jobs(oversub, placement), "jobs.yaml");
  REQUIRE(s);
  planner::JobsPlanPoint p{oversub == 1 ? "nonblocking" : "oversub2", placement, 8};
  p.jobs = planner::plan_jobs_of(run::run_jobs(*s));
  return p;
}

// 2:1: one uplink per leaf of two GPUs. spread deals a = {0, 2, 4, 6}, b = {1, 3, 5, 7}: every uplink carries a flow of
// each job at all times, so each job gets half of it, slowdown 2 (the closed form of jobs_closed_form_test.cpp).
// packed: a on leaves 0 and 1, b on 2 and 3: the rings never meet, slowdown 1. The plan ranks packed first.
TEST_CASE("jobs plan on a 2:1 fabric: spread's worst slowdown is 2, packed (1) ranks first", "[jobs][plan]") {
  const planner::JobsPlan plan =
      planner::rank_jobs_plan({point(2, "spread"), point(2, "packed")}, planner::JobsRankBy::worst_slowdown, "");
  REQUIRE(plan.points.size() == 2);
  const planner::JobsPlanPoint& first = plan.points[0];
  const planner::JobsPlanPoint& second = plan.points[1];
  CHECK(first.placement == "packed");
  CHECK(first.rank == 1);
  CHECK(first.worst_slowdown == 1.0);
  CHECK(second.placement == "spread");
  CHECK(second.rank == 2);
  CHECK(second.worst_slowdown == Approx(2.0).epsilon(1e-6));
  // Alone 12 ms (2(n-1)/n x 100 MB at 12.5 GB/s), 4 samples an iteration (4 GPUs x batch 1): each job 4/0.012
  // samples/s packed, half of it spread.
  CHECK(first.total_samples_per_s == Approx(2 * 4 / 0.012).epsilon(1e-6));
  CHECK(second.total_samples_per_s == Approx(2 * 2 / 0.012).epsilon(1e-6));
  CHECK(plan.recommendation.find("oversub2 with placement packed") != std::string::npos);
  // By throughput the order is the same: packed delivers twice spread's samples/s.
  const planner::JobsPlan by_throughput = planner::rank_jobs_plan(plan.points, planner::JobsRankBy::throughput, "");
  CHECK(by_throughput.points[0].placement == "packed");
  CHECK(by_throughput.points[1].rank == 2);
}

// 1:1: two uplinks per leaf, routed D-mod-k (a flow to GPU d takes uplink d mod 2): a's ring sends only to even GPUs,
// b's only to odd ones, so spread's rings never share a link either: both placements run as alone and rank equal.
TEST_CASE("jobs plan on a non-blocking fabric: packed and spread rank equal, slowdown 1", "[jobs][plan]") {
  const planner::JobsPlan plan =
      planner::rank_jobs_plan({point(1, "packed"), point(1, "spread")}, planner::JobsRankBy::worst_slowdown, "");
  for (const planner::JobsPlanPoint& p : plan.points) {
    CHECK(p.worst_slowdown == 1.0);
    CHECK(p.rank == 1);
  }
  CHECK(plan.recommendation.find("2 points rank equal first") != std::string::npos);
}

// The plan's numbers are report.json's: a point reads as `syncsim run` of it.
TEST_CASE("jobs plan: a point's jobs are run_jobs' report as report.json prints it", "[jobs][plan]") {
  const std::optional<JobsScenario> s = parse_jobs_scenario(two_wire_jobs(2, "spread"), "jobs.yaml");
  REQUIRE(s);
  const JobsReport report = run::run_jobs(*s);
  const nlohmann::ordered_json json = jobs_json(report);
  const std::vector<planner::JobsPlanJob> jobs = planner::plan_jobs_of(report);
  REQUIRE(jobs.size() == 2);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    CHECK(jobs[j].name == json["jobs"][j]["name"].get<std::string>());
    CHECK(jobs[j].iteration_time_us == json["jobs"][j]["iteration_time_us"].get<double>());
    CHECK(jobs[j].alone_iteration_time_us == json["jobs"][j]["alone_iteration_time_us"].get<double>());
    CHECK(jobs[j].slowdown == json["jobs"][j]["slowdown"].get<double>());
    CHECK(jobs[j].samples_per_s == json["jobs"][j]["samples_per_s"].get<double>());
    CHECK(json["jobs"][j]["samples_per_iteration"].get<std::int64_t>() == 4);  // 4 GPUs x batch 1
  }
}

// A point where a job does not fit is kept, last, with its reason; it never stops the plan.
TEST_CASE("jobs plan: a point that does not run is ranked last with its reason", "[jobs][plan]") {
  planner::JobsPlanPoint small{"small", "packed", 4};
  small.not_run = "jobs[1].gpus: job 'b' does not fit";
  const planner::JobsPlan plan =
      planner::rank_jobs_plan({small, point(2, "packed")}, planner::JobsRankBy::worst_slowdown, "USD");
  CHECK(plan.points[0].network == "oversub2");
  CHECK(plan.points[1].rank == 0);
  planner::JobsPlanContext context{"mix", {"a", "b"}, 8, "", "", "0123456789abcdef"};
  const std::string text = planner::jobs_plan_text(plan, context);
  CHECK(text.find("does not run: jobs[1].gpus: job 'b' does not fit") != std::string::npos);
  const std::string csv = planner::jobs_plan_csv(plan, context);
  // Its summary (6 cells) and both jobs' (4 each) empty, then the reason and the fingerprint.
  CHECK(csv.find("\n,small,packed,4,8" + std::string(15, ',') +
                 "jobs[1].gpus: job 'b' does not fit,0123456789abcdef\n") != std::string::npos);
  // Every row has the header's cell count.
  const auto cells = [](const std::string& line) { return std::count(line.begin(), line.end(), ',') + 1; };
  const std::size_t header_end = csv.find('\n');
  const std::string header = csv.substr(0, header_end);
  CHECK(header.find("a_slowdown") != std::string::npos);
  const std::size_t row_end = csv.find('\n', header_end + 1);
  CHECK(cells(csv.substr(header_end + 1, row_end - header_end - 1)) == cells(header));
  const planner::JobsPlan none = planner::rank_jobs_plan({small}, planner::JobsRankBy::worst_slowdown, "");
  CHECK(none.recommendation.find("Recommendation: none: no point runs every job") != std::string::npos);
}

void check_flag_error(const std::function<void()>& parse, const std::string& flag, const std::string& words) {
  try {
    parse();
    FAIL("no error");
  } catch (const InputError& e) {
    INFO(e.what());
    REQUIRE(e.where());
    CHECK(e.where()->source == flag);
    CHECK(std::string(e.what()).find(words) != std::string::npos);
  }
}

TEST_CASE("jobs plan flags: unknown placement, empty list, twice, unknown ranking", "[jobs][plan]") {
  CHECK(planner::parse_placements("packed,spread,rail") == std::vector<std::string>{"packed", "spread", "rail"});
  check_flag_error([] { (void)planner::parse_placements("packed,diagonal"); }, "--placements",
                   "unknown placement 'diagonal': expected packed, rail, spread, random");
  check_flag_error([] { (void)planner::parse_placements(""); }, "--placements", "expected placement policies");
  check_flag_error([] { (void)planner::parse_placements("packed,,spread"); }, "--placements",
                   "expected placement policies");
  check_flag_error([] { (void)planner::parse_placements("spread,spread"); }, "--placements", "given twice");
  CHECK(planner::parse_jobs_rank_by("throughput") == planner::JobsRankBy::throughput);
  check_flag_error([] { (void)planner::parse_jobs_rank_by("slowdown"); }, "--rank-by",
                   "expected worst-slowdown or throughput");
}

}  // namespace
}  // namespace syncsim
