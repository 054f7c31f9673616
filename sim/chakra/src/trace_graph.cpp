#include "trace_graph.hpp"

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

namespace syncsim::chakra {

InputError TraceGraph::error(const ExecutionNode& n, const std::string& what) const {
  return InputError(fmt::format("node {} ('{}', {}): {}", n.id, n.name, to_string(n.kind), what),
                    SourceLocation{source_, 0, 0});
}

namespace {
constexpr std::int64_t kPsPerMicrosecond = 1'000'000;
}  // namespace

ExecutionNode compute_node(std::uint64_t id, std::string name, SimTime time, std::vector<std::uint64_t> deps) {
  ExecutionNode n;
  n.id = id;
  n.name = std::move(name);
  n.kind = NodeKind::compute;
  n.data_deps = std::move(deps);
  n.duration_ps = time.ps();
  n.duration_micros = static_cast<std::uint64_t>((time.ps() + kPsPerMicrosecond / 2) / kPsPerMicrosecond);
  return n;
}

SimTime TraceGraph::time_of(const ExecutionNode& n) const {
  if (n.duration_ps) {
    if (*n.duration_ps < 0) throw error(n, fmt::format("syncsim_duration_ps is negative ({})", *n.duration_ps));
    return SimTime::from_ps(*n.duration_ps);
  }
  if (n.duration_micros > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / kPsPerMicrosecond)) {
    throw error(n, fmt::format("duration_micros {} is past the simulator's clock (106 days)", n.duration_micros));
  }
  return SimTime::from_ps(static_cast<std::int64_t>(n.duration_micros) * kPsPerMicrosecond);
}

TraceGraph::TraceGraph(const ExecutionTrace& trace, const std::string& source) : trace_(trace), source_(source) {
  const std::vector<ExecutionNode>& nodes = trace.nodes;
  std::unordered_map<std::uint64_t, std::size_t> index;
  index.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!index.emplace(nodes[i].id, i).second) throw error(nodes[i], "its id is used by another node too");
  }
  deps_.resize(nodes.size());
  std::vector<std::vector<std::size_t>> users(nodes.size());
  std::vector<std::size_t> waiting(nodes.size(), 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const auto* list : {&nodes[i].data_deps, &nodes[i].ctrl_deps}) {
      for (const std::uint64_t d : *list) {
        const auto found = index.find(d);
        if (found == index.end()) throw error(nodes[i], fmt::format("depends on node {}, which no node has", d));
        if (nodes[found->second].kind == NodeKind::metadata) continue;
        deps_[i].push_back(found->second);
        users[found->second].push_back(i);
        ++waiting[i];
      }
    }
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::size_t walked = 0;
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    ++walked;
    if (nodes[i].kind != NodeKind::metadata) order_.push_back(i);
    for (const std::size_t u : users[i]) {
      if (--waiting[u] == 0) ready.push(u);
    }
  }
  if (walked < nodes.size()) {
    // The first node in file order still waiting is on a cycle or behind one.
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (waiting[i] > 0) throw error(nodes[i], "is on a dependency cycle (or depends on one): it can never start");
    }
  }
}

}  // namespace syncsim::chakra
