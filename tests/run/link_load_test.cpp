// Busiest links of a synchronous AllReduce run: bytes summed over every collective the run placed, the trace's
// utilization counters for those links, and the collective steps nested in each bucket's span.
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"

namespace syncsim {
namespace {

constexpr const char* kLinkLoadScenario = R"(
name: links
cluster:
  gpu: A100-SXM4-80GB
  topology: "switch:n=8,bw=100Gbps,lat=5us"
model: {name: resnet50, batch_per_gpu: 32, precision: fp16}
training: {strategy: sync, algorithm: ring, latency_model: physical, iterations: 3}
)";

TEST_CASE("sync AllReduce: every GPU link carries 2(N-1)/N of each bucket per iteration") {
  const run::RunOutput out = run::run_scenario(parse_scenario(kLinkLoadScenario, "links.yaml"));
  const TrainingReport& r = out.report;
  double model = 0;
  for (const BucketReport& b : r.buckets) model += static_cast<double>(b.bytes.value);
  REQUIRE(r.busiest_links.size() == kBusiestLinks);
  for (const LinkReport& link : r.busiest_links) {
    INFO(link.from << " -> " << link.to);
    CHECK(link.link_class == "network");
    CHECK(link.bytes == Approx(3 * 2.0 * 7 / 8 * model).epsilon(1e-9));
    CHECK(link.utilization > 0);
    CHECK(link.utilization < 1);
  }

  std::ostringstream text;
  trace::write_chrome_trace(out.trace, text);
  const nlohmann::json trace = nlohmann::json::parse(text.str());
  std::size_t counters = 0;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") != "C") continue;
    ++counters;
    const double value = event.at("args").at("value");
    CHECK(value >= 0);
    CHECK(value <= 1);
  }
  // Per busiest link: one rise and one fall per bucket AllReduce and iteration.
  CHECK(counters == kBusiestLinks * 2 * r.buckets.size() * 3);
}

TEST_CASE("sync AllReduce trace: each bucket span holds its ring steps, reduce-scatter then all-gather") {
  const run::RunOutput out = run::run_scenario(parse_scenario(kLinkLoadScenario, "links.yaml"));
  std::ostringstream text;
  trace::write_chrome_trace(out.trace, text);
  const nlohmann::json trace = nlohmann::json::parse(text.str());
  std::map<std::int64_t, const nlohmann::json*> spans;  // span_id -> event
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "X") spans[event.at("args").at("span_id").get<std::int64_t>()] = &event;
  }
  std::size_t steps = 0;
  std::size_t reduce_scatter = 0;
  for (const auto& [id, event] : spans) {
    if (event->at("cat") != "collective_step") continue;
    ++steps;
    const nlohmann::json& parent = *spans.at(event->at("args").at("parent_span_id").get<std::int64_t>());
    CHECK(parent.at("cat") == "communication");
    CHECK(event->at("tid") == parent.at("tid"));
    const double start = event->at("ts");
    const double end = start + event->at("dur").get<double>();
    CHECK(start >= parent.at("ts").get<double>() - 1e-6);
    CHECK(end <= parent.at("ts").get<double>() + parent.at("dur").get<double>() + 1e-6);
    if (event->at("name").get<std::string>().rfind("reduce-scatter", 0) == 0) ++reduce_scatter;
  }
  // 8 ranks, 3 iterations, every bucket: 2(N-1) = 14 steps per rank, half of them reduce-scatter.
  const std::size_t buckets = out.report.buckets.size();
  CHECK(steps == 8 * 3 * buckets * 14);
  CHECK(reduce_scatter == steps / 2);
}

TEST_CASE("sync AllReduce trace: every ring step sends one arrow to the next rank's same step") {
  const run::RunOutput out = run::run_scenario(parse_scenario(kLinkLoadScenario, "links.yaml"));
  std::ostringstream text;
  trace::write_chrome_trace(out.trace, text);
  const nlohmann::json trace = nlohmann::json::parse(text.str());
  std::vector<const nlohmann::json*> steps;
  std::map<std::int64_t, std::vector<const nlohmann::json*>> ends;  // flow id -> its s and f events
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "X" && event.at("cat") == "collective_step") steps.push_back(&event);
    if (event.at("ph") == "s" || event.at("ph") == "f") ends[event.at("id").get<std::int64_t>()].push_back(&event);
  }
  // The step of `tid` whose span holds `ts`.
  auto step_at = [&](const nlohmann::json& end) -> const nlohmann::json* {
    for (const nlohmann::json* step : steps) {
      const double start = step->at("ts");
      if (step->at("tid") == end.at("tid") && start <= end.at("ts").get<double>() &&
          end.at("ts").get<double>() <= start + step->at("dur").get<double>())
        return step;
    }
    return nullptr;
  };
  REQUIRE(ends.size() == steps.size());
  std::map<std::pair<std::int64_t, std::int64_t>, int> sends_from;  // (tid, span_id) -> arrows leaving it
  for (const auto& [id, pair] : ends) {
    REQUIRE(pair.size() == 2);
    CHECK(pair[0]->at("ph") == "s");
    CHECK(pair[1]->at("ph") == "f");
    const nlohmann::json* from = step_at(*pair[0]);
    const nlohmann::json* to = step_at(*pair[1]);
    REQUIRE(from != nullptr);
    REQUIRE(to != nullptr);
    CHECK(from->at("tid") != to->at("tid"));
    CHECK(from->at("args").at("step") == to->at("args").at("step"));
    ++sends_from[{from->at("tid").get<std::int64_t>(), from->at("args").at("span_id").get<std::int64_t>()}];
  }
  CHECK(sends_from.size() == steps.size());
  for (const auto& [span, count] : sends_from) CHECK(count == 1);
}

}  // namespace
}  // namespace syncsim
