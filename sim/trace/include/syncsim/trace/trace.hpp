#pragma once
// Trace: the immutable record of one simulated run (docs/architecture.md §2) — tracks, spans and counters — and the
// TraceBuilder that records it while a simulation runs.
//
// Tracks: one per worker/GPU, per busy link and per collective; each has a name, a kind and a sort index.
// Spans: (track, name, category, start, duration, args), optionally nested under a parent span (collective steps
// inside a bucket's AllReduce). Counters: (track, name, time, value), e.g. link utilization.
//
// Memory: a trace may hold millions of spans, so a span is a 40-byte record; names, categories, argument keys and
// string argument values are interned in one string table, and arguments live in one shared pool.
//
// Determinism: build() orders tracks by (kind, sort index, name, insertion order), spans by (track, start,
// insertion order) and counters by (track, time, insertion order). After build() a span's id is its index in
// Trace::spans() and Span::parent refers to that index, so the same spans per track, inserted with any
// interleaving across tracks, give the same Trace.
//
//   TraceBuilder b;
//   TrackId gpu0 = b.add_track("gpu0", TrackKind::worker, 0);
//   SpanId ar = b.add_span(gpu0, "allreduce b0", category::communication, t0, d, {{"bucket", 0}, {"bytes", n}});
//   b.add_span(gpu0, "step 0", category::collective_step, t0, d / 2, {}, ar);
//   b.add_counter(link, "utilization", t0, 0.75);
//   Trace trace = std::move(b).build();
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "syncsim/core/sim_time.hpp"

namespace syncsim::trace {

using TrackId = std::uint32_t;
using SpanId = std::uint32_t;
using NameId = std::uint32_t;
inline constexpr SpanId kNoSpan = std::numeric_limits<SpanId>::max();

enum class TrackKind : std::uint8_t { worker = 0, link = 1, collective = 2 };
std::string_view to_string(TrackKind kind);

// Standard span categories (any string is accepted).
namespace category {
inline constexpr std::string_view forward = "forward";
inline constexpr std::string_view backward = "backward";
inline constexpr std::string_view communication = "communication";
inline constexpr std::string_view idle = "idle";
inline constexpr std::string_view collective = "collective";
inline constexpr std::string_view collective_step = "collective_step";
inline constexpr std::string_view optimizer = "optimizer";
inline constexpr std::string_view fault = "fault";              // a failed rank's downtime and every rank's restart
inline constexpr std::string_view server_apply = "apply";       // a parameter server applying a gradient shard
inline constexpr std::string_view compression = "compression";  // gradient compression's kernels beside a collective
}  // namespace category

// An argument as passed to add_span: a key and an integer, floating-point or string value.
struct SpanArg {
  enum class Kind : std::uint8_t { integer, real, string };
  template <std::integral I>
  SpanArg(std::string_view k, I v) : key(k), kind(Kind::integer), i(static_cast<std::int64_t>(v)) {}
  template <std::floating_point F>
  SpanArg(std::string_view k, F v) : key(k), kind(Kind::real), d(static_cast<double>(v)) {}
  SpanArg(std::string_view k, std::string_view v) : key(k), kind(Kind::string), s(v) {}
  SpanArg(std::string_view k, const char* v) : key(k), kind(Kind::string), s(v) {}

  std::string_view key;
  Kind kind;
  std::int64_t i = 0;
  double d = 0.0;
  std::string_view s;
};

// A stored argument: 16 bytes. value() gives the integer, as_double() the real, str_id() the interned string.
struct Arg {
  NameId key = 0;
  SpanArg::Kind kind = SpanArg::Kind::integer;
  std::int64_t bits = 0;  // integer value, bit pattern of the double, or the NameId of the string

  std::int64_t as_int() const { return bits; }
  double as_double() const;
  NameId str_id() const { return static_cast<NameId>(bits); }
};

struct Track {
  NameId name = 0;
  TrackKind kind = TrackKind::worker;
  std::int32_t sort_index = 0;
};

struct Span {
  SimTime start;
  SimTime duration;
  TrackId track = 0;
  NameId name = 0;
  NameId category = 0;
  SpanId parent = kNoSpan;  // index into Trace::spans(), or kNoSpan
  std::uint32_t args_begin = 0;
  std::uint32_t args_count = 0;

  SimTime end() const { return start + duration; }
};

// An arrow from one span to another (Perfetto and chrome://tracing draw it): a collective step's send, from the
// sender's step to the receiver's step it feeds.
struct Flow {
  SpanId from = kNoSpan;
  SpanId to = kNoSpan;
};

struct Counter {
  SimTime time;
  double value = 0.0;
  TrackId track = 0;
  NameId name = 0;
};

class Trace {
 public:
  Trace() = default;

  const std::vector<Track>& tracks() const { return tracks_; }
  const std::vector<Span>& spans() const { return spans_; }
  const std::vector<Counter>& counters() const { return counters_; }
  // Sorted by (from, to); span ids are indices into spans().
  const std::vector<Flow>& flows() const { return flows_; }
  std::span<const Arg> args(const Span& span) const {
    return std::span<const Arg>(args_).subspan(span.args_begin, span.args_count);
  }
  std::string_view str(NameId id) const { return strings_[id]; }
  // Free-form run metadata (scenario name, seed, ...), in insertion order; written to "otherData".
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }

 private:
  friend class TraceBuilder;
  std::vector<std::string> strings_;
  std::vector<Track> tracks_;
  std::vector<Span> spans_;
  std::vector<Counter> counters_;
  std::vector<Flow> flows_;
  std::vector<Arg> args_;
  std::vector<std::pair<std::string, std::string>> metadata_;
};

class TraceBuilder {
 public:
  TraceBuilder();
  ~TraceBuilder();
  TraceBuilder(TraceBuilder&&) noexcept;
  TraceBuilder& operator=(TraceBuilder&&) noexcept;
  TraceBuilder(const TraceBuilder&) = delete;
  TraceBuilder& operator=(const TraceBuilder&) = delete;

  TrackId add_track(std::string_view name, TrackKind kind, std::int32_t sort_index = 0);
  // Returns the span's builder id (insertion order), usable as `parent` of later spans. Throws
  // std::invalid_argument for an unknown track or parent, or a negative duration.
  SpanId add_span(TrackId track, std::string_view name, std::string_view category, SimTime start, SimTime duration,
                  std::span<const SpanArg> args = {}, SpanId parent = kNoSpan);
  SpanId add_span(TrackId track, std::string_view name, std::string_view category, SimTime start, SimTime duration,
                  std::initializer_list<SpanArg> args, SpanId parent = kNoSpan) {
    return add_span(track, name, category, start, duration, std::span<const SpanArg>(args.begin(), args.size()),
                    parent);
  }
  void add_counter(TrackId track, std::string_view name, SimTime time, double value);
  // An arrow between two spans this builder returned; std::invalid_argument for an unknown one.
  void add_flow(SpanId from, SpanId to);
  void set_metadata(std::string_view key, std::string_view value);
  void reserve_spans(std::size_t n);

  std::size_t span_count() const;
  // Sorts and freezes; the builder is left empty.
  Trace build() &&;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace syncsim::trace
