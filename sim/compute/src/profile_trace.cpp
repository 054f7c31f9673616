#include "syncsim/compute/profile_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <utility>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"

namespace syncsim {

namespace {

constexpr std::string_view kForwardPrefix = "nn.Module: ";
constexpr std::string_view kBackwardPrefix = "nn.Module backward: ";
constexpr std::string_view kForwardPhase = "## forward ##";
constexpr std::string_view kBackwardPhase = "## backward ##";
constexpr std::string_view kOptimizerPhase = "## optimizer ##";
// A range longer than a day is a unit mistake (nanoseconds written as microseconds), not an iteration.
constexpr double kMaxDurationUs = 86'400e6;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The fields of one trace event that the reader uses.
struct RawEvent {
  std::string name;
  std::string ph;
  std::string cat;
  double ts = kNaN;
  double dur = kNaN;
  std::optional<std::int64_t> correlation;
};

struct Range {
  std::string module;
  double start = 0;
  double end = 0;
};

struct Kernel {
  std::int64_t correlation = 0;
  double dur = 0;
};

// What the SAX pass keeps: module and phase ranges, GPU kernels and their launches; every other event is counted.
struct Collected {
  std::size_t events = 0;
  bool has_event_list = false;
  std::vector<Range> forward;
  std::vector<Range> backward;
  std::map<std::string_view, std::vector<Range>> phases;
  std::vector<Kernel> kernels;
  std::unordered_map<std::int64_t, double> launches;  // correlation -> launch time
};

bool is_gpu_work(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}
bool is_launch(std::string_view cat) {
  return cat == "cuda_runtime" || cat == "cuda_driver";
}

// Streams the JSON: events are the objects of the top-level array, or of the top-level object's "traceEvents".
class TraceReader {
 public:
  TraceReader(const std::string& source, Collected& out) : source_(source), out_(out) {}

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(std::int64_t v) { return number(static_cast<double>(v), v); }
  bool number_unsigned(std::uint64_t v) {
    return number(static_cast<double>(v), static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX)));
  }
  bool number_float(double v, const std::string&) { return number(v, std::nullopt); }
  bool string(std::string& v) {
    if (std::string* field = text_field()) *field = std::move(v);
    return true;
  }
  bool binary(std::vector<std::uint8_t>&) { return true; }
  bool start_object(std::size_t) {
    if (depth_ == events_depth_) {
      in_event_ = true;
      event_ = RawEvent{};
      event_depth_ = depth_ + 1;
    }
    open();
    return true;
  }
  bool end_object() {
    --depth_;
    if (in_event_ && depth_ == events_depth_) {
      in_event_ = false;
      keep(std::move(event_));
    }
    return true;
  }
  bool start_array(std::size_t) {
    if (depth_ == 0 || (depth_ == 1 && keys_[1] == "traceEvents")) {
      if (events_depth_ < 0) {
        events_depth_ = depth_ + 1;
        out_.has_event_list = true;
      }
    }
    open();
    return true;
  }
  bool end_array() {
    --depth_;
    return true;
  }
  bool key(std::string& k) {
    keys_[depth_] = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    error_position_ = position;
    error_ = e.what();
    return false;
  }

  std::optional<std::size_t> error_position() const { return error_position_; }
  const std::string& error() const { return error_; }

 private:
  void open() {
    ++depth_;
    if (keys_.size() <= static_cast<std::size_t>(depth_)) keys_.resize(depth_ + 1);
    keys_[depth_].clear();
  }
  // The event's own field, or one inside its "args".
  bool in_args() const { return in_event_ && depth_ == event_depth_ + 1 && keys_[event_depth_] == "args"; }
  std::string* text_field() {
    if (!in_event_ || depth_ != event_depth_) return nullptr;
    const std::string& k = keys_[depth_];
    if (k == "name") return &event_.name;
    if (k == "ph") return &event_.ph;
    if (k == "cat") return &event_.cat;
    return nullptr;
  }
  bool number(double v, std::optional<std::int64_t> whole) {
    if (in_event_ && depth_ == event_depth_) {
      if (keys_[depth_] == "ts") event_.ts = v;
      if (keys_[depth_] == "dur") event_.dur = v;
    } else if (in_args() && keys_[depth_] == "correlation" && whole) {
      event_.correlation = whole;
    }
    return true;
  }

  [[noreturn]] void bad(const RawEvent& e, std::string_view field, double value) const {
    throw InputError(fmt::format("traceEvents[{}] ('{}'): {}: expected {}, got {}", out_.events - 1, e.name, field,
                                 field == "dur" ? "a duration of 0 to 1 day in microseconds" : "a time in microseconds",
                                 std::isnan(value) ? std::string("nothing") : fmt::format("{}", value)),
                     SourceLocation{source_, 0, 0});
  }
  void check_times(const RawEvent& e) const {
    if (!std::isfinite(e.ts)) bad(e, "ts", e.ts);
    if (!(e.dur >= 0 && e.dur <= kMaxDurationUs)) bad(e, "dur", e.dur);
  }

