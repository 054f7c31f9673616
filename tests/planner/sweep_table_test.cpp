// Sweep tables: CSV and JSON written in point order, and read back for resuming to the same bytes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/sweep_table.hpp"

using namespace syncsim;
using namespace syncsim::planner;
using Json = nlohmann::ordered_json;

namespace {

SweepTable sample_table() {
  SweepTable t;
  t.columns = {"cluster.workers", "note", "samples_per_s", "fits"};
  // Inserted out of order: rows are written by point index, not by arrival.
  t.rows[1] = {Json("16"), Json("a, \"quoted\" cell"), Json(1770.402485297), Json(true)};
  t.rows[0] = {Json("8"), Json(nullptr), Json(886.5), Json(false)};
  return t;
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("CSV rows come in point order with RFC 4180 quoting") {
  const std::string csv = write_csv(sample_table());
  CHECK(csv ==
        "cluster.workers,note,samples_per_s,fits\n"
        "8,,886.5,false\n"
        "16,\"a, \"\"quoted\"\" cell\",1770.402485297,true\n");
}

TEST_CASE("a CSV and a JSON table read back and write again to identical bytes") {
  const SweepTable t = sample_table();
  for (const TableFormat format : {TableFormat::csv, TableFormat::json}) {
    const std::string text = write_table(t, format);
    const auto path = write_temp(format == TableFormat::csv ? "syncsim-table.csv" : "syncsim-table.json", text);
    const auto rows = read_table(path, format, t.columns);
    REQUIRE(rows.size() == 2);
    SweepTable again;
    again.columns = t.columns;
    for (std::size_t i = 0; i < rows.size(); ++i) again.rows[i] = rows[i];
    CHECK(write_table(again, format) == text);
    std::filesystem::remove(path);
  }
}

TEST_CASE("resuming from another sweep's file is an error naming the file") {
  const auto path = write_temp("syncsim-other.csv", "model.name,samples_per_s\nvgg16,1\n");
  CHECK_THROWS_WITH(read_table(path, TableFormat::csv, sample_table().columns),
                    Catch::Contains("syncsim-other.csv:1") && Catch::Contains("another sweep's columns"));
  std::filesystem::remove(path);
}

TEST_CASE("the output format follows the extension") {
  CHECK(table_format_of("a.csv") == TableFormat::csv);
  CHECK(table_format_of("a.json") == TableFormat::json);
  CHECK_THROWS_WITH(table_format_of("a.txt"), Catch::Contains("-o"));
}
