#pragma once
// TraceGraph: one rank's trace as the importers walk it. Nodes are indexed by id, as ASTRA-sim's feeder indexes
// them, so a file may hold them in any order; the walk visits them dependencies first (Kahn's algorithm, ties by
// file position, so that a file already in dependency order is walked in file order). METADATA_NODEs are left out of
// the walk (a dependency on one is no dependency).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/sim_time.hpp"

namespace syncsim::chakra {

// A DDP trace's layer nodes: "<layer> forward" and "<layer> backward".
inline constexpr std::string_view kForwardSuffix = " forward";
inline constexpr std::string_view kBackwardSuffix = " backward";

// A COMP_NODE of `time`: exactly in syncsim_duration_ps, to the nearest microsecond in duration_micros (what
// ASTRA-sim replays).
ExecutionNode compute_node(std::uint64_t id, std::string name, SimTime time, std::vector<std::uint64_t> deps);

class TraceGraph {
 public:
  // Throws InputError at `source` naming the node (id, name, kind) for a repeated id, a dependency on an id no node
  // has, or a node on a dependency cycle.
  TraceGraph(const ExecutionTrace& trace, const std::string& source);

  // Node indices (into trace.nodes), every node after what it depends on; no METADATA_NODE.
  const std::vector<std::size_t>& order() const { return order_; }
  // Per node index: the indices of its data and control dependencies (METADATA_NODEs left out).
  const std::vector<std::size_t>& deps(std::size_t node) const { return deps_[node]; }

  InputError error(const ExecutionNode& n, const std::string& what) const;
  // A node's time: syncsim_duration_ps when present (exact), else duration_micros (whole microseconds). Throws
  // naming the node for a negative time or one past the clock.
  SimTime time_of(const ExecutionNode& n) const;

 private:
  const ExecutionTrace& trace_;
  const std::string& source_;
  std::vector<std::size_t> order_;
  std::vector<std::vector<std::size_t>> deps_;
};

}  // namespace syncsim::chakra