  void keep(RawEvent e) {
    ++out_.events;
    if (e.ph != "X") return;
    if (is_gpu_work(e.cat)) {
      check_times(e);
      if (e.correlation) out_.kernels.push_back({*e.correlation, e.dur});
      return;
    }
    if (is_launch(e.cat)) {
      check_times(e);
      if (e.correlation) out_.launches.emplace(*e.correlation, e.ts);
      return;
    }
    if (e.cat == "gpu_user_annotation") return;  // the GPU timeline's copy of a CPU range
    std::vector<Range>* ranges = nullptr;
    std::string_view module;
    if (e.name.starts_with(kBackwardPrefix)) {
      ranges = &out_.backward;
      module = std::string_view(e.name).substr(kBackwardPrefix.size());
    } else if (e.name.starts_with(kForwardPrefix)) {
      ranges = &out_.forward;
      module = std::string_view(e.name).substr(kForwardPrefix.size());
    }
    for (std::string_view phase : {kForwardPhase, kBackwardPhase, kOptimizerPhase}) {
      if (e.name == phase) {
        check_times(e);
        out_.phases[phase].push_back({std::string(phase), e.ts, e.ts + e.dur});
      }
    }
    if (ranges == nullptr) return;
    check_times(e);
    ranges->push_back({std::string(module), e.ts, e.ts + e.dur});
  }

  const std::string& source_;
  Collected& out_;
  int depth_ = 0;
  int events_depth_ = -1;  // the depth at which event objects open, once the event list is found
  int event_depth_ = 0;    // the depth of the open event's fields
  bool in_event_ = false;
  RawEvent event_;
  std::vector<std::string> keys_ = std::vector<std::string>(2);
  std::optional<std::size_t> error_position_;
  std::string error_;
};

SourceLocation location_of(std::string_view text, std::size_t position, const std::string& source) {
  const std::size_t end = std::min(position > 0 ? position - 1 : 0, text.size());
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {source, line, static_cast<int>(end - line_start) + 1};
}

// "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..." -> "syntax error ...".
std::string parse_reason(const std::string& what) {
  const std::size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// Leaf ranges in time order: a range enclosing the next one is a container and gives way to what it holds.
std::vector<Range> leaves(std::vector<Range> ranges) {
  std::stable_sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<Range> out;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const bool container =
        i + 1 < ranges.size() && ranges[i + 1].start < ranges[i].end && ranges[i + 1].end <= ranges[i].end;
    if (!container) out.push_back(std::move(ranges[i]));
  }
  return out;
}

// busy(from, to) in microseconds: the wall time of a CPU trace, or the GPU kernels launched in [from, to).
class BusyTime {
 public:
  explicit BusyTime(const Collected& c) {
    std::vector<std::pair<double, double>> joined;  // launch time, kernel duration
    for (const Kernel& k : c.kernels) {
      if (const auto it = c.launches.find(k.correlation); it != c.launches.end())
        joined.emplace_back(it->second, k.dur);
    }
    kernels_ = !c.kernels.empty();
    std::sort(joined.begin(), joined.end());
    launch_times_.reserve(joined.size());
    prefix_.assign(1, 0.0);
    for (const auto& [at, dur] : joined) {
      launch_times_.push_back(at);
      prefix_.push_back(prefix_.back() + dur);
    }
  }
  bool kernels() const { return kernels_; }
  SimTime operator()(double from, double to) const {
    if (!(to > from)) return SimTime::zero();
    if (!kernels_) return SimTime::from_us(to - from);
    return SimTime::from_us(prefix_[index(to)] - prefix_[index(from)]);
  }

 private:
  std::size_t index(double t) const {
    return static_cast<std::size_t>(std::lower_bound(launch_times_.begin(), launch_times_.end(), t) -
                                    launch_times_.begin());
  }
  bool kernels_ = false;
  std::vector<double> launch_times_;
  std::vector<double> prefix_;  // prefix_[i]: the durations of the first i kernels by launch time
};

std::optional<Range> one_phase(const Collected& c, std::string_view phase, const std::string& source) {
  const auto it = c.phases.find(phase);
  if (it == c.phases.end()) return std::nullopt;
  if (it->second.size() > 1) {
    throw InputError(fmt::format("the trace holds {} '{}' ranges, {} iterations: profile one training step (one "
                                 "step of torch.profiler's schedule, as tests/data/torch-profiler/make_trace.py does)",
                                 it->second.size(), phase, it->second.size()),
                     SourceLocation{source, 0, 0});
  }
  return it->second.front();
}

