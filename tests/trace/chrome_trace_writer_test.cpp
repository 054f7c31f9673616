#include "syncsim/trace/chrome_trace_writer.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace syncsim;
using namespace syncsim::trace;
using nlohmann::json;

namespace {

SimTime ps(std::int64_t v) {
  return SimTime::from_ps(v);
}

std::string write(const Trace& t) {
  std::ostringstream os;
  write_chrome_trace(t, os);
  return os.str();
}

// Two workers and a link; `reversed` inserts the tracks and their spans in the opposite order.
Trace sample(bool reversed) {
  TraceBuilder b;
  auto add_worker = [&](int rank) {
    const TrackId w = b.add_track(fmt::format("gpu{}", rank), TrackKind::worker, rank);
    b.add_span(w, "forward", category::forward, ps(0), ps(1234567), {{"rank", rank}});
    b.add_span(w, "backward", category::backward, ps(1234567), ps(2000000));
    b.add_span(w, "allreduce", category::communication, ps(2000000), ps(500000),
               {{"bucket", 0}, {"bytes", 1048576}, {"peers", "gpu0,gpu1"}, {"share", 0.5}});
  };
  auto add_link = [&] {
    const TrackId l = b.add_track("nvlink 0-1", TrackKind::link, 0);
    b.add_counter(l, "utilization", ps(2000000), 0.75);
    b.add_counter(l, "utilization", ps(2500000), 0.0);
  };
  if (reversed) {
    add_link();
    add_worker(1);
    add_worker(0);
  } else {
    add_worker(0);
    add_worker(1);
    add_link();
  }
  b.set_metadata("scenario", "sample");
  return std::move(b).build();
}

}  // namespace

TEST_CASE("chrome trace: every event has the fields its phase requires") {
  const json doc = json::parse(write(sample(false)));
  CHECK(doc.at("displayTimeUnit") == "ns");
  CHECK(doc.at("otherData").at("scenario") == "sample");
  const json& events = doc.at("traceEvents");
  int meta = 0, complete = 0, counters = 0;
  for (const json& e : events) {
    REQUIRE(e.contains("name"));
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("ts"));
    REQUIRE(e.contains("pid"));
    REQUIRE(e.contains("tid"));
    const std::string ph = e.at("ph");
    if (ph == "M") {
      ++meta;
      REQUIRE(e.contains("args"));
    } else if (ph == "X") {
      ++complete;
      REQUIRE(e.contains("dur"));
      REQUIRE(e.contains("cat"));
    } else if (ph == "s" || ph == "f") {
      REQUIRE(e.contains("id"));
    } else if (ph == "C") {
      ++counters;
      REQUIRE(e.at("args").contains("value"));
    } else {
      FAIL("unexpected phase " << ph);
    }
  }
  // process_name + process_sort_index for workers and links; thread_name + thread_sort_index for 3 tracks.
  CHECK(meta == 2 * 2 + 2 * 3);
  CHECK(complete == 6);
  CHECK(counters == 2);

  bool named_gpu1 = false;
  for (const json& e : events) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name" && e.at("args").at("name") == "gpu1") {
      named_gpu1 = true;
      CHECK(e.at("pid") == 1);
    }
    if (e.at("ph") == "M" && e.at("name") == "process_name" && e.at("pid") == 2)
      CHECK(e.at("args").at("name") == "links");
    if (e.at("ph") == "C") CHECK(e.at("name") == "nvlink 0-1 utilization");
    if (e.at("name") == "allreduce") {
      CHECK(e.at("args").at("bucket") == 0);
      CHECK(e.at("args").at("bytes") == 1048576);
      CHECK(e.at("args").at("peers") == "gpu0,gpu1");
      CHECK(e.at("args").at("share") == 0.5);
    }
  }
  CHECK(named_gpu1);
}

TEST_CASE("chrome trace: a flow is an s/f pair with one id, each end inside its span") {
  TraceBuilder b;
  const TrackId gpu0 = b.add_track("gpu0", TrackKind::worker, 0);
  const TrackId gpu1 = b.add_track("gpu1", TrackKind::worker, 1);
  const SpanId send = b.add_span(gpu0, "step 1", category::collective_step, ps(1'000'000), ps(3'000'000));
  const SpanId recv = b.add_span(gpu1, "step 2", category::collective_step, ps(4'000'000), ps(1'000'000));
  b.add_flow(send, recv);
  const json events = json::parse(write(std::move(b).build())).at("traceEvents");
  std::vector<json> ends;
  for (const json& e : events) {
    if (e.value("cat", "") == "flow") ends.push_back(e);
  }
  REQUIRE(ends.size() == 2);
  CHECK(ends[0].at("ph") == "s");
  CHECK(ends[1].at("ph") == "f");
  CHECK(ends[1].at("bp") == "e");
  CHECK(ends[0].at("id") == ends[1].at("id"));
  CHECK(ends[0].at("tid") == 1);
  CHECK(ends[1].at("tid") == 2);
  CHECK(ends[0].at("ts").get<double>() == Approx(2.5));
  CHECK(ends[1].at("ts").get<double>() == Approx(4.5));
}

