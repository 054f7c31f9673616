// Reading torch.profiler's Chrome trace (profile_trace.hpp): the committed real trace, and small hand-written ones
// for each rule (containers, GPU kernels joined to their launches, backward pairing) and each refusal.
#include <catch2/catch.hpp>

#include <filesystem>
#include <initializer_list>
#include <string>

#include "syncsim/compute/profile_trace.hpp"
#include "syncsim/core/input_error.hpp"

using namespace syncsim;

namespace {
const std::string kRealTrace = std::string(SYNCSIM_TORCH_PROFILER_DATA "/resnet50-cpu.json");

std::string error_of(const std::string& json) {
  try {
    parse_profile_trace(json, "t.json");
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return "no error";
}

// A JSON list of the events.
std::string list(std::initializer_list<std::string> events) {
  std::string out = "[";
  for (const std::string& e : events) out += (out.size() > 1 ? ", " : "") + e;
  return out + "]";
}

std::string range(const std::string& name, int ts, int dur, const std::string& extra = "") {
  return "{\"name\": \"" + name + "\", \"ph\": \"X\", \"ts\": " + std::to_string(ts) +
         ", \"dur\": " + std::to_string(dur) + extra + "}";
}
}  // namespace

TEST_CASE("the real ResNet-50 trace: 158 module calls, and every phase's time accounted for", "[profile]") {
  const ProfileTrace t = read_profile_trace(kRealTrace);
  CHECK(t.calls.size() == 158);
  CHECK_FALSE(t.kernel_times);
  // The phases' ranges, in microseconds as the file has them.
  CHECK(t.forward == SimTime::from_us(543'866));
  CHECK(t.backward == SimTime::from_us(1'396'060));
  CHECK(t.optimizer == SimTime::from_us(108'068));
  SimTime forward;
  SimTime gaps;
  SimTime backward;
  for (const ProfiledCall& c : t.calls) {
    forward += c.forward;
    gaps += c.gap_before;
    backward += c.backward;
  }
  CHECK(forward == SimTime::from_us(524'457));  // the "nn.Module: " ranges' durations
  CHECK(backward == SimTime::from_us(1'390'163));
  // Conservation: the calls, the gaps between them and the loss after the last make up the forward phase.
  CHECK(forward + gaps + t.gap_after == t.forward);
  CHECK(t.gap_after == SimTime::from_us(114));

  // A Bottleneck's one ReLU module, called three times; backward in reverse: call 1 has the last backward range.
  const ProfiledCall& first = t.calls[0];
  CHECK(first.module == "conv1");
  CHECK(first.forward == SimTime::from_us(825));
  CHECK(first.backward == SimTime::from_us(824));
  int relu = 0;
  for (const ProfiledCall& c : t.calls) {
    if (c.module != "layer1.0.relu") continue;
    ++relu;
    CHECK(c.calls == 3);
    CHECK(c.call == relu);
    CHECK(c.backward == SimTime::from_us(relu == 1 ? 106 : relu == 2 ? 130 : 552));
  }
  CHECK(relu == 3);
}

TEST_CASE("an object with traceEvents, containers giving way to their leaves", "[profile]") {
  // "block" encloses both convs; its own range is not a call.
  const std::string json =
      "{\"schemaVersion\": 1, \"traceEvents\": " +
      list({range("## forward ##", 0, 100), range("nn.Module: block", 10, 60), range("nn.Module: block.a", 10, 20),
            range("nn.Module: block.b", 40, 30), range("nn.Module backward: block.b", 200, 7),
            range("nn.Module backward: block.a", 210, 5)}) +
      "}";
  const ProfileTrace t = parse_profile_trace(json, "t.json");
  REQUIRE(t.calls.size() == 2);
  CHECK(t.calls[0].module == "block.a");
  CHECK(t.calls[0].gap_before == SimTime::from_us(10));
  CHECK(t.calls[1].gap_before == SimTime::from_us(10));
  CHECK(t.calls[1].forward == SimTime::from_us(30));
  CHECK(t.gap_after == SimTime::from_us(30));
  CHECK(t.calls[0].backward == SimTime::from_us(5));
  // No backward phase: the backward ranges' sum.
  CHECK(t.backward == SimTime::from_us(12));
  CHECK(t.optimizer == SimTime::zero());
}

TEST_CASE("a GPU trace: a module's time is its kernels', joined to their launches by correlation", "[profile]") {
  // The CPU ranges last 10 us; the kernels they launch run 300 and 40 us. The GPU's copy of a range
  // (gpu_user_annotation) is not a second call.
  const auto launch = [](int ts, int correlation) {
    return range("cudaLaunchKernel", ts, 2,
                 ", \"cat\": \"cuda_runtime\", \"args\": {\"correlation\": " + std::to_string(correlation) + "}");
  };
  const auto kernel = [](int ts, int dur, int correlation) {
    return range(
        "volta_sgemm", ts, dur,
        ", \"cat\": \"kernel\", \"args\": {\"correlation\": " + std::to_string(correlation) + ", \"stream\": 7}");
  };
  const std::string json = list({range("nn.Module: fc", 0, 10, ", \"cat\": \"user_annotation\""), launch(2, 1),
                                 launch(5, 2), range("nn.Module: fc", 20, 400, ", \"cat\": \"gpu_user_annotation\""),
                                 kernel(20, 300, 1), kernel(320, 40, 2), launch(12, 3), kernel(400, 25, 3)});
  const ProfileTrace t = parse_profile_trace(json, "t.json");
  CHECK(t.kernel_times);
  REQUIRE(t.calls.size() == 1);
  CHECK(t.calls[0].forward == SimTime::from_us(340));
  // No forward phase: the calls and the gaps between them; the kernel launched after fc is outside it.
  CHECK(t.forward == SimTime::from_us(340));
}

TEST_CASE("bad traces are refused at the file, saying what is wrong", "[profile]") {
  CHECK_THAT(error_of("[{\"name\": \"x\",]"), Catch::Contains("t.json:1:15: not a profiler trace: invalid JSON"));
  CHECK_THAT(error_of(""), Catch::Contains("invalid JSON"));
  CHECK_THAT(error_of("{\"a\": 1}"), Catch::Contains("not a Chrome trace: expected a list of trace events"));
  CHECK_THAT(error_of("42"), Catch::Contains("not a Chrome trace"));
  CHECK_THAT(error_of("[]"), Catch::Contains("holds no trace events"));
  CHECK_THAT(error_of("{\"traceEvents\": []}"), Catch::Contains("holds no trace events"));
  CHECK_THAT(error_of(list({range("aten::mm", 0, 5)})),
             Catch::Contains("none of the trace's 1 events is a module range ('nn.Module: NAME'"));
  CHECK_THAT(error_of(list({range("nn.Module: fc", 0, -5)})),
             Catch::Contains("traceEvents[0] ('nn.Module: fc'): dur: expected a duration of 0 to 1 day"));
  CHECK_THAT(error_of("[{\"name\": \"nn.Module: fc\", \"ph\": \"X\", \"ts\": 0}]"),
             Catch::Contains("dur: expected a duration of 0 to 1 day in microseconds, got nothing"));
  CHECK_THAT(
      error_of(list({range("nn.Module: fc", 0, 5), range("## forward ##", 0, 9), range("## forward ##", 10, 9)})),
      Catch::Contains("holds 2 '## forward ##' ranges, 2 iterations: profile one training step"));
  CHECK_THAT(error_of(list(
                 {range("nn.Module: fc", 0, 5), range("nn.Module: fc", 6, 5), range("nn.Module backward: fc", 20, 5)})),
             Catch::Contains("module 'fc' ran forward 2 times but has 1 backward ranges"));
  CHECK_THAT(error_of(list({range("nn.Module: fc", 0, 5), range("nn.Module backward: head", 20, 5)})),
             Catch::Contains("a 'nn.Module backward: head' range but no 'nn.Module: head' forward call"));
}

TEST_CASE("trace files that are not files are refused before they are read", "[profile]") {
  const auto error_at = [](const std::filesystem::path& path) {
    try {
      read_profile_trace(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_at("/no/such/trace.json"), Catch::Contains("cannot open the profiler trace"));
  CHECK_THAT(error_at(std::filesystem::temp_directory_path()), Catch::Contains("it is a directory"));
  CHECK_THAT(error_at("/dev/zero"), Catch::Contains("not a regular file"));
}
