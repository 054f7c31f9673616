// Stands in for execution_trace_codec.cpp when protobuf was not found at configure time: the rest of syncsim builds,
// and asking for a Chakra trace says why it cannot have one.
#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::chakra {

namespace {

InputError unavailable(const std::string& source) {
  return InputError(
      "Chakra execution traces need protobuf, which was not found when this syncsim was configured (install "
      "protobuf-compiler and libprotobuf-dev, then configure again)",
      SourceLocation{source, 0, 0});
}

}  // namespace

bool execution_traces_supported() {
  return false;
}

std::string encode_execution_trace(const ExecutionTrace& trace) {
  throw unavailable(trace.workload);
}

ExecutionTrace decode_execution_trace(std::string_view, const std::string& source) {
  throw unavailable(source);
}

}  // namespace syncsim::chakra
