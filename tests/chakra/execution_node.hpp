#pragma once
// A bare node for the Chakra tests to fill in: id, name and kind, nothing else set.
#include <cstdint>
#include <string>

#include "syncsim/chakra/execution_trace.hpp"

namespace syncsim::chakra::testing {

inline ExecutionNode node(std::uint64_t id, std::string name, NodeKind kind) {
  ExecutionNode n;
  n.id = id;
  n.name = std::move(name);
  n.kind = kind;
  return n;
}

}  // namespace syncsim::chakra::testing
