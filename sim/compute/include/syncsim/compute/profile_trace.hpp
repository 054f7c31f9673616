#pragma once
// ProfileTrace: the per-module forward and backward times of one training iteration, read from the Chrome-trace
// JSON that PyTorch's profiler writes (`torch.profiler.profile(...).export_chrome_trace(path)`), for
// `model.profile` (layer_profile_match.hpp matches them to a model's layers).
//
// The trace names each module call with a range (complete events, "ph": "X"; times in microseconds):
//
//   nn.Module: <qualified module name>            one per forward call ("layer1.0.relu", called 3 times a block)
//   nn.Module backward: <qualified module name>   one per backward call, in backward (reverse) order
//   ## forward ##, ## backward ##, ## optimizer ##  the iteration's phases (optional)
//
// tests/data/torch-profiler/make_trace.py shows how a model's modules are given these ranges. A range that
// encloses another module range is a container (a Sequential, a block) and gives way to the leaves inside it.
//
// What a range's time is, `busy(from, to)`:
//   - a CPU trace: its duration; the ops of one thread add up to it;
//   - a GPU trace (events with "cat": "kernel"): the summed duration of the kernels launched inside it, each kernel
//     joined to its launch (cat "cuda_runtime" or "cuda_driver") by args.correlation. A CPU range of an
//     asynchronous GPU measures launches, not the GPU's work.
// The k-th of a module's n backward ranges (in time) is the backward of its forward call n+1-k: backward runs in
// reverse. The forward time between two module ranges (ops outside any module: a residual add, a flatten) is kept
// with the call that follows it (`gap_before`), and the time after the last one (the loss) as `gap_after`.
//
// One iteration per trace: several "## forward ##" ranges are refused (profile one step). Memory is bounded by
// read_input_file's limit on the file (256 MiB) and the events kept (module ranges and GPU kernels, not every op):
// the JSON is read as a stream of tokens (SAX), never as a document tree.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/core/sim_time.hpp"

namespace syncsim {

struct ProfiledCall {
  std::string module;  // the qualified module name, "layer1.0.relu"
  int call = 1;        // 1-based: which of the module's forward calls this is
  int calls = 1;       // how many times the module ran forward
  SimTime forward;
  SimTime backward;    // zero when the module ran no backward (its output needed no gradient)
  SimTime gap_before;  // forward time since the previous module call ended (or the forward began)
};

struct ProfileTrace {
  std::string source;               // the file, for messages
  std::vector<ProfiledCall> calls;  // in forward order
  SimTime gap_after;                // forward time after the last module call (the loss)
  // The phases' times, busy() over the "## ... ##" ranges; a phase without its range is the sum of what the trace
  // has of it (the calls and gaps for forward, the backward ranges for backward, zero for the optimizer).
  SimTime forward;
  SimTime backward;
  SimTime optimizer;
  bool kernel_times = false;  // times are GPU kernels' (see above), not CPU ranges'
};

// Throws InputError at the file (with line and column for invalid JSON) when the file cannot be read, is not JSON,
// holds no trace events, has no "nn.Module: " ranges, holds several iterations, has a duration that is negative, not
// a number or past a day, or pairs a module's forward calls with a different number of backward ranges.
ProfileTrace read_profile_trace(const std::filesystem::path& path);
// The same from text; `source` names it in messages.
ProfileTrace parse_profile_trace(std::string_view json, const std::string& source);

}  // namespace syncsim
