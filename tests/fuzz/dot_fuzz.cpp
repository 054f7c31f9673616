// Graphviz DOT topologies through read_dot_text, the file reader's in-memory twin.
#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/dot_io.hpp"

namespace syncsim::fuzz {

int fuzz_dot(const std::uint8_t* data, std::size_t size) {
  try {
    (void)read_dot_text(as_text(data, size), "fuzz.dot");
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
