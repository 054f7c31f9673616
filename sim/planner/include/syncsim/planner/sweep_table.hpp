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
// Rows are kept in point order, and writing is deterministic: two sweeps of the same points give identical
// bytes however they were run (threads, MPI ranks, resumed).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "syncsim/training/training_report.hpp"

namespace syncsim::planner {

enum class TableFormat { csv, json };

// From the output's extension (.csv or .json); throws InputError at `-o` otherwise.
TableFormat table_format_of(const std::filesystem::path& path);

// The metric columns after the varied keys, in order.
const std::vector<std::string>& report_columns();

// One row's metric cells (report_columns() order): strings, numbers, booleans or null.
std::vector<nlohmann::ordered_json> report_cells(const TrainingReport& report);

struct SweepTable {
  std::vector<std::string> columns;  // varied keys, then report_columns()
  // Rows by point index; a point not run yet has none.
  std::map<std::size_t, std::vector<nlohmann::ordered_json>> rows;
};

std::string write_csv(const SweepTable& table);
std::string write_json(const SweepTable& table);
std::string write_table(const SweepTable& table, TableFormat format);

// A previous output of the same sweep, for resuming: its rows as column -> cell. Throws InputError naming the file
// (and the line for CSV) when it is malformed or its columns are not `columns`.
std::vector<std::vector<nlohmann::ordered_json>> read_table(const std::filesystem::path& path, TableFormat format,
                                                            const std::vector<std::string>& columns);

// A cell as CSV text: strings as they are, numbers as JSON prints them, null as nothing.
std::string cell_text(const nlohmann::ordered_json& cell);

}  // namespace syncsim::planner
