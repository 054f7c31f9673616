#include "models/trace_json_reader.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"

namespace tr = syncsim::trace;
// ordered: a span's arguments keep the file's order, so a trace read back writes out byte for byte the same.
using OrderedJson = nlohmann::ordered_json;

namespace {

[[noreturn]] void fail(const QString& source, const std::string& message) {
  throw syncsim::InputError(message, syncsim::SourceLocation{source.toStdString(), 0, 0});
}

// Microseconds (a JSON number) to picoseconds.
syncsim::SimTime micros(const OrderedJson& v) {
  return syncsim::SimTime::from_ps(static_cast<std::int64_t>(std::llround(v.get<double>() * 1e6)));
}

tr::TrackKind kindOfPid(std::int64_t pid) {
  if (pid == 2) return tr::TrackKind::link;
  if (pid == 3) return tr::TrackKind::collective;
  return tr::TrackKind::worker;
}

struct TrackInfo {
  std::string name;
  std::int64_t pid = 0;
  std::int32_t sortIndex = 0;
  bool hasSortIndex = false;
};

}  // namespace

namespace {

tr::Trace parse(std::string_view text, const QString& source) {
  syncsim::check_json_nesting(text, source.toStdString());  // a span's args are written back by recursion
  OrderedJson doc;
  try {
    doc = OrderedJson::parse(text.begin(), text.end());
  } catch (const OrderedJson::exception& e) {  // parse_error, or out_of_range for a number past double's range
    fail(source, std::string("not valid JSON: ") + e.what());
  }
  const OrderedJson* events = nullptr;
  if (doc.is_array()) {
    events = &doc;
  } else if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array()) {
    events = &doc["traceEvents"];
  } else {
    fail(source, "not a Chrome trace: expected an object with a \"traceEvents\" array, or an array of events");
  }

  // Pass 1: tracks, keyed by (pid, tid), from metadata and from the events that use them.
  std::map<std::pair<std::int64_t, std::int64_t>, TrackInfo> tracks;
  const auto idOf = [&](const OrderedJson& e, std::size_t index) {
    const auto pid = e.find("pid");
    const auto tid = e.find("tid");
    if ((pid != e.end() && !pid->is_number_integer()) || (tid != e.end() && !tid->is_number_integer())) {
      fail(source, "event " + std::to_string(index) + ": pid and tid must be integers");
    }
    return std::pair<std::int64_t, std::int64_t>{pid == e.end() ? 0 : pid->get<std::int64_t>(),
                                                 tid == e.end() ? 0 : tid->get<std::int64_t>()};
  };
  for (std::size_t i = 0; i < events->size(); ++i) {
    const OrderedJson& e = (*events)[i];
    if (!e.is_object()) fail(source, "event " + std::to_string(i) + ": expected an object");
    const std::string ph = e.value("ph", "");
    if (ph != "M" && ph != "X" && ph != "C") continue;
    const auto id = idOf(e, i);
    TrackInfo& t = tracks[id];
    t.pid = id.first;
    const OrderedJson& args = e.contains("args") && e["args"].is_object() ? e["args"] : OrderedJson::object();
    if (ph == "M" && e.value("name", "") == "thread_name" && args.contains("name") && args["name"].is_string()) {
      t.name = args["name"].get<std::string>();
    } else if (ph == "M" && e.value("name", "") == "thread_sort_index" && args.contains("sort_index") &&
               args["sort_index"].is_number_integer()) {
      t.sortIndex = args["sort_index"].get<std::int32_t>();
      t.hasSortIndex = true;
    }
  }

  tr::TraceBuilder builder;
  std::map<std::pair<std::int64_t, std::int64_t>, tr::TrackId> trackIds;
  const auto trackOf = [&](const std::pair<std::int64_t, std::int64_t>& id) {
    auto it = trackIds.find(id);
    if (it != trackIds.end()) return it->second;
    const TrackInfo& t = tracks[id];
    const std::string name =
        t.name.empty() ? "pid " + std::to_string(id.first) + " tid " + std::to_string(id.second) : t.name;
    const auto sortIndex = t.hasSortIndex ? t.sortIndex : static_cast<std::int32_t>(id.second);
    const tr::TrackId track = builder.add_track(name, kindOfPid(id.first), sortIndex);
    trackIds.emplace(id, track);
    return track;
  };
  if (doc.is_object() && doc.contains("otherData") && doc["otherData"].is_object()) {
    for (const auto& [key, value] : doc["otherData"].items()) {
      if (value.is_string()) builder.set_metadata(key, value.get<std::string>());
    }
  }

