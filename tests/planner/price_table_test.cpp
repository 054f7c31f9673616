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

TEST_CASE("a price above kMaxPrice is refused, so that no cost becomes inf") {
  // 1e308 x 16 GPUs is inf in plan.csv; the limit leaves room for 2^20 GPUs over any time.
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1e308\n", "p.yaml"),
                    Catch::Contains("p.yaml:2:19: gpu_hour.A100-SXM4-80GB: a price must be at most 1e+09"));
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\nnetwork_gpu_hour:\n  ib: 2e9\n", "p.yaml"),
                    Catch::Contains("p.yaml:4:7: network_gpu_hour.ib: a price must be at most"));
  CHECK(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1e9\n", "p.yaml").gpu_price("A100-SXM4-80GB") == 1e9);
}

TEST_CASE("a file that prices networks must price every planned one, a misspelt key is named") {
  const PriceTable t =
      parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\nnetwork_gpu_hour:\n  scenario: 0\n  rial400: 0.2\n", "p.yaml");
  CHECK_NOTHROW(t.check_networks({"scenario"}));
  CHECK_THROWS_WITH(t.check_networks({"scenario", "rail400"}),
                    Catch::Equals("p.yaml:5:3: network_gpu_hour.rial400: no planned network is called 'rial400', and "
                                  "network 'rail400' has no price: did you mean 'rail400'?"));
  CHECK_THROWS_WITH(t.check_networks({"eth25"}),
                    Catch::Contains("--prices: p.yaml has no network_gpu_hour entry for network 'eth25'"));
  // Without network prices, every network adds 0 (documented): nothing to check.
  CHECK_NOTHROW(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\n", "p.yaml").check_networks({"anything"}));
}

TEST_CASE("a price file's PUE and energy price are optional, and out of range they are errors at their line") {
  const PriceTable none = parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\n", "p.yaml");
  CHECK_FALSE(none.pue);
  CHECK_FALSE(none.energy_price_per_kwh);
  const PriceTable t =
      parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\npue: 1.2\nenergy_price_per_kwh: 0.08\n", "p.yaml");
  CHECK(*t.pue == 1.2);
  CHECK(*t.energy_price_per_kwh == 0.08);
  // Below 1 a PUE would have the facility make energy; above kMaxPue it is a typing error (12 for 1.2).
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\npue: 0.9\n", "p.yaml"),
                    Catch::Contains("p.yaml:3:6: pue: a PUE (facility power over IT power) must be from 1 to 3"));
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\npue: 12\n", "p.yaml"),
                    Catch::Contains("pue: a PUE") && Catch::Contains("got '12'"));
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\nenergy_price_per_kwh: -0.1\n", "p.yaml"),
                    Catch::Contains("p.yaml:3:23: energy_price_per_kwh: a price per kWh must be from 0 to 1e+06"));
  CHECK_THROWS_WITH(parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\nenergy_price_per_kwh: cheap\n", "p.yaml"),
                    Catch::Contains("energy_price_per_kwh: expected a price per kWh"));
}
