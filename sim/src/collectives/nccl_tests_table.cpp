#include "syncsim/collectives/nccl_tests_table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

namespace syncsim {

namespace {
constexpr std::int64_t kFloatBytes = 4;

// nccl-tests prints times with two decimals, and with one from 10 ms up so the column keeps its width.
std::string time_column(SimTime t) {
  const double us = t.us();
  return us >= 10000.0 ? fmt::format("{:7.1f}", us) : fmt::format("{:7.2f}", us);
}
}  // namespace

CollectiveRow make_row(CollectiveOp op, std::size_t ranks, Bytes requested, int root) {
  CollectiveRow row;
  const auto n = static_cast<std::int64_t>(ranks);
  const bool per_rank = op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather;
  const std::int64_t unit = per_rank ? n * kFloatBytes : kFloatBytes;
  row.size = Bytes{requested.value / unit * unit};
  row.count = per_rank ? row.size.value / kFloatBytes / n : row.size.value / kFloatBytes;
  row.redop = (op == CollectiveOp::broadcast || op == CollectiveOp::all_gather) ? "none" : "sum";
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
  const std::string cells = fmt::format("  {}  {:6.2f}  {:6.2f}  {:>5}", time_column(row.time),
                                        row.bandwidth.algbw.gb_per_s(), row.bandwidth.busbw.gb_per_s(), "N/A");
  fmt::print(out, "{:12}  {:12}  {:>8}  {:>6}  {:6}{}{}\n", row.size.value, row.count, row.type, row.redop, row.root,
             cells, cells);
}

void print_nccl_tests_footer(std::ostream& out, const std::vector<CollectiveRow>& rows) {
  double sum = 0;
  for (const auto& row : rows) sum += row.bandwidth.busbw.gb_per_s();
  fmt::print(out, "# Avg bus bandwidth    : {:g} \n#\n", rows.empty() ? 0.0 : sum / static_cast<double>(rows.size()));
}

}  // namespace syncsim
