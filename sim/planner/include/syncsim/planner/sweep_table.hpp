#pragma once
// SweepTable: a sweep's output, one row per point, and its CSV and JSON files.
//
// Columns: every varied key (the value as the user wrote it), then the report metrics of report_columns() — a
// fixed list, so every row of every sweep has the same shape whatever the strategy (a metric a run does not have,
// such as staleness under sync, is an empty CSV cell or JSON null). Numbers come from to_json(TrainingReport), so
// a sweep row and the run's report.json agree digit for digit.
//
//   CSV:  header line, then one line per point (RFC 4180 quoting where a cell needs it)
//   JSON: [{"cluster.workers": "16", "scenario": "...", "samples_per_s": 1771.2, ...}, ...]
//
// A table with a fingerprint (what `syncsim sweep -o` writes: sweep.hpp, sweep_fingerprint) carries it, so that
// resuming can tell whether the rows belong to this scenario and these --vary keys:
//
//   CSV:  a last column sweep_fingerprint, 0123456789abcdef on every row (a plain CSV: pandas.read_csv reads it
//         as it is; a comment line before the header would stop it)
//   JSON: {"sweep_fingerprint": "0123456789abcdef", "rows": [{...}, ...]}
//
// Rows are kept in point order, and writing is deterministic: two sweeps of the same points give identical
// bytes however they were run (threads, MPI ranks, resumed).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "syncsim/training/training_report.hpp"

namespace syncsim::planner {

enum class TableFormat { csv, json };

// From the output's extension (.csv or .json); throws InputError at `-o` otherwise.
TableFormat table_format_of(const std::filesystem::path& path);

// The metric columns after the varied keys, in order.
const std::vector<std::string>& report_columns();

// The layout a run trained on, in words: "TP8 PP16 DP64", with CP, VPP (virtual stages), EP and the sharding where
// they are used; "DP16" for a data-parallel run without a model-parallel layout; empty with parameter servers.
std::string layout_label(const TrainingReport& report);

// One row's metric cells (report_columns() order): strings, numbers, booleans or null.
std::vector<nlohmann::ordered_json> report_cells(const TrainingReport& report);

struct SweepTable {
  std::vector<std::string> columns;  // varied keys, then report_columns()
  // Rows by point index; a point not run yet has none.
  std::map<std::size_t, std::vector<nlohmann::ordered_json>> rows;
  std::string fingerprint;  // written when not empty (16 hex digits)
};

std::string write_csv(const SweepTable& table);
std::string write_json(const SweepTable& table);
std::string write_table(const SweepTable& table, TableFormat format);

// A sweep output's text, read back: its fingerprint if it has one, and its rows (cells in `columns` order; CSV
// cells stay text, so that they write back as the same bytes). Throws InputError naming the file (and the line for
// CSV, the column as the key) when it is malformed, its columns are not `columns`, or a cell is not of its
// column's type (a number column holding `NOT_A_NUMBER`; any cell may be empty).
struct TableFile {
  std::optional<std::string> fingerprint;
  std::vector<std::vector<nlohmann::ordered_json>> rows;
};
TableFile parse_table(std::string_view text, const std::string& file, TableFormat format,
                      const std::vector<std::string>& columns);

// A previous output of this sweep, for resuming: parse_table on the file, which must carry `fingerprint` (this
// sweep's). Throws InputError naming the file for a file without a fingerprint (an older syncsim's, or stdout
// redirected) or with another one (an edited scenario, other --vary keys), unless it holds no rows at all.
std::vector<std::vector<nlohmann::ordered_json>> read_table(const std::filesystem::path& path, TableFormat format,
                                                            const std::vector<std::string>& columns,
                                                            const std::string& fingerprint);
// read_table's check of a parsed file: its rows when it carries `fingerprint` (or holds no rows at all).
std::vector<std::vector<nlohmann::ordered_json>> resumable_rows(TableFile table, const std::string& file,
                                                                const std::string& fingerprint);

// A cell as CSV text: strings as they are, numbers as JSON prints them, null as nothing.
std::string cell_text(const nlohmann::ordered_json& cell);

}  // namespace syncsim::planner
