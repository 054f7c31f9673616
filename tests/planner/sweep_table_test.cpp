// Sweep tables: CSV and JSON written in point order, and read back for resuming to the same bytes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/sweep.hpp"
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

// In a folder of this process's own: two test runs on one machine (two build trees) must not share the files.
std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("syncsim-sweep-table-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
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
  SweepTable t = sample_table();
  t.fingerprint = "0123456789abcdef";
  for (const TableFormat format : {TableFormat::csv, TableFormat::json}) {
    const std::string text = write_table(t, format);
    const auto path = write_temp(format == TableFormat::csv ? "syncsim-table.csv" : "syncsim-table.json", text);
    const auto rows = read_table(path, format, t.columns, t.fingerprint);
    REQUIRE(rows.size() == 2);
    SweepTable again;
    again.columns = t.columns;
    again.fingerprint = t.fingerprint;
    for (std::size_t i = 0; i < rows.size(); ++i) again.rows[i] = rows[i];
    CHECK(write_table(again, format) == text);
    std::filesystem::remove(path);
  }
}

TEST_CASE("resuming from another sweep's file is an error naming the file") {
  const auto path = write_temp("syncsim-other.csv", "model.name,samples_per_s\nvgg16,1\n");
  CHECK_THROWS_WITH(read_table(path, TableFormat::csv, sample_table().columns, "0123456789abcdef"),
                    Catch::Contains("syncsim-other.csv:1") && Catch::Contains("another sweep's columns"));
  std::filesystem::remove(path);
}

TEST_CASE("the output format follows the extension") {
  CHECK(table_format_of("a.csv") == TableFormat::csv);
  CHECK(table_format_of("a.json") == TableFormat::json);
  CHECK_THROWS_WITH(table_format_of("a.txt"), Catch::Contains("-o"));
}

TEST_CASE("a table with a fingerprint carries it as a last column (CSV) or as a key (JSON), rows unchanged") {
  SweepTable t = sample_table();
  t.fingerprint = "0123456789abcdef";
  // A plain CSV, header first: what pandas.read_csv reads as it is (tests/python/test_csv_outputs.py).
  CHECK(write_csv(t) ==
        "cluster.workers,note,samples_per_s,fits,sweep_fingerprint\n"
        "8,,886.5,false,0123456789abcdef\n"
        "16,\"a, \"\"quoted\"\" cell\",1770.402485297,true,0123456789abcdef\n");
  const Json json = Json::parse(write_json(t));
  CHECK(json.at("sweep_fingerprint") == "0123456789abcdef");
  CHECK(json.at("rows") == Json::parse(write_json(sample_table())));
}

