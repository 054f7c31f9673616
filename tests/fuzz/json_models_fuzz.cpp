// The JSON files a scenario names for its model and GPU: a Hugging Face config.json (model.hf_config) through
// parse_hf_config, a GPU profile (cluster.gpu: {profile: ...}) through parse_gpu_profile, memory size given so
// that an unknown device still reads, and a PyTorch profiler trace (model.profile) through parse_profile_trace.
// The first two go through check_json_nesting first (a 200,000-level config crashed the error message that printed
// it); the trace is read as a token stream (SAX), never as a tree. These targets need syncsim::compute alone, so a
// fuzz build makes them without the rest of the libraries.
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/compute/gpu_profile.hpp"
#include "syncsim/compute/hf_config.hpp"
#include "syncsim/compute/profile_trace.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::fuzz {

int fuzz_hf_config(const std::uint8_t* data, std::size_t size) {
  try {
    (void)parse_hf_config(as_text(data, size), "fuzz.json");
  } catch (const InputError&) {
  }
  return 0;
}

int fuzz_gpu_profile(const std::uint8_t* data, std::size_t size) {
  try {
    (void)parse_gpu_profile(as_text(data, size), "fuzz.json", Bytes{std::int64_t{80} << 30});
  } catch (const InputError&) {
  }
  return 0;
}

int fuzz_profile_trace(const std::uint8_t* data, std::size_t size) {
  try {
    (void)parse_profile_trace(as_text(data, size), "fuzz.json");
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
