// Busiest links of a synchronous AllReduce run: bytes summed over every collective the run placed, and the
// trace's utilization counters for those links.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "syncsim/run/run_scenario.hpp"
#include "syncsim/scenario/scenario_loader.hpp"
#include "syncsim/trace/chrome_trace_writer.hpp"

namespace syncsim {
namespace {

constexpr const char* kScenario = R"(
name: links
cluster:
  gpu: A100-SXM4-80GB
  topology: "switch:n=8,bw=100Gbps,lat=5us"
model: {name: resnet50, batch_per_gpu: 32, precision: fp16}
training: {strategy: sync, algorithm: ring, latency_model: physical, iterations: 3}
)";

TEST_CASE("sync AllReduce: every GPU link carries 2(N-1)/N of each bucket per iteration") {
  const run::RunOutput out = run::run_scenario(parse_scenario(kScenario, "links.yaml"));
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

}  // namespace
}  // namespace syncsim
