#pragma once
// Whole-table checks of the nccl-tests log reader, run once all lines are read: which collective the table
// measured, whether every row agrees with it, duplicate rows, and the results' own consistency.
#include <optional>

#include "nccl_tests_lines.hpp"
#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim::nccl_tests_detail {

// The caller's choice, else the `# Collective test starting:` line, else what the rows show (size = count x
// element, or count x element x ranks for the per-rank collectives; redop none; a root), else the file name.
CollectiveOp decide_collective(NcclTestsLog& log, std::optional<CollectiveOp> chosen, std::optional<CollectiveOp> named,
                               const LineRef& table);

// Every row's size agrees with its count and the collective; roots exist. Throws naming the row's line.
void check_rows(const NcclTestsLog& log);

// Rows repeating an earlier row's size, count, type, redop and root are dropped, the first kept, with a warning.
void remove_duplicates(NcclTestsLog& log);

// Warnings for wrong results (#wrong, out-of-bounds values) and for busbw that is not algbw x the bus factor of
// the log's rank count (a sign that the rank count or the collective is not what the table measured).
void check_results(NcclTestsLog& log);

}  // namespace syncsim::nccl_tests_detail