TEST_CASE("chrome trace: ts and dur are exact microseconds with six decimals") {
  const std::string out = write(sample(false));
  CHECK(out.find(R"("ph":"X","ts":0.000000,"dur":1.234567,)") != std::string::npos);
  CHECK(out.find(R"("ts":1.234567,"dur":2.000000,)") != std::string::npos);
  CHECK(out.find(R"("ph":"C","ts":2.500000,)") != std::string::npos);

  TraceBuilder b;
  const TrackId w = b.add_track("w", TrackKind::worker);
  b.add_span(w, "big", category::idle, ps(86'400'000'000'000'001), ps(999'999));
  b.add_span(w, "neg", category::idle, ps(-1), ps(1));
  const std::string big = write(std::move(b).build());
  CHECK(big.find(R"("ts":86400000000.000001,"dur":0.999999)") != std::string::npos);
  CHECK(big.find(R"("ts":-0.000001,"dur":0.000001)") != std::string::npos);
}

TEST_CASE("chrome trace: names are escaped") {
  const std::string nasty = std::string("q\"b\\n\nt\tc") + '\x01' + "\x7f" + "µs";
  TraceBuilder b;
  const TrackId w = b.add_track(nasty, TrackKind::worker);
  b.add_span(w, nasty, nasty, ps(0), ps(1), {{nasty, nasty}});
  b.set_metadata(nasty, nasty);
  const std::string out = write(std::move(b).build());
  CHECK(out.find("\\u0001") != std::string::npos);
  const json doc = json::parse(out);
  for (const json& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X") {
      CHECK(e.at("name") == nasty);
      CHECK(e.at("cat") == nasty);
      CHECK(e.at("args").at(nasty) == nasty);
    }
    if (e.at("name") == "thread_name") CHECK(e.at("args").at("name") == nasty);
  }
  CHECK(doc.at("otherData").at(nasty) == nasty);
}

TEST_CASE("chrome trace: output is byte-identical regardless of track insertion order") {
  const std::string a = write(sample(false));
  const std::string b = write(sample(true));
  CHECK(a == b);
  CHECK(a == write(sample(false)));
}

TEST_CASE("chrome trace: nested spans lie inside their parent and keep its id") {
  TraceBuilder b;
  const TrackId c = b.add_track("allreduce bucket 0", TrackKind::collective);
  const SpanId parent = b.add_span(c, "allreduce", category::collective, ps(1000), ps(4000), {{"bucket", 0}});
  for (int step = 0; step < 4; ++step) {
    b.add_span(c, fmt::format("step {}", step), category::collective_step, ps(1000 + 1000 * step), ps(1000),
               {{"step", step}}, parent);
  }
  const Trace t = std::move(b).build();
  const json doc = json::parse(write(t));
  json parent_event;
  for (const json& e : doc.at("traceEvents")) {
    if (e.at("name") == "allreduce") parent_event = e;
  }
  REQUIRE(parent_event.is_object());
  const auto pid = parent_event.at("args").at("span_id").get<std::int64_t>();
  int children = 0;
  for (const json& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X" || !e.at("args").contains("parent_span_id")) continue;
    ++children;
    CHECK(e.at("args").at("parent_span_id") == pid);
    CHECK(e.at("ts").get<double>() >= parent_event.at("ts").get<double>());
    CHECK(e.at("ts").get<double>() + e.at("dur").get<double>() <=
          parent_event.at("ts").get<double>() + parent_event.at("dur").get<double>() + 1e-9);
  }
  CHECK(children == 4);
}

TEST_CASE("chrome trace: a million spans build and write") {
  constexpr int kTracks = 16;
  constexpr int kPerTrack = 1'000'000 / kTracks;
  TraceBuilder b;
  b.reserve_spans(std::size_t{kTracks} * kPerTrack);
  for (int w = 0; w < kTracks; ++w) b.add_track(fmt::format("gpu{}", w), TrackKind::worker, w);
  for (int i = 0; i < kPerTrack; ++i) {
    for (int w = 0; w < kTracks; ++w) {
      b.add_span(static_cast<TrackId>(w), i % 2 ? "backward" : "forward",
                 i % 2 ? category::backward : category::forward, ps(std::int64_t{i} * 1'000'000), ps(999'999),
                 {{"bucket", i % 7}});
    }
  }
  const Trace t = std::move(b).build();
  REQUIRE(t.spans().size() == std::size_t{kTracks} * kPerTrack);
  std::ostringstream os;
  write_chrome_trace(t, os);
  const std::string out = os.str();
  CHECK(out.size() > t.spans().size() * 100);
  CHECK(out.substr(out.size() - 3) == "}}\n");
}
