#pragma once
// The nccl-tests logs shipped with the tests (tests/data/nccl-tests), and a whole file read as text.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace syncsim::shipped_logs {

inline std::string shipped(const std::string& name) {
  return fmt::format("{}/{}", SYNCSIM_NCCL_TESTS_DATA, name);
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace syncsim::shipped_logs
