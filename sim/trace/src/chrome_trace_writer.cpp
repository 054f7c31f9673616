#include "syncsim/trace/chrome_trace_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace syncsim::trace {
namespace {

constexpr std::size_t kFlushBytes = std::size_t{1} << 16;

// Accumulates output in a buffer and hands it to the stream in large chunks.
class Out {
 public:
  explicit Out(std::ostream& os) : os_(os) { buf_.reserve(kFlushBytes + 4096); }
  ~Out() { flush(); }
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;

  void raw(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= kFlushBytes) flush();
  }
  void flush() {
    os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

  // A JSON string literal: quotes, backslashes and control characters escaped; other bytes (UTF-8) as they are.
  void str(std::string_view s) {
    buf_.push_back('"');
    for (const char c : s) {
      switch (c) {
        case '"':
          buf_.append("\\\"");
          break;
        case '\\':
          buf_.append("\\\\");
          break;
        case '\n':
          buf_.append("\\n");
          break;
        case '\r':
          buf_.append("\\r");
          break;
        case '\t':
          buf_.append("\\t");
          break;
        case '\b':
          buf_.append("\\b");
          break;
        case '\f':
          buf_.append("\\f");
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            static constexpr std::string_view kHex = "0123456789abcdef";
            const auto u = static_cast<unsigned char>(c);
            buf_.append("\\u00");
            buf_.push_back(kHex[u >> 4U]);
            buf_.push_back(kHex[u & 0xFU]);
          } else {
            buf_.push_back(c);
          }
      }
    }
    buf_.push_back('"');
  }

  void integer(std::int64_t v) {
    std::array<char, 24> tmp{};
    const auto r = std::to_chars(tmp.data(), tmp.data() + tmp.size(), v);
    buf_.append(tmp.data(), r.ptr);
  }

  // Shortest round-trip form from std::to_chars: locale-independent and deterministic. NaN/inf -> null.
  void real(double v) {
    if (!std::isfinite(v)) {
      buf_.append("null");
      return;
    }
    std::array<char, 32> tmp{};
    const auto r = std::to_chars(tmp.data(), tmp.data() + tmp.size(), v);
    buf_.append(tmp.data(), r.ptr);
  }

  // Picoseconds as microseconds with exactly six decimals, by integer arithmetic: 1234567 -> 1.234567.
  void micros(SimTime t) {
    const std::int64_t ps = t.ps();
    std::uint64_t mag = ps < 0 ? 0U - static_cast<std::uint64_t>(ps) : static_cast<std::uint64_t>(ps);
    if (ps < 0) buf_.push_back('-');
    std::array<char, 24> tmp{};
    auto r = std::to_chars(tmp.data(), tmp.data() + tmp.size(), mag / 1'000'000U);
    buf_.append(tmp.data(), r.ptr);
    buf_.push_back('.');
    std::uint64_t frac = mag % 1'000'000U;
    std::array<char, 6> digits{};
    for (int i = 5; i >= 0; --i) {
      digits[static_cast<std::size_t>(i)] = static_cast<char>('0' + frac % 10U);
      frac /= 10U;
    }
    buf_.append(digits.data(), digits.size());
  }

 private:
  std::ostream& os_;
  std::string buf_;
};

int pid_of(TrackKind kind) {
  return static_cast<int>(kind) + 1;
}

void write_arg(Out& o, const Trace& trace, const Arg& a) {
  o.str(trace.str(a.key));
  o.raw(":");
  switch (a.kind) {
    case SpanArg::Kind::integer:
      o.integer(a.as_int());
      break;
    case SpanArg::Kind::real:
      o.real(a.as_double());
      break;
    case SpanArg::Kind::string:
      o.str(trace.str(a.str_id()));
      break;
  }
}

void write_metadata(Out& o, const Trace& trace, bool& first) {
  auto begin_event = [&] {
    o.raw(first ? "\n" : ",\n");
    first = false;
  };
  bool seen[3] = {false, false, false};
  for (const Track& t : trace.tracks()) {
    const int pid = pid_of(t.kind);
    if (seen[pid - 1]) continue;
    seen[pid - 1] = true;
    begin_event();
    o.raw(R"({"name":"process_name","ph":"M","ts":0,"pid":)");
    o.integer(pid);
    o.raw(R"(,"tid":0,"args":{"name":)");
    o.str(to_string(t.kind));
    o.raw("}}");
    begin_event();
    o.raw(R"({"name":"process_sort_index","ph":"M","ts":0,"pid":)");
    o.integer(pid);
    o.raw(R"(,"tid":0,"args":{"sort_index":)");
    o.integer(pid);
    o.raw("}}");
  }
  for (std::size_t i = 0; i < trace.tracks().size(); ++i) {
    const Track& t = trace.tracks()[i];
    const auto tid = static_cast<std::int64_t>(i) + 1;
    begin_event();
    o.raw(R"({"name":"thread_name","ph":"M","ts":0,"pid":)");
    o.integer(pid_of(t.kind));
    o.raw(R"(,"tid":)");
    o.integer(tid);
    o.raw(R"(,"args":{"name":)");
    o.str(trace.str(t.name));
    o.raw("}}");
    begin_event();
    o.raw(R"({"name":"thread_sort_index","ph":"M","ts":0,"pid":)");
    o.integer(pid_of(t.kind));
    o.raw(R"(,"tid":)");
    o.integer(tid);
    o.raw(R"(,"args":{"sort_index":)");
    o.integer(t.sort_index);
    o.raw("}}");
  }
}

}  // namespace

