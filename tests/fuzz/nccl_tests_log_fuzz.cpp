// nccl-tests result logs through parse_nccl_tests_log. The source name hints the collective like a file name
// would; "fuzz.log" hints none, so the log's own lines decide.
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim::fuzz {

int fuzz_nccl_tests_log(const std::uint8_t* data, std::size_t size) {
  try {
    (void)parse_nccl_tests_log(as_text(data, size), std::string("fuzz.log"));
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
