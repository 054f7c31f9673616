#pragma once
// Reads a Chrome-trace `trace.json` (docs/trace.md) back into a syncsim::trace::Trace, so a saved run is shown
// exactly as a fresh one.
//
// Accepted: the object form {"traceEvents": [...]} or a bare event array. "M" thread_name / thread_sort_index
// events name the tracks; a span's pid gives its track kind (1 workers, 2 links, 3 collectives, as the writer
// assigns them; any other pid counts as workers). "X" events become spans with their args, "C" counter events
// counters (name "<track> <counter>", args.value). ts and dur are microseconds; they are converted to integer
// picoseconds by rounding, which is exact for the writer's six decimals. Other phases are ignored.
//
// Any malformed input (not JSON, no event array, an "X" event without numeric ts/dur, a negative duration)
// throws syncsim::InputError naming the file and, where it helps, the event's index: never a crash and never a
// half-read trace.
#include <QString>
#include <string_view>

#include "syncsim/trace/trace.hpp"

syncsim::trace::Trace readTraceJson(const QString& path);
// `source` names the text in error messages.
syncsim::trace::Trace parseTraceJson(std::string_view json, const QString& source);
