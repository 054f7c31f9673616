// NCCL Inspector logs through parse_inspector_log and the grouping by communicator (inspector_job.hpp): every input
// reads or throws InputError.
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/inspector_job.hpp"

namespace syncsim::fuzz {

int fuzz_inspector(const std::uint8_t* data, std::size_t size) {
  try {
    const InspectorJob job = group_inspector_logs({parse_inspector_log(as_text(data, size), "fuzz.jsonl")});
    (void)inspector_nccl_tests_logs(job);
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
