// NCCL topology XML (NCCL_TOPO_DUMP_FILE) through read_nccl_xml_text.
#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/topology/nccl_xml_io.hpp"

namespace syncsim::fuzz {

int fuzz_nccl_xml(const std::uint8_t* data, std::size_t size) {
  try {
    (void)read_nccl_xml_text(as_text(data, size), "fuzz.xml");
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace syncsim::fuzz