  // Pass 2: spans and counters. A file span_id maps to the builder's id so nested spans keep their parent.
  std::map<std::int64_t, tr::SpanId> spanIds;
  std::vector<tr::SpanArg> args;
  std::vector<std::string> keys;  // SpanArg holds views: keep the strings alive for the call
  std::vector<std::string> strings;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const OrderedJson& e = (*events)[i];
    const std::string ph = e.value("ph", "");
    const auto where = [&] { return "event " + std::to_string(i) + " (\"ph\":\"" + ph + "\")"; };
    if (ph == "X") {
      if (!e.contains("ts") || !e["ts"].is_number() || !e.contains("dur") || !e["dur"].is_number()) {
        fail(source, where() + ": a complete event needs numeric \"ts\" and \"dur\"");
      }
      const syncsim::SimTime ts = micros(e["ts"]);
      const syncsim::SimTime dur = micros(e["dur"]);
      if (dur.ps() < 0) fail(source, where() + ": negative \"dur\"");
      const std::string name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
      const std::string category = e.contains("cat") && e["cat"].is_string() ? e["cat"].get<std::string>() : "";
      args.clear();
      keys.clear();
      strings.clear();
      tr::SpanId parent = tr::kNoSpan;
      std::optional<std::int64_t> fileSpanId;
      if (e.contains("args") && e["args"].is_object()) {
        const OrderedJson& a = e["args"];
        keys.reserve(a.size());
        strings.reserve(a.size());
        for (const auto& [key, value] : a.items()) {
          if (key == "span_id" && value.is_number_integer()) {
            fileSpanId = value.get<std::int64_t>();
            continue;
          }
          if (key == "parent_span_id" && value.is_number_integer()) {
            const auto p = spanIds.find(value.get<std::int64_t>());
            if (p != spanIds.end()) parent = p->second;
            continue;
          }
          keys.push_back(key);
          if (value.is_number_integer()) {
            args.emplace_back(keys.back(), value.get<std::int64_t>());
          } else if (value.is_number()) {
            args.emplace_back(keys.back(), value.get<double>());
          } else if (value.is_string()) {
            strings.push_back(value.get<std::string>());
            args.emplace_back(keys.back(), std::string_view(strings.back()));
          }
        }
      }
      const tr::SpanId id = builder.add_span(trackOf(idOf(e, i)), name, category, ts, dur, args, parent);
      if (fileSpanId) spanIds[*fileSpanId] = id;
    } else if (ph == "C") {
      if (!e.contains("ts") || !e["ts"].is_number()) fail(source, where() + ": a counter event needs a numeric \"ts\"");
      const tr::TrackId track = trackOf(idOf(e, i));
      const OrderedJson& a = e.contains("args") && e["args"].is_object() ? e["args"] : OrderedJson::object();
      std::string name = e.value("name", "");
      // The writer names a counter "<track> <counter>"; keep only the counter's own name.
      const std::string& trackName = tracks[idOf(e, i)].name;
      if (!trackName.empty() && name.rfind(trackName + " ", 0) == 0) name = name.substr(trackName.size() + 1);
      for (const auto& [key, value] : a.items()) {
        if (!value.is_number()) continue;
        builder.add_counter(track, key == "value" ? name : name + " " + key, micros(e["ts"]), value.get<double>());
      }
    }
  }
  return std::move(builder).build();
}

}  // namespace

tr::Trace parseTraceJson(std::string_view text, const QString& source) {
  // A value of the wrong JSON type anywhere (a string "ph", an object "ts") is bad input like any other.
  try {
    return parse(text, source);
  } catch (const OrderedJson::exception& e) {
    fail(source, std::string("unexpected JSON value: ") + e.what());
  } catch (const std::invalid_argument& e) {
    fail(source, e.what());
  }
}

tr::Trace readTraceJson(const QString& path) {
  // The CLI's checked reader: a FIFO, a device or a folder is refused before it is opened, and the size is capped.
  return parseTraceJson(syncsim::read_input_file(path.toStdString(), "trace"), path);
}
