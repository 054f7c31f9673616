// libFuzzer's entry point for one target, chosen at compile time (SYNCSIM_FUZZ_TARGET, set per binary in
// CMakeLists.txt), so each binary's coverage feedback comes from one reader only.
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return syncsim::fuzz::SYNCSIM_FUZZ_TARGET(data, size);
}
