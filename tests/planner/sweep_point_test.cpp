// Sweep points: parsing --vary and expanding the axes in a fixed order.
#include <catch2/catch.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/sweep_point.hpp"

using namespace syncsim;
using namespace syncsim::planner;

TEST_CASE("vary values split on commas outside YAML brackets, or on a semicolon when there is one") {
  CHECK(parse_vary("cluster.workers=8, 16,32").values == std::vector<std::string>{"8", "16", "32"});
  CHECK(parse_vary("stragglers.slow=[{rank: 1, factor: 2}],[]").values ==
        std::vector<std::string>{"[{rank: 1, factor: 2}]", "[]"});
  const VaryAxis specs = parse_vary("cluster.topology=dgx:nodes=2,gpus=8;switch:n=16,bw=100Gbps");
  CHECK(specs.key == "cluster.topology");
  CHECK(specs.values == std::vector<std::string>{"dgx:nodes=2,gpus=8", "switch:n=16,bw=100Gbps"});
}

TEST_CASE("a vary axis rejects an empty range, an empty value and a missing '='") {
  CHECK_THROWS_WITH(parse_vary("cluster.workers="), Catch::Contains("--vary: cluster.workers: empty range"));
  CHECK_THROWS_WITH(parse_vary("cluster.workers=8,,16"), Catch::Contains("value 2"));
  CHECK_THROWS_WITH(parse_vary("cluster.workers"), Catch::Contains("expected key.path=v1,v2"));
  CHECK_THROWS_AS(parse_vary("=8"), InputError);
}

TEST_CASE("the cartesian product turns the last axis fastest, indices follow that order") {
  const auto points = expand_points({parse_vary("a=1,2"), parse_vary("b=x,y,z")}, false);
  REQUIRE(points.size() == 6);
  CHECK(points[0].labels == std::vector<std::string>{"1", "x"});
  CHECK(points[1].labels == std::vector<std::string>{"1", "y"});
  CHECK(points[3].labels == std::vector<std::string>{"2", "x"});
  CHECK(points[5].overrides == std::vector<std::string>{"a=2", "b=z"});
  for (std::size_t i = 0; i < points.size(); ++i) CHECK(points[i].index == i);
}

TEST_CASE("zipped axes pair equal-length axes and rejects unequal ones") {
  const auto points = expand_points({parse_vary("a=1,2"), parse_vary("b=x,y")}, true);
  REQUIRE(points.size() == 2);
  CHECK(points[1].labels == std::vector<std::string>{"2", "y"});
  CHECK_THROWS_WITH(expand_points({parse_vary("a=1,2"), parse_vary("b=x")}, true), Catch::Contains("--zip"));
  CHECK_THROWS_WITH(expand_points({parse_vary("a=1"), parse_vary("a=2")}, false), Catch::Contains("varied twice"));
}
