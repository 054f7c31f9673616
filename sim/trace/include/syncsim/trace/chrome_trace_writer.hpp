#pragma once
// Chrome trace event format writer (opens in Perfetto and chrome://tracing; see docs/trace.md).
//
// Writes {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}} as a stream, without building a JSON
// document in memory:
//   - "M" metadata events: process_name / process_sort_index per track kind (pid 1 workers, 2 links,
//     3 collectives), thread_name / thread_sort_index per track (tid = track index + 1);
//   - "X" complete events, one per span, with ts and dur in microseconds printed from integer picoseconds with
//     exactly six decimals (1234567 ps -> 1.234567), and args holding the span's arguments plus "span_id" and,
//     when nested, "parent_span_id";
//   - "C" counter events named "<track> <counter>" with args {"value": v}.
// The output is byte-identical for equal traces.
#include <ostream>

#include "syncsim/trace/trace.hpp"

namespace syncsim::trace {

void write_chrome_trace(const Trace& trace, std::ostream& out);

}  // namespace syncsim::trace
