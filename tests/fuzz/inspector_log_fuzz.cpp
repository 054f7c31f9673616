// NCCL Inspector logs through parse_inspector_log, the grouping by communicator (inspector_job.hpp) and the per-step
// collective sequence (inspector_sequence.hpp): every input reads or throws InputError.
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/inspector_job.hpp"
#include "syncsim/validation/inspector_sequence.hpp"

namespace syncsim::fuzz {

int fuzz_inspector(const std::uint8_t* data, std::size_t size) {
  try {
    const InspectorLog log = parse_inspector_log(as_text(data, size), "fuzz.jsonl");
    try {
      (void)extract_collective_sequence({log});
    } catch (const InputError&) {
    }
    const InspectorJob job = group_inspector_logs({log});
    (void)inspector_nccl_tests_logs(job);
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
