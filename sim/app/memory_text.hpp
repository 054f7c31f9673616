#pragma once
// How `syncsim run` and `syncsim memory` print a memory verdict: one line, sizes in GiB.
#include <ostream>
#include <string>

#include "syncsim/compute/memory_check.hpp"
#include "syncsim/scenario/scenario.hpp"

namespace syncsim::app {

std::string gib_text(Bytes bytes);
// "fits: 41.82 GiB of 80.00 GiB", or "DOES NOT FIT: ... (short by ...)".
std::string memory_verdict(const MemoryReport& memory);
// The allocator's lines of `syncsim memory`: the peak allocated and reserved, what lies outside the allocator, and
// whose layout (Megatron's or PyTorch's, as the scenario's parallelism and loss make it) the terms follow.
void print_allocator_lines(std::ostream& out, const MemoryReport& memory, const Scenario& scenario);

}  // namespace syncsim::app
