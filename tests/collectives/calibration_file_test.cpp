// The calibration file: what calibrate writes reads back the same, and every kind of bad field is an InputError
// naming file:line:column and the key path.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "syncsim/collectives/calibration.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {

// A valid file; each bad case below changes one thing in it. Line numbers are 1-based, as errors print them.
const std::string kValid = R"(format_version: 1
topology: "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s"
placement: out_of_place
regimes:
  - name: latency
    launch_us: 31.9
    links:
      nvlink: {step_latency_us: 0, efficiency: 0.13, fitted: true}
      pci: {step_latency_us: 1, efficiency: 0.25, fitted: false}
      net: {step_latency_us: 2.7, efficiency: 0.25}
  - name: bandwidth
    launch_us: 54.1
    links:
      nvlink: {step_latency_us: 4.96, efficiency: 0.78, fitted: true}
      pci: {step_latency_us: 5.7, efficiency: 1, fitted: false}
      net: {step_latency_us: 9.6, efficiency: 1, fitted: false}
measurements:
  - file: a100.log
    collective: allreduce
    ranks: 8
    hosts: 1
    topology: "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s"
    sizes_bytes: [64, 1048576]
    measured_us: [32.01, 76.71]
    predicted_us: [31.9, 77.5]
    fit_error: {geomean_abs_error: 0.006, max_abs_error: 0.0103, geomean_abs_error_1mib: 0.0103, max_abs_error_1mib: 0.0103}
)";

std::string replaced(const std::string& from, const std::string& to) {
  std::string text = kValid;
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

struct BadCase {
  std::string name;
  std::string text;
  int line;
  int column;
  std::string key;
  std::string message;
};

}  // namespace

TEST_CASE("a valid calibration file reads into its values", "[calibration-file]") {
  const Calibration c = parse_calibration(kValid, "cal.yaml");
  CHECK(c.topology == "dgx:nodes=1,gpus=8,nvlink_bw=300GB/s");
  CHECK(c.placement == Placement::out_of_place);
  CHECK_FALSE(c.algorithm);
  REQUIRE(c.regimes.size() == 2);
  CHECK(c.regimes[1].name == "bandwidth");
  CHECK(c.regimes[1].launch_us == 54.1);
  CHECK(c.regimes[1].links[0].efficiency == 0.78);
  CHECK(c.regimes[0].links[2].fitted == false);
  REQUIRE(c.measurements.size() == 1);
  CHECK(c.measurements[0].sizes_bytes == std::vector<std::int64_t>{64, 1048576});
  CHECK(c.measurements[0].fit_error.points_1mib == 1);
  CHECK(*c.measurements[0].fit_error.max_abs_error_1mib == 0.0103);
}

TEST_CASE("the runner's model holds each regime's costs", "[calibration-file]") {
  const CalibratedModel model = to_model(parse_calibration(kValid, "cal.yaml"));
  REQUIRE(model.regimes.size() == 2);
  CHECK(model.regime_names == std::vector<std::string>{"latency", "bandwidth"});
  CHECK(model.regimes[0].launch == SimTime::from_us(31.9));
  REQUIRE(model.regimes[1].step_latency);
  CHECK((*model.regimes[1].step_latency)[0] == SimTime::from_us(4.96));
  CHECK(model.regimes[1].efficiency[0] == 0.78);
}

TEST_CASE("a written calibration reads back to the same calibration", "[calibration-file]") {
  Calibration c = parse_calibration(kValid, "cal.yaml");
  c.algorithm = Algorithm::tree;
  c.placement = Placement::min;
  c.topology = "file:path=/a b/#x.xml";  // quoting: spaces and a '#'
  std::ostringstream out;
  write_calibration(out, c);
  const Calibration back = parse_calibration(out.str(), "written.yaml");
  CHECK(back.topology == c.topology);
  CHECK(back.placement == Placement::min);
  CHECK(back.algorithm == std::optional<Algorithm>(Algorithm::tree));
  CHECK(back.regimes == c.regimes);
  REQUIRE(back.measurements.size() == 1);
  CHECK(back.measurements[0].measured_us == c.measurements[0].measured_us);
  CHECK(back.measurements[0].predicted_us == c.measurements[0].predicted_us);
  CHECK(back.measurements[0].fit_error.geomean_abs_error == c.measurements[0].fit_error.geomean_abs_error);
}

