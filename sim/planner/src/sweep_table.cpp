#include "syncsim/planner/sweep_table.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "syncsim/core/input_error.hpp"

namespace syncsim::planner {

namespace {

using Json = nlohmann::ordered_json;

// Column name -> where its value sits in to_json(TrainingReport). Scalars only: lists (buckets, per-worker times)
// are summarized by the columns after this table.
struct JsonColumn {
  const char* name;
  const char* pointer;
};
constexpr JsonColumn kJsonColumns[] = {
    {"scenario", "/scenario"},
    {"strategy", "/strategy"},
    {"communication", "/communication"},
    {"algorithm", "/algorithm"},
    {"latency_model", "/latency_model"},
    {"workers", "/workers"},
    {"gpu", "/gpu"},
    {"model", "/model"},
    {"params", "/params"},
    {"precision", "/precision"},
    {"batch_per_gpu", "/batch_per_gpu"},
    {"micro_batches", "/micro_batches"},
    {"global_batch", "/global_batch"},
    {"iterations", "/iterations"},
    {"overlap", "/overlap"},
    {"total_us", "/total_us"},
    {"iteration_mean_us", "/iteration_time_us/mean"},
    {"iteration_p50_us", "/iteration_time_us/p50"},
    {"iteration_p99_us", "/iteration_time_us/p99"},
    {"samples_per_s", "/samples_per_s"},
    {"single_gpu_iteration_us", "/single_gpu_iteration_us"},
    {"single_gpu_samples_per_s", "/single_gpu_samples_per_s"},
    {"scaling_efficiency", "/scaling_efficiency"},
    {"compute_share", "/shares/compute"},
    {"optimizer_share", "/shares/optimizer"},
    {"exposed_communication_share", "/shares/exposed_communication"},
    {"idle_share", "/shares/idle"},
    {"staleness_mean", "/staleness/mean"},
    {"staleness_max", "/staleness/max"},
    {"lost_work_us", "/lost_work_us"},
    {"downtime_us", "/downtime_us"},
    {"bottleneck", "/bottleneck/bound"},
    {"bottleneck_resource", "/bottleneck/resource"},
    {"bottleneck_link_class", "/bottleneck/link_class"},
    {"bottleneck_compute_share", "/bottleneck/compute_share"},
    {"bottleneck_communication_share", "/bottleneck/communication_share"},
    {"bottleneck_straggler_share", "/bottleneck/straggler_share"},
    {"busiest_link", "/busiest_links/0/from"},  // completed below with "/to"
    {"busiest_link_class", "/busiest_links/0/class"},
    {"busiest_link_utilization", "/busiest_links/0/utilization"},
    {"bucket_cap_bytes", "/bucket_cap_bytes"},
    {"memory_fits", "/memory/fits"},
    {"memory_total_bytes", "/memory/total_bytes"},
    {"memory_capacity_bytes", "/memory/capacity_bytes"},
    {"time_to_target_us", "/convergence/time_to_target_us"},  // empty without a convergence section
    {"updates_to_target", "/convergence/updates_to_target"},
    {"final_loss", "/convergence/final_loss"},
    {"final_accuracy", "/convergence/final_accuracy"},
};
constexpr const char* kCountColumns[] = {"faults", "buckets"};

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
std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& file) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string cell;
  bool quoted = false;
  bool cell_was_quoted = false;
  int line = 1;
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
      records.push_back(std::move(record));
      record.clear();
      cell.clear();
      cell_was_quoted = false;
      ++line;
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (quoted) throw InputError("a quoted cell is never closed", SourceLocation{file, line, 0});
  if (!cell.empty() || !record.empty()) {
    record.push_back(std::move(cell));
    records.push_back(std::move(record));
  }
  return records;
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
    out.push_back(std::move(cell));
  }
  out.emplace_back(report.faults.size());
  out.emplace_back(report.buckets.size());
  return out;
}

std::string cell_text(const Json& cell) {
  if (cell.is_null()) return {};
  if (cell.is_string()) return cell.get<std::string>();
  return cell.dump();
}

std::string write_csv(const SweepTable& table) {
  std::string out;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (c > 0) out += ',';
    out += csv_quote(table.columns[c]);
  }
  out += '\n';
  for (const auto& [index, row] : table.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += ',';
      out += csv_quote(cell_text(row[c]));
    }
    out += '\n';
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
  return out.dump(2) + "\n";
}

std::string write_table(const SweepTable& table, TableFormat format) {
  return format == TableFormat::csv ? write_csv(table) : write_json(table);
}

std::vector<std::vector<Json>> read_table(const std::filesystem::path& path, TableFormat format,
                                          const std::vector<std::string>& columns) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}'", path.string()), SourceLocation{"-o"});
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const std::string file = path.string();
  const auto mismatch = [&](int line) {
    return InputError(
        "this file holds another sweep's columns: resuming needs the same --vary keys (or choose another -o)",
        SourceLocation{file, line, 0});
  };
  std::vector<std::vector<Json>> rows;
  if (format == TableFormat::csv) {
    const auto records = parse_csv(text, file);
    if (records.empty()) return rows;
    if (records.front() != columns) throw mismatch(1);
    for (std::size_t r = 1; r < records.size(); ++r) {
      if (records[r].size() != columns.size()) {
        throw InputError(fmt::format("expected {} cells, got {}", columns.size(), records[r].size()),
                         SourceLocation{file, static_cast<int>(r + 1), 0});
      }
      // Cells stay text: written back, text prints exactly as the number it came from did.
      std::vector<Json> row;
      for (const std::string& cell : records[r]) row.emplace_back(cell.empty() ? Json(nullptr) : Json(cell));
      rows.push_back(std::move(row));
    }
    return rows;
  }
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(fmt::format("not JSON: {}", e.what()), SourceLocation{file, 0, 0});
  }
  if (!j.is_array()) throw InputError("expected a JSON array of rows", SourceLocation{file, 0, 0});
  for (const Json& object : j) {
    if (!object.is_object() || object.size() != columns.size()) throw mismatch(0);
    std::vector<Json> row;
    std::size_t c = 0;
    for (const auto& [key, value] : object.items()) {
      if (key != columns[c++]) throw mismatch(0);
      row.push_back(value);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace syncsim::planner