TEST_CASE(
    "resuming refuses a file of another scenario, an older file without a fingerprint, and cells of the "
    "wrong type") {
  SweepTable t = sample_table();
  t.fingerprint = "0123456789abcdef";
  const std::string csv = write_csv(t);
  const auto columns = t.columns;
  // Another fingerprint: the scenario or the --vary keys changed since the file was written.
  CHECK_THROWS_WITH(resumable_rows(parse_table(csv, "r.csv", TableFormat::csv, columns), "r.csv", "fedcba9876543210"),
                    Catch::StartsWith("r.csv:1: holds the rows of another sweep (fingerprint 0123456789abcdef, this "
                                      "sweep's is fedcba9876543210)"));
  // An older syncsim's file (or stdout redirected): no way to tell, so refused with what to do.
  CHECK_THROWS_WITH(resumable_rows(parse_table(write_csv(sample_table()), "r.csv", TableFormat::csv, columns), "r.csv",
                                   t.fingerprint),
                    Catch::StartsWith("r.csv:1: no sweep fingerprint") && Catch::Contains("delete it"));
  CHECK_THROWS_WITH(resumable_rows(parse_table(write_json(sample_table()), "r.json", TableFormat::json, columns),
                                   "r.json", t.fingerprint),
                    Catch::Contains("no sweep fingerprint"));
  // A header alone, or nothing: nothing to keep, the sweep starts afresh.
  CHECK(resumable_rows(parse_table("cluster.workers,note,samples_per_s,fits\n", "r.csv", TableFormat::csv, columns),
                       "r.csv", t.fingerprint)
            .empty());
  CHECK(resumable_rows(parse_table("", "r.csv", TableFormat::csv, columns), "r.csv", t.fingerprint).empty());
  // A number column holding text, in CSV (at its line, the column as key) and in JSON.
  std::string edited = csv;
  edited.replace(edited.find("886.5"), 5, "NOT_A_NUMBER");
  CHECK_THROWS_WITH(parse_table(edited, "r.csv", TableFormat::csv, columns),
                    Catch::StartsWith("r.csv:2: samples_per_s: expected a finite number in this column, got "
                                      "'NOT_A_NUMBER'"));
  Json json = Json::parse(write_json(t));
  json["rows"][1]["samples_per_s"] = "fast";
  CHECK_THROWS_WITH(parse_table(json.dump(), "r.json", TableFormat::json, columns),
                    Catch::Contains("rows[1].samples_per_s: expected a finite number"));
  // A fingerprint cell that is not one, or rows of two sweeps: at the row's line, the column as key.
  std::string bad_fingerprint = csv;
  bad_fingerprint.replace(bad_fingerprint.rfind("0123456789abcdef"), 16, "xyz");
  CHECK_THROWS_WITH(parse_table(bad_fingerprint, "r.csv", TableFormat::csv, columns),
                    Catch::StartsWith("r.csv:3: sweep_fingerprint: expected 16 hex digits, got 'xyz'"));
  std::string two_sweeps = csv;
  two_sweeps.replace(two_sweeps.rfind("0123456789abcdef"), 16, "fedcba9876543210");
  CHECK_THROWS_WITH(parse_table(two_sweeps, "r.csv", TableFormat::csv, columns),
                    Catch::StartsWith("r.csv:3: sweep_fingerprint: rows of two sweeps in one file"));
}

TEST_CASE("report columns have types: integers, booleans and finite numbers are checked, empty cells pass") {
  std::vector<std::string> columns = {"cluster.workers"};
  columns.insert(columns.end(), report_columns().begin(), report_columns().end());
  const auto row_with = [&](const std::string& column, const std::string& cell) {
    std::string header;
    std::string row;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      header += (c ? "," : "") + columns[c];
      row += (c ? "," : "") + (columns[c] == column ? cell : std::string());
    }
    return header + "\n" + row + "\n";
  };
  const auto reads = [&](const std::string& column, const std::string& cell) {
    try {
      (void)parse_table(row_with(column, cell), "r.csv", TableFormat::csv, columns);
      return true;
    } catch (const InputError&) {
      return false;
    }
  };
  CHECK(reads("workers", "16"));
  CHECK_FALSE(reads("workers", "16.5"));
  CHECK(reads("overlap", "true"));
  CHECK_FALSE(reads("overlap", "yes"));
  CHECK(reads("samples_per_s", "1770.4"));
  CHECK(reads("samples_per_s", "1e3"));
  CHECK_FALSE(reads("samples_per_s", "1e999"));
  CHECK_FALSE(reads("samples_per_s", "nan"));
  CHECK(reads("scenario", "anything even 1.5"));
  CHECK(reads("cluster.workers", "whatever the user wrote"));
  CHECK(reads("faults", "0"));
  CHECK_FALSE(reads("buckets", "three"));
}

TEST_CASE("resumed rows go to the points whose labels they carry, one point twice is an edited file") {
  std::vector<SweepPoint> points(2);
  points[0].index = 0;
  points[0].labels = {"8"};
  points[1].index = 1;
  points[1].labels = {"16"};
  const std::vector<std::vector<Json>> rows = {{Json("16"), Json(1)}, {Json("32"), Json(2)}};
  const auto matched = match_rows(rows, points, 1, "r.csv");
  REQUIRE(matched.size() == 1);  // 32 is no longer a point of this sweep: left out
  CHECK(matched.at(1)[1] == 1);
  CHECK_THROWS_WITH(match_rows({{Json("8"), Json(1)}, {Json("8"), Json(2)}}, points, 1, "r.csv"),
                    Catch::StartsWith("r.csv: point 0 (8) has two rows"));
}
