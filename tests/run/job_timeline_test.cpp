// The job timeline (job_timeline.hpp): one sample of the goodput model laid out on the wall clock. Its spans tile
// [0, D], sum to that sample's badput by cause as assess_goodput reports it for the same seed, hold one failure
// per sampled interruption, and are written byte for byte the same for the same scenario and seed.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "goodput_model.hpp"  // sim/run/src
#include "job_timeline.hpp"
#include "syncsim/run/job_timeline.hpp"
#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"

using namespace syncsim;
using namespace syncsim::run;

namespace {

// 64 GPUs on 8 nodes for 60 days; GPUs fail one node down, software takes none. Every cost written here.
GoodputInputs job_inputs() {
  GoodputInputs in;
  in.duration_seconds = 60 * 86400.0;
  in.iteration_seconds = 10;
  in.straggler_seconds = 1;
  in.sources = {{"gpu", 64 / 2000.0, 1, 1}, {"software", 1 / 100.0, 0, 1}};
  in.detection_seconds = 30;
  in.restart_seconds = 600;
  in.restore_seconds = 60;
  in.stall_seconds = 60;
  in.interval_seconds = 3600;
  in.job_gpus = 64;
  in.gpus_per_node = 8;
  in.swap_seconds = 120;
  in.repair_seconds = 4 * 3600.0;
  in.samples = 1;
  in.seed = 11;
  return in;
}

// Of the model's causes, which the timeline's categories count toward; training is the kept time.
std::string cause_of(std::string_view category) {
  namespace jc = job_category;
  if (category == jc::checkpoint_save) return "checkpoint_save";
  if (category == jc::lost_progress) return "lost_progress";
  if (category == jc::detection) return "detection";
  if (category == jc::restart || category == jc::restore || category == jc::spare_swap) return "restart";
  if (category == jc::repair_wait) return "repair_wait";
  if (category == jc::training) return "kept";
  return std::string(category);
}

// Lays out sample 0 and checks it against the model: tiling, per-cause sums (from assess_goodput's one-sample
// shares, an independent path), and the failure count.
JobTimeline check_timeline(const GoodputInputs& in) {
  const GoodputSample sample = sample_goodput(in, 0);
  const JobTimeline t = lay_out_job(in, sample);
  REQUIRE(!t.job.empty());
  CHECK(t.job.front().start == 0);
  std::map<std::string, double> sums;
  std::int64_t failures = 0;
  for (std::size_t i = 0; i < t.job.size(); ++i) {
    const JobSpan& s = t.job[i];
    CHECK(s.duration >= 0);
    if (i > 0) CHECK(s.start == t.job[i - 1].start + t.job[i - 1].duration);  // no gap, no overlap
    sums[cause_of(s.category)] += s.duration;
    failures += s.category == job_category::failure ? 1 : 0;
  }
  CHECK(t.job.back().start + t.job.back().duration == Approx(in.duration_seconds).epsilon(1e-9));
  // assess_goodput with one sample is sample 0: its shares of the GPU time paid back into job seconds.
  GoodputInputs one = in;
  one.samples = 1;
  const GoodputOutcome outcome = assess_goodput(one);
  const double job = static_cast<double>(in.job_gpus);
  const double paid = in.duration_seconds * (job + static_cast<double>(in.spares * in.gpus_per_node));
  for (const auto& [cause, share] : outcome.badput) {
    if (cause == "spares_idle" || cause == "stragglers") continue;  // not wall-clock spans of the job
    INFO(cause);
    CHECK(sums[cause] == Approx(share * paid / job).epsilon(1e-9).margin(1e-6));
  }
  CHECK(sums["kept"] == Approx(sample.kept_seconds).epsilon(1e-9).margin(1e-6));
  CHECK(failures == static_cast<std::int64_t>(sample.interruptions.size()));
  CHECK(static_cast<double>(failures) == outcome.interruptions_mean);
  return t;
}

std::string chrome_text(const trace::Trace& trace) {
  std::ostringstream out;
  trace::write_chrome_trace(trace, out);
  return out.str();
}

}  // namespace

TEST_CASE("the job timeline tiles the job and sums to its sample's badput, synchronous saves") {
  const GoodputInputs in = job_inputs();
  const JobTimeline t = check_timeline(in);
  CHECK(t.interruptions.size() > 10);  // about 60 days x 24 x (0.032 + 0.01) = 60 expected
  std::int64_t trainings = 0;
  for (const JobSpan& s : t.job) trainings += s.category == job_category::training ? 1 : 0;
  CHECK(trainings > 0);
  CHECK_FALSE(t.merged);
  CHECK(t.uploads.empty());
}

