#pragma once
// The published figures' CSV files in validation/scenarios/llm: the rows after the header, each split at its commas
// into exactly `columns` cells (a row of another width fails the test).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace syncsim::test {

inline std::vector<std::vector<std::string>> published_csv(const std::filesystem::path& file, std::size_t columns) {
  std::ifstream in(file);
  REQUIRE(in);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    REQUIRE(cells.size() == columns);
    rows.push_back(std::move(cells));
  }
  return rows;
}

}  // namespace syncsim::test