// Each module's backward ranges paired with its forward calls, last call first.
void pair_backward(ProfileTrace& trace, const std::vector<Range>& backward, const BusyTime& busy) {
  std::map<std::string, std::vector<const Range*>, std::less<>> by_module;
  for (const Range& r : backward) by_module[r.module].push_back(&r);
  std::map<std::string, int, std::less<>> forward_calls;
  for (const ProfiledCall& c : trace.calls) forward_calls[c.module] = c.calls;
  for (const auto& [module, ranges] : by_module) {
    const auto it = forward_calls.find(module);
    if (it == forward_calls.end()) {
      throw InputError(fmt::format("the trace has a 'nn.Module backward: {}' range but no 'nn.Module: {}' forward call",
                                   module, module),
                       SourceLocation{trace.source, 0, 0});
    }
    if (static_cast<int>(ranges.size()) != it->second) {
      throw InputError(fmt::format("module '{}' ran forward {} times but has {} backward ranges: each forward call "
                                   "needs its backward range, or none for a module without gradients",
                                   module, it->second, ranges.size()),
                       SourceLocation{trace.source, 0, 0});
    }
  }
  for (ProfiledCall& c : trace.calls) {
    const auto it = by_module.find(c.module);
    if (it == by_module.end()) continue;
    const Range& r = *it->second[static_cast<std::size_t>(c.calls - c.call)];
    c.backward = busy(r.start, r.end);
  }
}

ProfileTrace assemble(const Collected& c, const std::string& source) {
  ProfileTrace trace;
  trace.source = source;
  const BusyTime busy(c);
  trace.kernel_times = busy.kernels();
  const std::vector<Range> forward = leaves(c.forward);
  const std::vector<Range> backward = leaves(c.backward);
  const std::optional<Range> forward_phase = one_phase(c, kForwardPhase, source);
  const std::optional<Range> backward_phase = one_phase(c, kBackwardPhase, source);
  const std::optional<Range> optimizer_phase = one_phase(c, kOptimizerPhase, source);

  std::map<std::string_view, int> calls;
  for (const Range& r : forward) ++calls[r.module];
  std::map<std::string_view, int> seen;
  double previous_end = forward_phase ? forward_phase->start : forward.front().start;
  SimTime forward_sum;
  for (const Range& r : forward) {
    ProfiledCall call;
    call.module = r.module;
    call.call = ++seen[r.module];
    call.calls = calls[r.module];
    call.forward = busy(r.start, r.end);
    call.gap_before = busy(previous_end, r.start);
    forward_sum += call.forward + call.gap_before;
    previous_end = std::max(previous_end, r.end);
    trace.calls.push_back(std::move(call));
  }
  if (forward_phase) {
    trace.gap_after = busy(previous_end, forward_phase->end);
    trace.forward = busy(forward_phase->start, forward_phase->end);
  } else {
    trace.forward = forward_sum;
  }
  pair_backward(trace, backward, busy);
  if (backward_phase) {
    trace.backward = busy(backward_phase->start, backward_phase->end);
  } else {
    for (const ProfiledCall& call : trace.calls) trace.backward += call.backward;
  }
  if (optimizer_phase) trace.optimizer = busy(optimizer_phase->start, optimizer_phase->end);
  return trace;
}

}  // namespace

ProfileTrace parse_profile_trace(std::string_view json, const std::string& source) {
  Collected collected;
  TraceReader reader(source, collected);
  nlohmann::json::sax_parse(json, &reader);
  if (reader.error_position()) {
    throw InputError(fmt::format("not a profiler trace: invalid JSON ({})", parse_reason(reader.error())),
                     location_of(json, *reader.error_position(), source));
  }
  const SourceLocation file{source, 0, 0};
  if (!collected.has_event_list) {
    throw InputError(
        "not a Chrome trace: expected a list of trace events, or an object with \"traceEvents\" (what "
        "torch.profiler's export_chrome_trace writes)",
        file);
  }
  if (collected.events == 0) throw InputError("the trace holds no trace events", file);
  if (collected.forward.empty()) {
    throw InputError(fmt::format("none of the trace's {} events is a module range ('nn.Module: NAME', \"ph\": \"X\"): "
                                 "name each module's forward and backward as tests/data/torch-profiler/make_trace.py "
                                 "does",
                                 collected.events),
                     file);
  }
  return assemble(collected, source);
}

ProfileTrace read_profile_trace(const std::filesystem::path& path) {
  return parse_profile_trace(read_input_file(path, "profiler trace"), path.string());
}

}  // namespace syncsim