TEST_CASE("the job timeline with hot spares: swaps while spares last, repair waits after, repairs on a lane") {
  GoodputInputs in = job_inputs();
  in.spares = 2;  // fewer than the GPU failures in three days of repair: some wait
  in.repair_seconds = 3 * 86400.0;
  const JobTimeline t = check_timeline(in);
  std::int64_t swaps = 0;
  std::int64_t waits = 0;
  for (const JobSpan& s : t.job) {
    swaps += s.category == job_category::spare_swap ? 1 : 0;
    waits += s.category == job_category::repair_wait ? 1 : 0;
  }
  CHECK(swaps > 0);
  CHECK(waits > 0);
  CHECK(static_cast<std::int64_t>(t.spare_repairs.size()) == swaps);
}

TEST_CASE("the job timeline with asynchronous saves: each upload beside the training after its save") {
  GoodputInputs in = job_inputs();
  in.stall_seconds = 5;
  in.upload_seconds = 300;
  const JobTimeline t = check_timeline(in);
  REQUIRE(!t.uploads.empty());
  std::int64_t saves = 0;
  for (const JobSpan& s : t.job) saves += s.category == job_category::checkpoint_save ? 1 : 0;
  CHECK(static_cast<std::int64_t>(t.uploads.size()) <= saves);
  for (std::size_t i = 0; i < t.uploads.size(); ++i) {
    CHECK(t.uploads[i].duration <= in.upload_seconds);
    if (i > 0) CHECK(t.uploads[i].start >= t.uploads[i - 1].start + t.uploads[i - 1].duration);
  }
}

TEST_CASE("the job timeline merges saves per up period beyond its bound, with the same sums") {
  GoodputInputs in = job_inputs();
  in.interval_seconds = 60;  // 60 days of minute-long intervals: far more saves than drawn
  in.stall_seconds = 1;
  const JobTimeline t = check_timeline(in);
  CHECK(t.merged);
  CHECK(t.job.size() < 20 * (t.interruptions.size() + 1));
}

TEST_CASE("the job timeline of recoveries longer than the job: no training, the downs scaled to the job") {
  GoodputInputs in = job_inputs();
  in.duration_seconds = 86400;
  in.repair_seconds = 30 * 86400.0;  // no spares: each GPU failure waits 30 days
  const JobTimeline t = check_timeline(in);
  for (const JobSpan& s : t.job) CHECK(s.category != job_category::training);
}

TEST_CASE("the job timeline's trace tiles the job track in picoseconds and is written the same twice") {
  GoodputInputs in = job_inputs();
  in.spares = 2;
  const JobTimeline t = lay_out_job(in, sample_goodput(in, 0));
  const trace::Trace a = job_timeline_trace(t, in, "job", 11);
  SimTime end = SimTime::zero();
  std::int64_t failures = 0;
  for (const trace::Span& s : a.spans()) {
    if (a.str(a.tracks()[s.track].name) != "job") continue;
    CHECK(s.start == end);
    end = s.end();
    failures += a.str(s.category) == job_category::failure ? 1 : 0;
  }
  CHECK(end.seconds() == Approx(in.duration_seconds).epsilon(1e-12));
  CHECK(failures == static_cast<std::int64_t>(t.interruptions.size()));
  const trace::Trace b = job_timeline_trace(lay_out_job(in, sample_goodput(in, 0)), in, "job", 11);
  CHECK(chrome_text(a) == chrome_text(b));
}

namespace {

std::string scenario_yaml(const std::string& reliability) {
  return fmt::format(
      "name: job-timeline\n"
      "seed: 3\n"
      "cluster: {{gpu: A100-SXM4-80GB, topology: \"dgx:nodes=2,gpus=8\"}}\n"
      "model: {{name: resnet50, batch_per_gpu: 64, precision: fp16, optimizer: adam}}\n"
      "training: {{strategy: sync, iterations: 4}}\n"
      "checkpoint: {{restart_cost: 60s}}\n"
      "{}",
      reliability);
}

}  // namespace

TEST_CASE("run writes a job timeline with reliability, the same for the same seed, and none without") {
  const Scenario with = parse_scenario(
      scenario_yaml("reliability: {failures: {gpu: 1/1000h, software: 1/500h}, duration: 30d, spares: 1}\n"),
      "job-timeline.yaml");
  const RunOutput a = run_scenario(with);
  const RunOutput b = run_scenario(with);
  REQUIRE(a.job_timeline);
  REQUIRE(b.job_timeline);
  CHECK(chrome_text(*a.job_timeline) == chrome_text(*b.job_timeline));
  std::int64_t failures = 0;
  for (const trace::Span& s : a.job_timeline->spans()) {
    failures += a.job_timeline->str(s.category) == job_category::failure ? 1 : 0;
  }
  CHECK(failures > 0);
  const RunOutput without = run_scenario(parse_scenario(scenario_yaml(""), "job-timeline.yaml"));
  CHECK_FALSE(without.job_timeline);
}
