#include "syncsim/planner/sweep_table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"

namespace syncsim::planner {

namespace {

using Json = nlohmann::ordered_json;

// Column name -> where its value sits in to_json(TrainingReport). Scalars only: lists (buckets, per-worker times)
// are summarized by the columns after this table.
// What a cell of a column holds; resuming refuses a cell of another type (`samples_per_s: NOT_A_NUMBER`). Any
// column may be empty (null): a metric a run does not have.
enum class CellKind {
  text,
  number,   // finite
  integer,  // whole
  boolean,
  label,  // a varied key's value, as the user wrote it: any scalar
};

struct JsonColumn {
  const char* name;
  const char* pointer;
  CellKind kind;
};
constexpr JsonColumn kJsonColumns[] = {
    {"scenario", "/scenario", CellKind::text},
    {"strategy", "/strategy", CellKind::text},
    {"communication", "/communication", CellKind::text},
    {"algorithm", "/algorithm", CellKind::text},
    {"latency_model", "/latency_model", CellKind::text},
    {"workers", "/workers", CellKind::integer},
    {"gpu", "/gpu", CellKind::text},
    {"model", "/model", CellKind::text},
    {"params", "/params", CellKind::integer},
    {"precision", "/precision", CellKind::text},
    {"batch_per_gpu", "/batch_per_gpu", CellKind::integer},
    {"micro_batches", "/micro_batches", CellKind::integer},
    {"global_batch", "/global_batch", CellKind::integer},
    {"iterations", "/iterations", CellKind::integer},
    {"overlap", "/overlap", CellKind::boolean},
    {"total_us", "/total_us", CellKind::number},
    {"iteration_mean_us", "/iteration_time_us/mean", CellKind::number},
    {"iteration_p50_us", "/iteration_time_us/p50", CellKind::number},
    {"iteration_p99_us", "/iteration_time_us/p99", CellKind::number},
    {"samples_per_s", "/samples_per_s", CellKind::number},
    // With a calibration: the iteration with every collective at its error band's low and high edge (empty without)
    {"iteration_band_low_us", "/calibration_band/iteration_time_us/low", CellKind::number},
    {"iteration_band_high_us", "/calibration_band/iteration_time_us/high", CellKind::number},
    {"single_gpu_iteration_us", "/single_gpu_iteration_us", CellKind::number},
    {"single_gpu_samples_per_s", "/single_gpu_samples_per_s", CellKind::number},
    {"scaling_efficiency", "/scaling_efficiency", CellKind::number},
    {"layout", "/layout", CellKind::text},  // in words, by layout_label
    {"mfu", "/utilization/model_flops_utilization", CellKind::number},
    {"tokens_per_s_per_gpu", "/utilization/tokens_per_s_per_gpu", CellKind::number},  // empty without tokens
    {"compute_share", "/shares/compute", CellKind::number},
    {"optimizer_share", "/shares/optimizer", CellKind::number},
    {"exposed_communication_share", "/shares/exposed_communication", CellKind::number},
    {"idle_share", "/shares/idle", CellKind::number},
    {"framework_overhead_share", "/shares/framework_overhead", CellKind::number},
    {"overlap_interference_share", "/shares/overlap_interference", CellKind::number},
    {"recompute_share", "/shares/recompute", CellKind::number},
    {"pipeline_bubble_share", "/shares/pipeline_bubble", CellKind::number},
    {"exposed_tensor_share", "/shares/exposed_tensor", CellKind::number},
    {"exposed_context_share", "/shares/exposed_context", CellKind::number},
    {"exposed_pipeline_share", "/shares/exposed_pipeline", CellKind::number},
    {"exposed_data_share", "/shares/exposed_data", CellKind::number},
    {"exposed_expert_share", "/shares/exposed_expert", CellKind::number},
    {"staleness_mean", "/staleness/mean", CellKind::number},
    {"staleness_max", "/staleness/max", CellKind::number},
    {"lost_work_us", "/lost_work_us", CellKind::number},
    {"downtime_us", "/downtime_us", CellKind::number},
    {"bottleneck", "/bottleneck/bound", CellKind::text},
    {"bottleneck_resource", "/bottleneck/resource", CellKind::text},
    {"bottleneck_link_class", "/bottleneck/link_class", CellKind::text},
    {"bottleneck_compute_share", "/bottleneck/compute_share", CellKind::number},
    {"bottleneck_communication_share", "/bottleneck/communication_share", CellKind::number},
    {"bottleneck_straggler_share", "/bottleneck/straggler_share", CellKind::number},
    {"busiest_link", "/busiest_links/0/from", CellKind::text},  // completed below with "/to"
    {"busiest_link_class", "/busiest_links/0/class", CellKind::text},
    {"busiest_link_utilization", "/busiest_links/0/utilization", CellKind::number},
    {"bucket_cap_bytes", "/bucket_cap_bytes", CellKind::integer},
    {"memory_fits", "/memory/fits", CellKind::boolean},
    {"memory_total_bytes", "/memory/total_bytes", CellKind::integer},
    {"memory_capacity_bytes", "/memory/capacity_bytes", CellKind::integer},
    {"time_to_target_us", "/convergence/time_to_target_us", CellKind::number},  // empty without convergence
    {"updates_to_target", "/convergence/updates_to_target", CellKind::integer},
    {"final_loss", "/convergence/final_loss", CellKind::number},
    {"final_accuracy", "/convergence/final_accuracy", CellKind::number},
};
constexpr const char* kCountColumns[] = {"faults", "buckets"};

// The last column of a CSV output and the first key of a JSON one (sweep.hpp, sweep_fingerprint).
constexpr const char* kFingerprintColumn = "sweep_fingerprint";

CellKind kind_of(const std::string& column) {
  for (const JsonColumn& c : kJsonColumns) {
    if (column == c.name) return c.kind;
  }
  for (const char* c : kCountColumns) {
    if (column == c) return CellKind::integer;
  }
  return CellKind::label;
}

const char* kind_name(CellKind kind) {
  switch (kind) {
    case CellKind::text:
      return "text";
    case CellKind::number:
      return "a finite number";
    case CellKind::integer:
      return "a whole number";
    case CellKind::boolean:
      return "true or false";
    case CellKind::label:
      break;
  }
  return "a value";
}

// A JSON cell of the right type for its column (null is always allowed).
bool cell_fits(const Json& cell, CellKind kind) {
  if (cell.is_null()) return true;
  switch (kind) {
    case CellKind::text:
      return cell.is_string();
    case CellKind::number:
      return cell.is_number() && std::isfinite(cell.get<double>());
    case CellKind::integer:
      return cell.is_number_integer();
    case CellKind::boolean:
      return cell.is_boolean();
    case CellKind::label:
      return cell.is_primitive();
  }
  return false;
}

// A CSV cell (text) that reads as its column's type: what a JSON number, integer or boolean prints as.
bool text_fits(const std::string& text, CellKind kind) {
  if (text.empty() || kind == CellKind::text || kind == CellKind::label) return true;
  if (kind == CellKind::boolean) return text == "true" || text == "false";
  const Json parsed = Json::parse(text, nullptr, false);
  return !parsed.is_discarded() && cell_fits(parsed, kind);
}

InputError bad_cell(const std::string& column, const std::string& got, CellKind kind, SourceLocation where) {
  return InputError(fmt::format("expected {} in this column, got {}: the file was edited, or is not a sweep output "
                                "(delete it, or choose another -o, to start again)",
                                kind_name(kind), got),
                    std::move(where), column);
}

std::string quoted_cell(const Json& cell) {
  std::string text = cell.is_string() ? fmt::format("'{}'", cell.get<std::string>()) : json_value_text(cell);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

std::vector<std::string> make_columns() {
  std::vector<std::string> out;
  for (const JsonColumn& c : kJsonColumns) out.emplace_back(c.name);
  for (const char* c : kCountColumns) out.emplace_back(c);
  return out;
}

std::string csv_quote(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// RFC 4180 records; a quoted cell may hold commas, quotes and newlines.
// Each record with the line it starts on (for messages; a quoted cell may span lines).
struct CsvRecord {
  std::vector<std::string> cells;
  int line;
};

std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& file, int first_line) {
  std::vector<CsvRecord> records;
  std::vector<std::string> record;
  std::string cell;
  bool quoted = false;
  bool cell_was_quoted = false;
  int line = first_line;
  int record_line = first_line;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
    } else if (c == '"' && cell.empty() && !cell_was_quoted) {
      quoted = cell_was_quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(cell));
      cell.clear();
      cell_was_quoted = false;
    } else if (c == '\n') {
      record.push_back(std::move(cell));
      records.push_back({std::move(record), record_line});
      record.clear();
      cell.clear();
      cell_was_quoted = false;
      record_line = ++line;
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (quoted) throw InputError("a quoted cell is never closed", SourceLocation{file, line, 0});
  if (!cell.empty() || !record.empty()) {
    record.push_back(std::move(cell));
    records.push_back({std::move(record), record_line});
  }
  return records;
}

InputError columns_mismatch(const std::string& file, int line) {
  return InputError(
      "this file holds another sweep's columns: resuming needs the same --vary keys (or choose another -o)",
      SourceLocation{file, line, 0});
}

// A fingerprint as sweep_fingerprint writes it: 16 lowercase hex digits.
bool is_fingerprint(std::string_view text) {
  return text.size() == 16 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// The fingerprint cell of one row: 16 hex digits, the same on every row.
void read_fingerprint_cell(const std::string& cell, TableFile& out, const std::string& file, int line) {
  if (!is_fingerprint(cell)) {
    throw InputError(fmt::format("expected 16 hex digits, got {}", quoted_cell(Json(cell))),
                     SourceLocation{file, line, 0}, kFingerprintColumn);
  }
  if (out.fingerprint && *out.fingerprint != cell) {
    throw InputError(fmt::format("rows of two sweeps in one file ({} above, {} here): the file was edited (delete it, "
                                 "or choose another -o, to start again)",
                                 *out.fingerprint, cell),
                     SourceLocation{file, line, 0}, kFingerprintColumn);
  }
  out.fingerprint = cell;
}

TableFile parse_csv_table(std::string_view text, const std::string& file, const std::vector<std::string>& columns) {
  TableFile out;
  const auto records = parse_csv(text, file, 1);
  if (records.empty()) return out;
  // The header is the sweep's columns, then the fingerprint's when the file was written with one.
  std::vector<std::string> header = records.front().cells;
  const bool fingerprinted = !header.empty() && header.back() == kFingerprintColumn;
  if (fingerprinted) header.pop_back();
  if (header != columns) throw columns_mismatch(file, records.front().line);
  for (std::size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    const std::size_t cells = columns.size() + (fingerprinted ? 1 : 0);
    if (record.cells.size() != cells) {
      throw InputError(fmt::format("expected {} cells, got {}", cells, record.cells.size()),
                       SourceLocation{file, record.line, 0});
    }
    if (fingerprinted) read_fingerprint_cell(record.cells.back(), out, file, record.line);
    // Cells stay text: written back, text prints exactly as the number it came from did.
    std::vector<Json> row;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string& cell = record.cells[c];
      if (!text_fits(cell, kind_of(columns[c]))) {
        throw bad_cell(columns[c], quoted_cell(Json(cell)), kind_of(columns[c]), SourceLocation{file, record.line, 0});
      }
      row.emplace_back(cell.empty() ? Json(nullptr) : Json(cell));
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

TableFile parse_json_table(std::string_view text, const std::string& file, const std::vector<std::string>& columns) {
  TableFile out;
  check_json_nesting(text, file);
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {
    throw InputError(fmt::format("not JSON: {}", e.what()), SourceLocation{file, 0, 0});
  }
  const Json* rows = &j;
  if (j.is_object()) {
    // {"sweep_fingerprint": "...", "rows": [...]}: what a sweep writes with -o.
    if (j.size() != 2 || !j.contains(kFingerprintColumn) || !j.contains("rows")) {
      throw InputError(
          fmt::format("expected an object of \"{}\" and \"rows\" (or an array of rows)", kFingerprintColumn),
          SourceLocation{file, 0, 0});
    }
    const Json& fingerprint = j.at(kFingerprintColumn);
    if (!fingerprint.is_string() || !is_fingerprint(fingerprint.get<std::string>())) {
      throw InputError("expected 16 hex digits", SourceLocation{file, 0, 0}, kFingerprintColumn);
    }
    out.fingerprint = fingerprint.get<std::string>();
    rows = &j.at("rows");
  }
  if (!rows->is_array()) throw InputError("expected a JSON array of rows", SourceLocation{file, 0, 0});
  for (const Json& object : *rows) {
    if (!object.is_object() || object.size() != columns.size()) throw columns_mismatch(file, 0);
    std::vector<Json> row;
    std::size_t c = 0;
    for (const auto& [key, value] : object.items()) {
      if (key != columns[c]) throw columns_mismatch(file, 0);
      if (!cell_fits(value, kind_of(key))) {
        throw bad_cell(fmt::format("rows[{}].{}", out.rows.size(), key), quoted_cell(value), kind_of(key),
                       SourceLocation{file, 0, 0});
      }
      ++c;
      row.push_back(value);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace

TableFormat table_format_of(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".csv") return TableFormat::csv;
  if (ext == ".json") return TableFormat::json;
  throw InputError(fmt::format("'{}': expected a .csv or .json file name", path.string()), SourceLocation{"-o"});
}

const std::vector<std::string>& report_columns() {
  static const std::vector<std::string> columns = make_columns();
  return columns;
}

std::vector<Json> report_cells(const TrainingReport& report) {
  const Json j = to_json(report);
  std::vector<Json> out;
  for (const JsonColumn& c : kJsonColumns) {
    const Json::json_pointer pointer(c.pointer);
    Json cell = j.contains(pointer) ? j.at(pointer) : Json(nullptr);
    if (std::string_view(c.name) == "busiest_link" && !cell.is_null()) {
      cell = fmt::format("{} -> {}", cell.get<std::string>(),
                         j.at(Json::json_pointer("/busiest_links/0/to")).get<std::string>());
    }
    if (std::string_view(c.name) == "layout") {
      const std::string label = layout_label(report);
      cell = label.empty() ? Json(nullptr) : Json(label);
    }
    out.push_back(std::move(cell));
  }
  out.emplace_back(report.faults.size());
  out.emplace_back(report.buckets.size());
  return out;
}

std::string layout_label(const TrainingReport& report) {
  if (!report.layout) return report.communication == "allreduce" ? fmt::format("DP{}", report.workers) : "";
  const LayoutReport& l = *report.layout;
  std::string out = fmt::format("TP{}", l.tensor);
  if (l.context > 1) out += fmt::format(" CP{}", l.context);
  out += fmt::format(" PP{}", l.pipeline);
  if (l.virtual_stages > 1) out += fmt::format(" VPP{}", l.virtual_stages);
  out += fmt::format(" DP{}", l.data);
  if (l.expert > 1) out += fmt::format(" EP{}", l.expert);
  if (!l.sharding.empty() && l.sharding != "none") out += " " + l.sharding;
  return out;
}

std::string cell_text(const Json& cell) {
  if (cell.is_null()) return {};
  if (cell.is_string()) return cell.get<std::string>();
  return cell.dump();
}

std::string write_csv(const SweepTable& table) {
  std::string out;
  // The fingerprint, when there is one, is the last column: a cell of every row, so that a plain CSV reader
  // (pandas.read_csv) reads the file as it is.
  const std::string fingerprint_cell = table.fingerprint.empty() ? "" : "," + table.fingerprint;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (c > 0) out += ',';
    out += csv_quote(table.columns[c]);
  }
  out += table.fingerprint.empty() ? "\n" : fmt::format(",{}\n", kFingerprintColumn);
  for (const auto& [index, row] : table.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += ',';
      out += csv_quote(cell_text(row[c]));
    }
    out += fingerprint_cell + '\n';
  }
  return out;
}

std::string write_json(const SweepTable& table) {
  Json out = Json::array();
  for (const auto& [index, row] : table.rows) {
    Json object = Json::object();
    for (std::size_t c = 0; c < row.size(); ++c) object[table.columns[c]] = row[c];
    out.push_back(std::move(object));
  }
  if (table.fingerprint.empty()) return out.dump(2) + "\n";
  Json document = Json::object();
  document[kFingerprintColumn] = table.fingerprint;
  document["rows"] = std::move(out);
  return document.dump(2) + "\n";
}

std::string write_table(const SweepTable& table, TableFormat format) {
  return format == TableFormat::csv ? write_csv(table) : write_json(table);
}

TableFile parse_table(std::string_view text, const std::string& file, TableFormat format,
                      const std::vector<std::string>& columns) {
  return format == TableFormat::csv ? parse_csv_table(text, file, columns) : parse_json_table(text, file, columns);
}

std::vector<std::vector<Json>> read_table(const std::filesystem::path& path, TableFormat format,
                                          const std::vector<std::string>& columns, const std::string& fingerprint) {
  const std::string file = path.string();
  return resumable_rows(parse_table(read_input_file(path, "sweep output to resume"), file, format, columns), file,
                        fingerprint);
}

std::vector<std::vector<Json>> resumable_rows(TableFile table, const std::string& file,
                                              const std::string& fingerprint) {
  if (table.rows.empty() && !table.fingerprint) return {};  // empty, or a header alone: nothing to keep
  if (!table.fingerprint) {
    throw InputError(
        "no sweep fingerprint: written by an older syncsim (or redirected from stdout), so resuming cannot tell "
        "whether its rows belong to this scenario; delete it, or choose another -o, to start again",
        SourceLocation{file, 1, 0});
  }
  if (*table.fingerprint != fingerprint) {
    throw InputError(fmt::format("holds the rows of another sweep (fingerprint {}, this sweep's is {}): the scenario "
                                 "or the --vary keys changed since; delete it, or choose another -o, to start again",
                                 *table.fingerprint, fingerprint),
                     SourceLocation{file, 1, 0});
  }
  return std::move(table.rows);
}

}  // namespace syncsim::planner
