// The scenario reader's limits on what a YAML text may ask it to build (sim/scenario/src/config_tree.cpp): values,
// counting each alias use as a copy, and nesting. Each is refused at its place with a message that says which
// limit and why, before yaml-cpp builds the document (a million values cost seconds and half a gigabyte there).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "syncsim/core/input_error.hpp"
#include "syncsim/scenario/scenario_loader.hpp"

using namespace syncsim;

namespace {

std::string tree_error_of(const std::string& yaml) {
  try {
    (void)parse_scenario(yaml, "big.yaml");
  } catch (const InputError& error) {
    return error.what();
  }
  FAIL("expected an InputError");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a document of more than 100,000 values is refused as too many values, not as an alias bomb",
          "[scenario][limits]") {
  // System: one list of 200,000 items. Expected: the limit, counted as the loader copies values, and no hint of
  // aliases, which the document has none of.
  std::string yaml = "name: x\nlist:\n";
  for (int i = 0; i < 200'000; ++i) yaml += "  - 1\n";
  const std::string message = tree_error_of(yaml);
  CHECK_THAT(message, Catch::StartsWith("big.yaml:"));
  CHECK_THAT(message, Catch::Contains("the document has more than 100000 values"));
  CHECK_THAT(message, !Catch::Contains("alias"));
}

TEST_CASE("nested aliases are refused by the values their copies add, saying so", "[scenario][limits]") {
  // System: a0 holds 2 values, each a(k+1) two copies of a(k): 2^18 values at a17. Expected: the limit, with the
  // count of copies aliases made, at the alias that crosses it (line 15, a14's second use of a13).
  std::string yaml = "a0: &a0 [1, 2]\n";
  for (int k = 1; k <= 17; ++k) {
    yaml += fmt::format("a{0}: &a{0} [*a{1}, *a{1}]\n", k, k - 1);
  }
  const std::string message = tree_error_of(yaml);
  CHECK_THAT(message, Catch::StartsWith("big.yaml:15:"));
  CHECK_THAT(message, Catch::Contains("expands to more than 100000 values") &&
                          Catch::Contains("of them copies made by aliases") &&
                          Catch::Contains("aliases repeated inside aliases?"));
}

TEST_CASE("lists nested deeper than 256 levels are refused at the list that goes too deep", "[scenario][limits]") {
  // yaml-cpp's own limit (2,000 levels) said "invalid YAML: bad file".
  const std::string deep = "name: x\nmodel:\n  layers: " + std::string(3000, '[') + std::string(3000, ']') + "\n";
  CHECK(tree_error_of(deep) == "big.yaml:3:265: lists and mappings nested deeper than 256 levels");
  const std::string fine = "name: x\nextra: " + std::string(200, '[') + std::string(200, ']') + "\n";
  CHECK_THAT(tree_error_of(fine), !Catch::Contains("nested deeper"));
}
