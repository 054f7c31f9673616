#include "syncsim/trace/trace.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace syncsim::trace {

std::string_view to_string(TrackKind kind) {
  switch (kind) {
    case TrackKind::worker:
      return "workers";
    case TrackKind::link:
      return "links";
    case TrackKind::collective:
      return "collectives";
  }
  return "unknown";
}

double Arg::as_double() const {
  return std::bit_cast<double>(bits);
}

namespace {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace

struct TraceBuilder::Impl {
  std::vector<std::string> strings;
  std::unordered_map<std::string, NameId, StringHash, std::equal_to<>> index;
  std::vector<Track> tracks;
  std::vector<Span> spans;  // track/parent hold builder ids until build()
  std::vector<Counter> counters;
  std::vector<Flow> flows;  // builder span ids until build()
  std::vector<Arg> args;
  std::vector<std::pair<std::string, std::string>> metadata;

  NameId intern(std::string_view s) {
    if (auto it = index.find(s); it != index.end()) return it->second;
    const auto id = static_cast<NameId>(strings.size());
    strings.emplace_back(s);
    index.emplace(std::string(s), id);
    return id;
  }
};

TraceBuilder::TraceBuilder() : impl_(std::make_unique<Impl>()) {}
TraceBuilder::~TraceBuilder() = default;
TraceBuilder::TraceBuilder(TraceBuilder&&) noexcept = default;
TraceBuilder& TraceBuilder::operator=(TraceBuilder&&) noexcept = default;

TrackId TraceBuilder::add_track(std::string_view name, TrackKind kind, std::int32_t sort_index) {
  impl_->tracks.push_back(Track{impl_->intern(name), kind, sort_index});
  return static_cast<TrackId>(impl_->tracks.size() - 1);
}

SpanId TraceBuilder::add_span(TrackId track, std::string_view name, std::string_view category, SimTime start,
                              SimTime duration, std::span<const SpanArg> args, SpanId parent) {
  Impl& m = *impl_;
  if (track >= m.tracks.size()) throw std::invalid_argument("trace: add_span on an unknown track");
  if (parent != kNoSpan && parent >= m.spans.size()) throw std::invalid_argument("trace: unknown parent span");
  if (duration < SimTime::zero()) throw std::invalid_argument("trace: negative span duration");
  if (m.spans.size() >= kNoSpan - 1) throw std::length_error("trace: too many spans");
  Span s;
  s.start = start;
  s.duration = duration;
  s.track = track;
  s.name = m.intern(name);
  s.category = m.intern(category);
  s.parent = parent;
  s.args_begin = static_cast<std::uint32_t>(m.args.size());
  s.args_count = static_cast<std::uint32_t>(args.size());
  for (const SpanArg& a : args) {
    Arg stored;
    stored.key = m.intern(a.key);
    stored.kind = a.kind;
    switch (a.kind) {
      case SpanArg::Kind::integer:
        stored.bits = a.i;
        break;
      case SpanArg::Kind::real:
        stored.bits = std::bit_cast<std::int64_t>(a.d);
        break;
      case SpanArg::Kind::string:
        stored.bits = m.intern(a.s);
        break;
    }
    m.args.push_back(stored);
  }
  m.spans.push_back(s);
  return static_cast<SpanId>(m.spans.size() - 1);
}

void TraceBuilder::add_counter(TrackId track, std::string_view name, SimTime time, double value) {
  if (track >= impl_->tracks.size()) throw std::invalid_argument("trace: add_counter on an unknown track");
  impl_->counters.push_back(Counter{time, value, track, impl_->intern(name)});
}

void TraceBuilder::add_flow(SpanId from, SpanId to) {
  if (from >= impl_->spans.size() || to >= impl_->spans.size()) {
    throw std::invalid_argument("trace: add_flow between unknown spans");
  }
  impl_->flows.push_back(Flow{from, to});
}

void TraceBuilder::set_metadata(std::string_view key, std::string_view value) {
  for (auto& [k, v] : impl_->metadata) {
    if (k == key) {
      v = value;
      return;
    }
  }
  impl_->metadata.emplace_back(std::string(key), std::string(value));
}

void TraceBuilder::reserve_spans(std::size_t n) {
  impl_->spans.reserve(n);
}

std::size_t TraceBuilder::span_count() const {
  return impl_->spans.size();
}

Trace TraceBuilder::build() && {
  Impl& m = *impl_;
  Trace t;

  // Tracks: (kind, sort index, name, insertion order).
  std::vector<std::uint32_t> track_order(m.tracks.size());
  std::iota(track_order.begin(), track_order.end(), 0U);
  std::stable_sort(track_order.begin(), track_order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Track& x = m.tracks[a];
    const Track& y = m.tracks[b];
    return std::tuple(x.kind, x.sort_index, std::string_view(m.strings[x.name])) <
           std::tuple(y.kind, y.sort_index, std::string_view(m.strings[y.name]));
  });
  std::vector<TrackId> track_new(m.tracks.size());
  t.tracks_.reserve(m.tracks.size());
  for (std::uint32_t i = 0; i < track_order.size(); ++i) {
    track_new[track_order[i]] = i;
    t.tracks_.push_back(m.tracks[track_order[i]]);
  }

  // Spans: (track, start, insertion order). Ids become indices in the sorted vector.
  std::vector<SpanId> span_order(m.spans.size());
  std::iota(span_order.begin(), span_order.end(), 0U);
  std::sort(span_order.begin(), span_order.end(), [&](SpanId a, SpanId b) {
    const Span& x = m.spans[a];
    const Span& y = m.spans[b];
    return std::tuple(track_new[x.track], x.start, a) < std::tuple(track_new[y.track], y.start, b);
  });
  std::vector<SpanId> span_new(m.spans.size());
  for (SpanId i = 0; i < span_order.size(); ++i) span_new[span_order[i]] = i;
  t.spans_.reserve(m.spans.size());
  t.args_.reserve(m.args.size());
  for (const SpanId old : span_order) {
    Span s = m.spans[old];
    s.track = track_new[s.track];
    if (s.parent != kNoSpan) s.parent = span_new[s.parent];
    const auto begin = static_cast<std::uint32_t>(t.args_.size());
    t.args_.insert(t.args_.end(), m.args.begin() + s.args_begin, m.args.begin() + s.args_begin + s.args_count);
    s.args_begin = begin;
    t.spans_.push_back(s);
  }
  std::vector<Span>().swap(m.spans);
  std::vector<Arg>().swap(m.args);

  // Flows: sorted by their spans' new ids, so the output depends on the spans alone, not on insertion order.
  for (Flow& f : m.flows) f = Flow{span_new[f.from], span_new[f.to]};
  std::sort(m.flows.begin(), m.flows.end(),
            [](const Flow& x, const Flow& y) { return std::tie(x.from, x.to) < std::tie(y.from, y.to); });
  t.flows_ = std::move(m.flows);

  // Counters: (track, time, insertion order).
  for (Counter& c : m.counters) c.track = track_new[c.track];
  std::stable_sort(m.counters.begin(), m.counters.end(), [](const Counter& x, const Counter& y) {
    return std::tie(x.track, x.time) < std::tie(y.track, y.time);
  });
  t.counters_ = std::move(m.counters);

  t.strings_ = std::move(m.strings);
  t.metadata_ = std::move(m.metadata);
  impl_ = std::make_unique<Impl>();
  return t;
}

}  // namespace syncsim::trace