TEST_CASE("bad calibration files name file, line, column and key", "[calibration-file]") {
  const std::vector<BadCase> cases = {
      {"missing launch", replaced("    launch_us: 31.9\n", ""), 5, 5, "regimes[0]", "missing key 'launch_us'"},
      {"mistyped launch", replaced("launch_us: 31.9", "launch_us: fast"), 6, 16, "regimes[0].launch_us",
       "expected a number, got 'fast'"},
      {"negative latency", replaced("step_latency_us: 0,", "step_latency_us: -1,"), 8, 33,
       "regimes[0].links.nvlink.step_latency_us", "expected at least 0 us, got -1"},
      {"zero efficiency", replaced("efficiency: 0.13", "efficiency: 0"), 8, 48, "regimes[0].links.nvlink.efficiency",
       "expected a fraction of the link rate in (0, 1.5], got 0"},
      {"efficiency above 1.5", replaced("efficiency: 0.78", "efficiency: 2"), 14, 51,
       "regimes[1].links.nvlink.efficiency", "in (0, 1.5], got 2"},
      {"unknown key", replaced("    launch_us: 54.1\n", "    launch_us: 54.1\n    launch_ms: 1\n"), 13, 5,
       "regimes[1].launch_ms", "unknown key 'launch_ms'"},
      {"unknown link class", replaced("      pci: {step_latency_us: 1,", "      pcie: {step_latency_us: 1,"), 9, 7,
       "regimes[0].links.pcie", "unknown key 'pcie'"},
      {"regimes not a list", "format_version: 1\ntopology: x\nregimes: 3\nmeasurements: []\n", 3, 10, "regimes",
       "expected a list, got '3'"},
      {"wrong version", replaced("format_version: 1", "format_version: 7"), 1, 17, "format_version",
       "unsupported format version 7"},
      {"fractional rank count", replaced("ranks: 8", "ranks: 8.5"), 20, 12, "measurements[0].ranks",
       "expected a whole number, got '8.5'"},
      {"arrays of different lengths", replaced("measured_us: [32.01, 76.71]", "measured_us: [32.01]"), 24, 18,
       "measurements[0].measured_us", "expected 2 values, one per size in sizes_bytes, got 1"},
      {"unknown collective", replaced("collective: allreduce", "collective: gather"), 19, 17,
       "measurements[0].collective", "unknown collective"},
      {"duplicate regime", replaced("name: bandwidth", "name: latency"), 11, 11, "regimes[1].name",
       "regime 'latency' appears twice"},
      {"unknown placement", replaced("placement: out_of_place", "placement: fastest"), 3, 12, "placement",
       "unknown placement 'fastest'"},
      {"missing measurements", replaced(kValid.substr(kValid.find("measurements:")), ""), 1, 1, "",
       "missing key 'measurements'"},
  };
  for (const BadCase& bad : cases) {
    INFO(bad.name);
    try {
      parse_calibration(bad.text, "cal.yaml");
      FAIL("no error");
    } catch (const InputError& e) {
      INFO(e.what());
      REQUIRE(e.where());
      CHECK(e.where()->source == "cal.yaml");
      CHECK(e.where()->line == bad.line);
      CHECK(e.where()->column == bad.column);
      CHECK(e.key() == bad.key);
      CHECK_THAT(e.message(), Catch::Contains(bad.message));
    }
  }
}

TEST_CASE("text that is not YAML, or no file at all, is an input error", "[calibration-file]") {
  CHECK_THROWS_WITH(parse_calibration("regimes: [\n", "cal.yaml"), Catch::StartsWith("cal.yaml:2:1: not valid YAML"));
  CHECK_THROWS_WITH(parse_calibration("", "cal.yaml"), Catch::Contains("empty calibration file"));
  CHECK_THROWS_WITH(read_calibration("/nonexistent/cal.yaml"), Catch::Contains("cannot open"));
}

TEST_CASE("format 2: the fill and the parameters on a bound read, reach the model and write back",
          "[calibration-file]") {
  std::string text = replaced("format_version: 1", "format_version: 2");
  text.replace(text.find("    launch_us: 54.1\n"), 19, "    launch_us: 54.1\n    fill_bytes: 1048576\n");
  text.replace(text.find("measurements:"), 0,
               "on_bound:\n  - {parameter: bandwidth.nvlink.efficiency, value: 1, bound: 1, side: upper}\n");
  const Calibration c = parse_calibration(text, "cal.yaml");
  CHECK(c.format_version == 2);
  CHECK(c.regimes[0].fill_bytes == 0);  // optional: no ramp
  CHECK(c.regimes[1].fill_bytes == 1048576);
  REQUIRE(c.on_bound.size() == 1);
  CHECK(c.on_bound[0] == BoundHit{"bandwidth.nvlink.efficiency", 1, 1, true});
  CHECK(describe(c.on_bound[0]).find("bandwidth.nvlink.efficiency = 1 is on its upper bound 1") != std::string::npos);
  CHECK(to_model(c).regimes[1].fill == Bytes{1048576});

  std::ostringstream out;
  write_calibration(out, c);
  const Calibration back = parse_calibration(out.str(), "written.yaml");
  CHECK(back.format_version == 2);
  CHECK(back.regimes == c.regimes);
  CHECK(back.on_bound == c.on_bound);
}

TEST_CASE("format 2 bounds efficiencies by the link rate, format 1's above 1 read and are flagged",
          "[calibration-file]") {
  const std::string v2 = replaced("format_version: 1", "format_version: 2");
  const std::string above = v2.substr(0, v2.find("efficiency: 0.78")) + "efficiency: 1.2" +
                            v2.substr(v2.find("efficiency: 0.78") + std::string("efficiency: 0.78").size());
  try {
    parse_calibration(above, "cal.yaml");
    FAIL("an efficiency of 1.2 in format 2 was accepted");
  } catch (const InputError& e) {
    CHECK(e.key() == "regimes[1].links.nvlink.efficiency");
    CHECK_THAT(e.message(), Catch::Contains("expected a fraction of the link rate in (0, 1], got 1.2"));
  }
  // The same value in a format 1 file (written before efficiencies were bounded by 1): read, and on_bound says so.
  const Calibration old = parse_calibration(replaced("efficiency: 0.78", "efficiency: 1.5"), "old.yaml");
  CHECK(old.format_version == 1);
  CHECK(old.regimes[1].links[0].efficiency == 1.5);
  REQUIRE(old.on_bound.size() == 1);
  CHECK(old.on_bound[0] == BoundHit{"bandwidth.nvlink.efficiency", 1.5, 1, true});
  // A format 1 file within the bounds reads as before: no ramp, nothing flagged.
  const Calibration plain = parse_calibration(kValid, "old.yaml");
  CHECK(plain.on_bound.empty());
  CHECK(plain.regimes[1].fill_bytes == 0);
}

TEST_CASE("a calibration of an unknown format version names the versions this syncsim reads", "[calibration-file]") {
  try {
    parse_calibration(replaced("format_version: 1", "format_version: 3"), "cal.yaml");
    FAIL("format version 3 was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.message(), Catch::Contains("unsupported format version 3 (this syncsim reads versions 1 and 2)"));
  }
}
