#pragma once
// Process groups in a Chakra execution trace, as PyTorch's execution-trace observer records them and Chakra's
// PyTorch converter keeps them: a METADATA_NODE named "## process_group:init ##" whose inputs.values is the Python
// text of a one-element list holding the groups as JSON,
//
//   ['[{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 8, "ranks": [0, ...]},
//      {"pg_name": "1", "pg_desc": "TENSOR_MODEL_PARALLEL_GROUP", ..., "ranks": [0, 1]}, ...]']
//
// and each communication node names its group by the `pg_name` attribute. ASTRA-sim's workload reader takes the
// groups from the same node (the text between the outer [' and ']), so no --comm-group-configuration is needed.
// Group "0" is PyTorch's default, every rank; a group whose ranks are empty is every rank too (ASTRA-sim's reading).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "syncsim/chakra/execution_trace.hpp"

namespace syncsim::chakra {

struct ProcessGroup {
  std::string name;                 // pg_name: a decimal number, as PyTorch names groups and ASTRA-sim reads them
  std::string desc;                 // pg_desc: what the group is for ("TENSOR_MODEL_PARALLEL_GROUP")
  std::vector<std::int64_t> ranks;  // increasing; empty: every rank
};

inline constexpr const char* kProcessGroupNodeName = "## process_group:init ##";

// The METADATA_NODE that describes `groups`.
ExecutionNode process_group_node(std::uint64_t id, const std::vector<ProcessGroup>& groups);

// The groups every METADATA_NODE of `trace` describes, by name; a node with another kind of content (no
// inputs.values) is skipped. Throws InputError at `source` naming the node (id and kind) when its text is not the
// JSON list above, or a group lacks pg_name or lists a negative rank.
std::map<std::string, ProcessGroup> process_groups(const ExecutionTrace& trace, const std::string& source);

// How many ranks ran: the trace's syncsim_ranks, or more when its default group "0" lists more (a foreign trace's
// metadata does not say).
std::int64_t world_size(const ExecutionTrace& trace, const std::map<std::string, ProcessGroup>& groups);

// The ranks collective node `n` runs on: its pg_name's group (every rank for none, "0" or an empty list).
// Throws InputError naming the node when the name is not among `groups`, or when involved_dim leaves out a
// network dimension and no pg_name says which ranks remain (syncsim has no ASTRA-sim network dimensions).
std::vector<std::int64_t> group_ranks(const ExecutionNode& n, const std::map<std::string, ProcessGroup>& groups,
                                      std::int64_t world, const std::string& source);

}  // namespace syncsim::chakra
