// Price files: the user's prices, and every malformed one an error at its line and key.
#include <catch2/catch.hpp>

#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/price_table.hpp"

using namespace syncsim;
using namespace syncsim::planner;

TEST_CASE("prices are read by canonical GPU name, unlisted networks add nothing") {
  const PriceTable t = parse_price_table(
      "currency: EUR\ngpu_hour:\n  a100-80gb: 1.5\n  H100-SXM: 3\nnetwork_gpu_hour:\n  ib400: 0.25\n", "p.yaml");
  CHECK(t.currency == "EUR");
  CHECK(t.gpu_price("A100-SXM4-80GB") == 1.5);
  CHECK(t.network_price("ib400") == 0.25);
  CHECK(t.network_price("scenario") == 0.0);
  CHECK_THROWS_WITH(t.gpu_price("L40S"), Catch::Contains("--prices") && Catch::Contains("L40S"));
}

TEST_CASE("malformed price files are errors at file:line:column and key") {
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: cheap\n", "p.yaml"),
                    Catch::Contains("p.yaml:2:19: gpu_hour.A100-SXM4-80GB: expected a price"));
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: -1\n", "p.yaml"), Catch::Contains("must be >= 0"));
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  Z100: 1\n", "p.yaml"),
                    Catch::Contains("p.yaml:2:3: gpu_hour.Z100: unknown GPU 'Z100'"));
  CHECK_THROWS_WITH(parse_price_table("gpu_hours:\n  A100-SXM4-80GB: 1\n", "p.yaml"),
                    Catch::Contains("p.yaml:1:1: gpu_hours: unknown key"));
  CHECK_THROWS_WITH(parse_price_table("gpu_hour: [1, 2]\n", "p.yaml"), Catch::Contains("expected a mapping"));
  CHECK_THROWS_WITH(parse_price_table("currency: USD\n", "p.yaml"), Catch::Contains("no gpu_hour prices"));
  CHECK_THROWS_AS(parse_price_table("gpu_hour: {a: 1\n", "p.yaml"), InputError);
}
