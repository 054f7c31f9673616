#include "syncsim/trace/trace.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace syncsim;
using namespace syncsim::trace;

namespace {
SimTime at_ps(std::int64_t v) {
  return SimTime::from_ps(v);
}
}  // namespace

TEST_CASE("span, counter and arg records stay compact") {
  STATIC_REQUIRE(sizeof(Span) <= 40);
  STATIC_REQUIRE(sizeof(Counter) <= 24);
  STATIC_REQUIRE(sizeof(Arg) <= 16);
}

TEST_CASE("build sorts tracks by kind and sort index, spans by track and start") {
  TraceBuilder b;
  const TrackId link = b.add_track("link a-b", TrackKind::link, 0);
  const TrackId gpu1 = b.add_track("gpu1", TrackKind::worker, 1);
  const TrackId gpu0 = b.add_track("gpu0", TrackKind::worker, 0);
  b.add_span(gpu1, "fwd", category::forward, at_ps(10), at_ps(5));
  b.add_span(gpu0, "bwd", category::backward, at_ps(20), at_ps(5), {{"bucket", 3}, {"bytes", std::size_t{1} << 20}});
  b.add_span(gpu0, "fwd", category::forward, at_ps(0), at_ps(20));
  b.add_counter(link, "utilization", at_ps(5), 0.5);
  b.add_counter(link, "utilization", at_ps(1), 0.25);
  b.set_metadata("scenario", "unit");
  const Trace t = std::move(b).build();

  REQUIRE(t.tracks().size() == 3);
  CHECK(t.str(t.tracks()[0].name) == "gpu0");
  CHECK(t.str(t.tracks()[1].name) == "gpu1");
  CHECK(t.str(t.tracks()[2].name) == "link a-b");
  REQUIRE(t.spans().size() == 3);
  CHECK(t.spans()[0].track == 0);
  CHECK(t.spans()[0].start == at_ps(0));
  CHECK(t.spans()[1].start == at_ps(20));
  CHECK(t.spans()[2].track == 1);
  const auto args = t.args(t.spans()[1]);
  REQUIRE(args.size() == 2);
  CHECK(t.str(args[0].key) == "bucket");
  CHECK(args[0].as_int() == 3);
  CHECK(args[1].as_int() == (std::int64_t{1} << 20));
  REQUIRE(t.counters().size() == 2);
  CHECK(t.counters()[0].time == at_ps(1));
  CHECK(t.counters()[0].track == 2);
  CHECK(t.metadata().at(0).second == "unit");
}

TEST_CASE("parents are remapped to sorted span indices") {
  TraceBuilder b;
  const TrackId c = b.add_track("allreduce", TrackKind::collective, 0);
  const SpanId step1 = b.add_span(c, "step 1", category::collective_step, at_ps(50), at_ps(50));
  const SpanId parent = b.add_span(c, "bucket 0", category::collective, at_ps(0), at_ps(100), {{"algo", "ring"}});
  CHECK(step1 == 0);
  b.add_span(c, "step 0", category::collective_step, at_ps(0), at_ps(50), {}, parent);
  const Trace t = std::move(b).build();
  REQUIRE(t.spans().size() == 3);
  CHECK(t.str(t.spans()[0].name) == "bucket 0");
  CHECK(t.str(t.args(t.spans()[0])[0].str_id()) == "ring");
  CHECK(t.spans()[1].parent == 0);
  CHECK(t.spans()[2].parent == kNoSpan);
}

TEST_CASE("builder rejects bad input") {
  TraceBuilder b;
  const TrackId w = b.add_track("gpu0", TrackKind::worker);
  CHECK_THROWS_AS(b.add_span(w + 1, "x", category::idle, at_ps(0), at_ps(1)), std::invalid_argument);
  CHECK_THROWS_AS(b.add_span(w, "x", category::idle, at_ps(0), at_ps(-1)), std::invalid_argument);
  CHECK_THROWS_AS(b.add_span(w, "x", category::idle, at_ps(0), at_ps(1), {}, 7), std::invalid_argument);
  CHECK_THROWS_AS(b.add_counter(w + 1, "u", at_ps(0), 1.0), std::invalid_argument);
  const SpanId span = b.add_span(w, "x", category::idle, at_ps(0), at_ps(1));
  CHECK_THROWS_AS(b.add_flow(span, span + 1), std::invalid_argument);
  CHECK_THROWS_AS(b.add_flow(kNoSpan, span), std::invalid_argument);
}

TEST_CASE("flows follow their spans to sorted indices, in (from, to) order") {
  TraceBuilder b;
  const TrackId late = b.add_track("gpu1", TrackKind::worker, 1);
  const TrackId early = b.add_track("gpu0", TrackKind::worker, 0);
  const SpanId b1 = b.add_span(late, "b1", category::collective_step, at_ps(20), at_ps(10));
  const SpanId b0 = b.add_span(late, "b0", category::collective_step, at_ps(0), at_ps(10));
  const SpanId a0 = b.add_span(early, "a0", category::collective_step, at_ps(0), at_ps(10));
  b.add_flow(b1, a0);
  b.add_flow(a0, b0);
  const Trace t = std::move(b).build();
  auto name = [&](SpanId id) { return std::string(t.str(t.spans()[id].name)); };
  REQUIRE(t.flows().size() == 2);
  CHECK(name(t.flows()[0].from) == "a0");
  CHECK(name(t.flows()[0].to) == "b0");
  CHECK(name(t.flows()[1].from) == "b1");
  CHECK(name(t.flows()[1].to) == "a0");
}
