#include "nccl_tests_checks.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

bool has_root(CollectiveOp op) {
  return op == CollectiveOp::broadcast || op == CollectiveOp::reduce;
}

// The largest `error` (older logs' deviation) that is still float rounding, not a wrong result.
constexpr double kLegacyErrorTolerance = 1e-3;
// Rows this slow print algbw with too few digits for a bus-factor check.
constexpr double kMinCheckedAlgbwGbps = 0.5;
// nccl-tests prints bandwidths with two decimals.
constexpr double kPrintRounding = 0.005;

}  // namespace

std::optional<CollectiveOp> collective_from_test_name(std::string_view name) {
  for (const CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                                CollectiveOp::broadcast, CollectiveOp::reduce, CollectiveOp::alltoall}) {
    if (name == nccl_tests_name(op)) return op;
  }
  return std::nullopt;
}

std::optional<CollectiveOp> collective_from_file_name(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  // Compare without case and separators: all_reduce_perf, all-reduce, AllReduce and allreduce are one name.
  std::string name;
  for (const char c : path) {
    if (c != '_' && c != '-') name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  constexpr std::array<std::pair<std::string_view, CollectiveOp>, 7> kPatterns{{
      {"alltoall", CollectiveOp::alltoall},
      {"reducescatter", CollectiveOp::reduce_scatter},
      {"allgather", CollectiveOp::all_gather},
      {"allreduce", CollectiveOp::allreduce},
      {"broadcast", CollectiveOp::broadcast},
      {"bcast", CollectiveOp::broadcast},
      {"reduce", CollectiveOp::reduce},  // after allreduce and reducescatter, which contain it
  }};
  for (const auto& [pattern, op] : kPatterns) {
    if (name.find(pattern) != std::string::npos) return op;
  }
  return std::nullopt;
}

std::optional<int> nccl_tests_type_bytes(std::string_view type) {
  constexpr std::array<std::pair<std::string_view, int>, 16> kTypes{{
      {"int8", 1},
      {"char", 1},
      {"uint8", 1},
      {"f8e4m3", 1},
      {"f8e5m2", 1},
      {"half", 2},
      {"float16", 2},
      {"bfloat16", 2},
      {"int32", 4},
      {"int", 4},
      {"uint32", 4},
      {"float", 4},
      {"float32", 4},
      {"int64", 8},
      {"uint64", 8},
      {"double", 8},
  }};
  for (const auto& [name, bytes] : kTypes) {
    if (name == type) return bytes;
  }
  return std::nullopt;
}

namespace nccl_tests_detail {

namespace {

// What the first informative row says: the per-rank collectives print count per rank and size for all ranks.
std::optional<CollectiveOp> infer_collective(const NcclTestsLog& log) {
  for (const NcclTestsRow& row : log.rows) {
    const std::optional<int> element = nccl_tests_type_bytes(row.type);
    if (!element || row.count == 0) continue;
    const std::int64_t whole = row.count * *element;
    const bool rooted = row.root && *row.root >= 0;
    const bool no_redop = row.redop == "none";
    if (row.size_bytes == whole) {
      if (rooted) return no_redop ? CollectiveOp::broadcast : CollectiveOp::reduce;
      if (!no_redop) return CollectiveOp::allreduce;
      if (log.ranks == 1) return CollectiveOp::all_gather;
      return std::nullopt;  // redop none without a root: a broadcast from a log without root column?
    }
    if (log.ranks > 1 && row.size_bytes == whole * log.ranks && !rooted) {
      return no_redop ? CollectiveOp::all_gather : CollectiveOp::reduce_scatter;
    }
    return std::nullopt;  // check_rows says what is wrong with it
  }
  return std::nullopt;
}

}  // namespace

CollectiveOp decide_collective(NcclTestsLog& log, std::optional<CollectiveOp> chosen, std::optional<CollectiveOp> named,
                               const LineRef& table) {
  if (chosen) return *chosen;
  if (named) return *named;
  std::optional<CollectiveOp> inferred = infer_collective(log);
  const std::optional<CollectiveOp> hinted = collective_from_file_name(log.source);
  // AllToAll's rows are AllGather's (count per peer, size for all ranks, redop none, no root): only a name tells.
  if (inferred == CollectiveOp::all_gather && hinted == CollectiveOp::alltoall) inferred = hinted;
  if (inferred && hinted && *inferred != *hinted) {
    log.warnings.push_back(fmt::format("the file name suggests {} but the rows are those of {}: read as {}",
                                       to_string(*hinted), to_string(*inferred), to_string(*inferred)));
  }
  if (inferred) return *inferred;
  if (hinted) return *hinted;
  table.fail(0, "collective",
             "cannot tell which collective the table measured: no '# Collective test starting' line, no collective "
             "in the file name (all_reduce_perf, all_gather, ...), and the rows do not show it");
}

void check_rows(const NcclTestsLog& log) {
  const CollectiveOp op = log.collective;
  for (const NcclTestsRow& row : log.rows) {
    const LineRef where{&log.source, row.line};
    if (const std::optional<int> element = nccl_tests_type_bytes(row.type)) {
      const std::int64_t ranks = count_is_per_rank(op) ? log.ranks : 1;
      if (row.size_bytes != row.count * *element * ranks) {
        where.fail(0, "size",
                   count_is_per_rank(op)
                       ? fmt::format("size {} is not count {} x {} bytes ({}) x {} ranks, as {} prints it",
                                     row.size_bytes, row.count, *element, row.type, ranks, nccl_tests_name(op))
                       : fmt::format("size {} is not count {} x {} bytes ({}), as {} prints it", row.size_bytes,
                                     row.count, *element, row.type, nccl_tests_name(op)));
      }
    }
    if (!row.root) continue;
    if (has_root(op) && (*row.root < 0 || *row.root >= log.ranks)) {
      where.fail(0, "root", fmt::format("root {} is not a rank of the {} ranks", *row.root, log.ranks));
    }
    if (!has_root(op) && *row.root != -1) {
      where.fail(0, "root", fmt::format("root {} where {} has none (-1)", *row.root, to_string(op)));
    }
  }
}

void remove_duplicates(NcclTestsLog& log) {
  std::map<std::tuple<std::int64_t, std::int64_t, std::string, std::string, int>, int> seen;
  std::vector<NcclTestsRow> kept;
  for (NcclTestsRow& row : log.rows) {
    const auto [first, inserted] =
        seen.try_emplace({row.size_bytes, row.count, row.type, row.redop, row.root.value_or(-2)}, row.line);
    if (inserted) {
      kept.push_back(std::move(row));
    } else {
      log.warnings.push_back(fmt::format("line {} repeats size {} ({} {}) of line {}: kept line {}, dropped line {}",
                                         row.line, row.size_bytes, row.type, row.redop, first->second, first->second,
                                         row.line));
    }
  }
  log.rows = std::move(kept);
}

void check_results(NcclTestsLog& log) {
  const double tolerance = log.layout == NcclTestsLayout::with_root ? 0.0 : kLegacyErrorTolerance;
  int wrong_rows = 0;
  int first_wrong = 0;
  const double factor = bus_factor(log.collective, static_cast<std::size_t>(log.ranks));
  std::optional<std::string> busbw_mismatch;
  for (const NcclTestsRow& row : log.rows) {
    bool wrong = false;
    for (const NcclTestsPlacement* p : {&row.out_of_place, &row.in_place}) {
      wrong = wrong || p->wrong.value_or(0.0) > tolerance;
      const double expected = p->algbw_gbps * factor;
      if (!busbw_mismatch && p->algbw_gbps >= kMinCheckedAlgbwGbps &&
          std::abs(p->busbw_gbps - expected) > kPrintRounding * (1 + factor) + 1e-9) {
        busbw_mismatch = fmt::format(
            "busbw / algbw is {:.3f} at line {}, not the {:.3f} of {} over {} ranks: is the rank count right?",
            p->busbw_gbps / p->algbw_gbps, row.line, factor, to_string(log.collective), log.ranks);
      }
    }
    if (wrong && wrong_rows++ == 0) first_wrong = row.line;
  }
  if (wrong_rows > 0) {
    log.warnings.push_back(
        fmt::format("{} row(s) report wrong results, the first at line {}: their times may not be trustworthy",
                    wrong_rows, first_wrong));
  }
  if (log.out_of_bounds.value_or(0) > 0) {
    log.warnings.push_back(fmt::format("the footer reports {} out-of-bounds values (FAILED)", *log.out_of_bounds));
  }
  if (busbw_mismatch) log.warnings.push_back(*busbw_mismatch);
}

}  // namespace nccl_tests_detail
}  // namespace syncsim
