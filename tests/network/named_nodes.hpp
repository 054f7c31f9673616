#pragma once
// Builds a topology node by node for the flow-model tests.
#include <string>
#include <utility>

#include "syncsim/topology/topology.hpp"

namespace syncsim::named_nodes {

inline NodeId add_named_node(Topology& topology, std::string name, NodeKind kind = NodeKind::gpu) {
  Node node;
  node.name = std::move(name);
  node.kind = kind;
  return topology.add_node(node);
}

}  // namespace syncsim::named_nodes
