#pragma once
// The table nccl-tests prints (size, count, type, redop, root, time, algbw, busbw, #wrong; out-of-place then
// in-place), so a simulated curve and a measured log can be compared line by line.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/collectives/collective_op.hpp"

namespace syncsim {

struct CollectiveRow {
  Bytes size;              // as nccl-tests prints it (see collective_op.hpp)
  std::int64_t count = 0;  // elements per rank parameter, as nccl-tests prints it
  std::string type = "float";
  std::string redop = "sum";
  int root = -1;
  SimTime time;
  BusBandwidth bandwidth;
};

// nccl-tests rounds each requested size down to whole elements (and, for ReduceScatter and AllGather, to a
// multiple of ranks * element size; for AllToAll to a multiple of ranks * 16 bytes); the row's size and count
// follow that rule.
CollectiveRow make_row(CollectiveOp op, std::size_t ranks, Bytes requested, int root);

void print_nccl_tests_header(std::ostream& out);
void print_nccl_tests_row(std::ostream& out, const CollectiveRow& row);
// "# Avg bus bandwidth    : 12.3456" over the rows, as nccl-tests ends its table.
void print_nccl_tests_footer(std::ostream& out, const std::vector<CollectiveRow>& rows);

// A measured placement (out-of-place or in-place): its own time and bandwidths, and the count of wrong elements
// the check found (nullopt prints N/A, as nccl-tests does with `-c 0`).
struct MeasuredPlacement {
  SimTime time;
  BusBandwidth bandwidth;
  std::optional<std::int64_t> wrong;
};
// A row whose two placements were measured separately (row.time and row.bandwidth are not used).
void print_nccl_tests_row(std::ostream& out, const CollectiveRow& row, const MeasuredPlacement& out_of_place,
                          const MeasuredPlacement& in_place);
// nccl-tests' own footer for measurements: "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 12.3456".
void print_nccl_tests_footer(std::ostream& out, std::int64_t out_of_bounds, double avg_busbw_gbps);

}  // namespace syncsim
