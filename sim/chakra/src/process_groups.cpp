// Process groups as PyTorch's execution trace records them (process_groups.hpp).
#include "syncsim/chakra/process_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>

#include "syncsim/core/input_error.hpp"

namespace syncsim::chakra {

namespace {

InputError node_error(const ExecutionNode& n, const std::string& what, const std::string& source) {
  return InputError(fmt::format("node {} ('{}', {}): {}", n.id, n.name, to_string(n.kind), what),
                    SourceLocation{source, 0, 0});
}

std::vector<std::int64_t> every_rank(std::int64_t world) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(std::max<std::int64_t>(world, 0)));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  return all;
}

}  // namespace

ExecutionNode process_group_node(std::uint64_t id, const std::vector<ProcessGroup>& groups) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ProcessGroup& g : groups) {
    list.push_back({{"pg_name", g.name},
                    {"pg_desc", g.desc},
                    {"backend_config", "cuda:nccl"},
                    {"pg_size", g.ranks.size()},
                    {"ranks", g.ranks}});
  }
  ExecutionNode n;
  n.id = id;
  n.name = kProcessGroupNodeName;
  n.kind = NodeKind::metadata;
  n.is_cpu_op = true;
  // Python's str() of the one-element list PyTorch records: the JSON text between [' and '].
  n.inputs_values = "['" + list.dump() + "']";
  return n;
}

std::map<std::string, ProcessGroup> process_groups(const ExecutionTrace& trace, const std::string& source) {
  std::map<std::string, ProcessGroup> out;
  for (const ExecutionNode& n : trace.nodes) {
    if (n.kind != NodeKind::metadata || n.inputs_values.empty()) continue;
    std::string_view text = n.inputs_values;
    if (text.starts_with("['") && text.ends_with("']")) text = text.substr(2, text.size() - 4);
    try {
      const nlohmann::json list = nlohmann::json::parse(text);
      if (!list.is_array()) throw node_error(n, "its process groups are not a JSON list", source);
      for (const nlohmann::json& item : list) {
        if (!item.is_object() || !item.contains("pg_name")) {
          throw node_error(n, "a process group without pg_name", source);
        }
        ProcessGroup g;
        g.name = item.at("pg_name").get<std::string>();
        if (item.contains("pg_desc")) g.desc = item.at("pg_desc").get<std::string>();
        if (item.contains("ranks")) g.ranks = item.at("ranks").get<std::vector<std::int64_t>>();
        std::sort(g.ranks.begin(), g.ranks.end());
        // Ranks past the trace's own count are not checked: a foreign trace may not say how many ranks ran.
        if (!g.ranks.empty() && g.ranks.front() < 0) {
          throw node_error(n, fmt::format("process group '{}' lists rank {}", g.name, g.ranks.front()), source);
        }
        out[g.name] = std::move(g);
      }
    } catch (const nlohmann::json::exception& e) {
      throw node_error(n, fmt::format("its process groups are not the JSON PyTorch writes ({})", e.what()), source);
    }
  }
  return out;
}

std::int64_t world_size(const ExecutionTrace& trace, const std::map<std::string, ProcessGroup>& groups) {
  const auto found = groups.find("0");
  if (found != groups.end() && !found->second.ranks.empty()) {
    return std::max<std::int64_t>(trace.ranks, found->second.ranks.back() + 1);
  }
  return trace.ranks;
}

std::vector<std::int64_t> group_ranks(const ExecutionNode& n, const std::map<std::string, ProcessGroup>& groups,
                                      std::int64_t world, const std::string& source) {
  if (!n.pg_name || n.pg_name->empty() || *n.pg_name == "0") {
    const bool all_dims = std::all_of(n.involved_dim.begin(), n.involved_dim.end(), [](bool b) { return b; });
    if (!all_dims) {
      throw node_error(n,
                       "its involved_dim leaves out network dimensions and no pg_name says which ranks remain "
                       "(syncsim has no ASTRA-sim network dimensions: name the group in pg_name and a METADATA "
                       "node)",
                       source);
    }
    const auto found = groups.find("0");
    return found != groups.end() && !found->second.ranks.empty() ? found->second.ranks : every_rank(world);
  }
  const auto found = groups.find(*n.pg_name);
  if (found == groups.end()) {
    throw node_error(
        n, fmt::format("process group '{}' is described by no METADATA node ({})", *n.pg_name, kProcessGroupNodeName),
        source);
  }
  return found->second.ranks.empty() ? every_rank(world) : found->second.ranks;
}

}  // namespace syncsim::chakra
