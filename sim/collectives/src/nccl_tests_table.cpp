#include "syncsim/collectives/nccl_tests_table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

namespace syncsim {

namespace {
constexpr std::int64_t kFloatBytes = 4;
constexpr std::int64_t kAllToAllBlockBytes = 16;

// nccl-tests prints times with two decimals, one from 10 ms and none from 100 ms up, so the column keeps its width.
std::string time_column(SimTime t) {
  const double us = t.us();
  if (us >= 100000.0) return fmt::format("{:7.0f}", us);
  return us >= 10000.0 ? fmt::format("{:7.1f}", us) : fmt::format("{:7.2f}", us);
}

std::string placement_cells(SimTime time, const BusBandwidth& bandwidth, std::string_view wrong) {
  return fmt::format("  {}  {:6.2f}  {:6.2f}  {:>5}", time_column(time), bandwidth.algbw.gb_per_s(),
                     bandwidth.busbw.gb_per_s(), wrong);
}

void print_row_cells(std::ostream& out, const CollectiveRow& row, const std::string& out_of_place,
                     const std::string& in_place) {
  fmt::print(out, "{:12}  {:12}  {:>8}  {:>6}  {:6}{}{}\n", row.size.value, row.count, row.type, row.redop, row.root,
             out_of_place, in_place);
}
}  // namespace

CollectiveRow make_row(CollectiveOp op, std::size_t ranks, Bytes requested, int root) {
  CollectiveRow row;
  const auto n = static_cast<std::int64_t>(ranks);
  const bool per_rank = count_is_per_rank(op);
  // nccl-tests' alltoall rounds each peer's block down to 16 bytes (AlltoAllGetCollByteCount, src/alltoall.cu).
  const std::int64_t element_unit = op == CollectiveOp::alltoall ? kAllToAllBlockBytes : kFloatBytes;
  const std::int64_t unit = per_rank ? n * element_unit : element_unit;
  row.size = Bytes{requested.value / unit * unit};
  row.count = per_rank ? row.size.value / kFloatBytes / n : row.size.value / kFloatBytes;
  const bool no_redop = op == CollectiveOp::broadcast || op == CollectiveOp::all_gather || op == CollectiveOp::alltoall;
  row.redop = no_redop ? "none" : "sum";
  row.root = (op == CollectiveOp::broadcast || op == CollectiveOp::reduce) ? root : -1;
  return row;
}

void print_nccl_tests_header(std::ostream& out) {
  out << "#                                                              out-of-place                       "
         "in-place          \n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)       \n";
}

void print_nccl_tests_row(std::ostream& out, const CollectiveRow& row) {
  // A simulation has one time for both placements and nothing to verify, so #wrong is N/A as with `-c 0`.
  const std::string cells = placement_cells(row.time, row.bandwidth, "N/A");
  print_row_cells(out, row, cells, cells);
}

void print_nccl_tests_row(std::ostream& out, const CollectiveRow& row, const MeasuredPlacement& out_of_place,
                          const MeasuredPlacement& in_place) {
  const auto cells = [](const MeasuredPlacement& p) {
    return placement_cells(p.time, p.bandwidth, p.wrong ? fmt::format("{}", *p.wrong) : std::string("N/A"));
  };
  print_row_cells(out, row, cells(out_of_place), cells(in_place));
}

void print_nccl_tests_footer(std::ostream& out, const std::vector<CollectiveRow>& rows) {
  double sum = 0;
  for (const auto& row : rows) sum += row.bandwidth.busbw.gb_per_s();
  fmt::print(out, "# Avg bus bandwidth    : {:g} \n#\n", rows.empty() ? 0.0 : sum / static_cast<double>(rows.size()));
}

void print_nccl_tests_footer(std::ostream& out, std::int64_t out_of_bounds, double avg_busbw_gbps) {
  fmt::print(out, "# Out of bounds values : {} {}\n", out_of_bounds, out_of_bounds == 0 ? "OK" : "FAILED");
  fmt::print(out, "# Avg bus bandwidth    : {:g} \n#\n", avg_busbw_gbps);
}

}  // namespace syncsim