void write_chrome_trace(const Trace& trace, std::ostream& out) {
  Out o(out);
  o.raw(R"({"traceEvents":[)");
  bool first = true;
  write_metadata(o, trace, first);

  const auto& tracks = trace.tracks();
  const auto& spans = trace.spans();
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    const Track& t = tracks[s.track];
    o.raw(first ? "\n" : ",\n");
    first = false;
    o.raw(R"({"name":)");
    o.str(trace.str(s.name));
    o.raw(R"(,"cat":)");
    o.str(trace.str(s.category));
    o.raw(R"(,"ph":"X","ts":)");
    o.micros(s.start);
    o.raw(R"(,"dur":)");
    o.micros(s.duration);
    o.raw(R"(,"pid":)");
    o.integer(pid_of(t.kind));
    o.raw(R"(,"tid":)");
    o.integer(static_cast<std::int64_t>(s.track) + 1);
    o.raw(R"(,"args":{"span_id":)");
    o.integer(static_cast<std::int64_t>(i));
    if (s.parent != kNoSpan) {
      o.raw(R"(,"parent_span_id":)");
      o.integer(s.parent);
    }
    for (const Arg& a : trace.args(s)) {
      o.raw(",");
      write_arg(o, trace, a);
    }
    o.raw("}}");
  }

  for (const Counter& c : trace.counters()) {
    const Track& t = tracks[c.track];
    o.raw(first ? "\n" : ",\n");
    first = false;
    std::string name(trace.str(t.name));
    name += ' ';
    name += trace.str(c.name);
    o.raw(R"({"name":)");
    o.str(name);
    o.raw(R"(,"ph":"C","ts":)");
    o.micros(c.time);
    o.raw(R"(,"pid":)");
    o.integer(pid_of(t.kind));
    o.raw(R"(,"tid":)");
    o.integer(static_cast<std::int64_t>(c.track) + 1);
    o.raw(R"(,"args":{"value":)");
    o.real(c.value);
    o.raw("}}");
  }

  // Flow arrows (the legacy "s"/"f" pair both viewers read): each end sits at its span's midpoint, where no
  // neighbouring step's boundary can make the enclosing slice ambiguous, and binds to the slice around it.
  const auto flow_end = [&](std::size_t flow, SpanId id, std::string_view phase) {
    const Span& s = spans[id];
    o.raw(first ? "\n" : ",\n");
    first = false;
    o.raw(R"({"name":"send","cat":"flow","ph":")");
    o.raw(phase);
    o.raw(R"(","id":)");
    o.integer(static_cast<std::int64_t>(flow));
    o.raw(R"(,"ts":)");
    o.micros(s.start + SimTime::from_ps(s.duration.ps() / 2));
    o.raw(R"(,"pid":)");
    o.integer(pid_of(tracks[s.track].kind));
    o.raw(R"(,"tid":)");
    o.integer(static_cast<std::int64_t>(s.track) + 1);
    o.raw(phase == "f" ? R"(,"bp":"e"})" : "}");
  };
  for (std::size_t i = 0; i < trace.flows().size(); ++i) {
    flow_end(i, trace.flows()[i].from, "s");
    flow_end(i, trace.flows()[i].to, "f");
  }

  // otherData: the builder's metadata (unique keys), then defaults for keys it did not set.
  o.raw("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{");
  bool has_generator = false;
  bool first_key = true;
  for (const auto& [k, v] : trace.metadata()) {
    has_generator = has_generator || k == "generator";
    o.raw(first_key ? "" : ",");
    first_key = false;
    o.str(k);
    o.raw(":");
    o.str(v);
  }
  if (!has_generator) o.raw(first_key ? R"("generator":"syncsim")" : R"(,"generator":"syncsim")");
  o.raw("}}\n");
}

}  // namespace syncsim::trace
