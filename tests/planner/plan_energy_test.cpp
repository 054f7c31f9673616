// Energy: GPUs x board power x PUE x time-to-train, the catalog's board power for every GPU, and BLOOM-176B's
// published figure (docs/planner.md) as the formula's check.
#include <catch2/catch.hpp>

#include "syncsim/compute/gpu_spec.hpp"
#include "syncsim/planner/plan_energy.hpp"

using namespace syncsim;
using namespace syncsim::planner;

namespace {

Plan one_point(const std::string& gpu, std::int64_t gpus, std::optional<double> seconds) {
  PlanPoint p;
  p.gpu = gpu;
  p.gpus = gpus;
  p.time_to_train_s = seconds;
  Plan plan;
  plan.points.push_back(p);
  return plan;
}

}  // namespace

TEST_CASE("every catalog GPU has a board power") {
  for (const GpuCatalogEntry& entry : gpu_catalog()) {
    INFO(entry.spec.name);
    REQUIRE(entry.spec.board_power_watts);
    CHECK(*entry.spec.board_power_watts >= 100);
    CHECK(*entry.spec.board_power_watts <= 2000);
  }
}

TEST_CASE("energy is GPUs x board power x PUE x time, its cost MWh x 1000 x the price per kWh") {
  // 1,000 A100s (400 W) for 10 hours at PUE 1.5: 1000 x 0.4 kW x 1.5 x 10 h = 6,000 kWh = 6 MWh; at 0.1 a kWh, 600.
  PriceTable prices = parse_price_table("gpu_hour:\n  A100-SXM4-80GB: 1\npue: 1.5\nenergy_price_per_kwh: 0.1\n", "p");
  Plan plan = one_point("A100-SXM4-80GB", 1000, 36000);
  add_energy(plan, &prices, std::nullopt);
  const PlanPoint& p = plan.points[0];
  CHECK(*p.gpu_power_watts == 400);
  CHECK(*p.energy_mwh == Approx(6.0));
  CHECK(*p.energy_cost == Approx(600.0));
  // Without a price file: the GPUs' board power alone (PUE 1), no cost.
  Plan bare = one_point("A100-SXM4-80GB", 1000, 36000);
  add_energy(bare, nullptr, std::nullopt);
  CHECK(*bare.points[0].energy_mwh == Approx(4.0));
  CHECK_FALSE(bare.points[0].energy_cost);
  // A power limit caps the board power; a point without a time-to-train (no --samples) has a power but no energy.
  Plan capped = one_point("H100-SXM-80GB", 8, std::nullopt);
  add_energy(capped, nullptr, 500.0);
  CHECK(*capped.points[0].gpu_power_watts == 500);
  CHECK_FALSE(capped.points[0].energy_mwh);
}

TEST_CASE("BLOOM-176B: 1,082,990 A100-hours at 400 W are the 433 MWh Luccioni et al. publish, before the PUE") {
  // Luccioni, Viguier, Ligozat 2022, "Estimating the Carbon Footprint of BLOOM": 1,082,990 GPU-hours on A100s
  // (TDP 400 W) give 433,196 kWh of dynamic consumption; Jean Zay's PUE of 1.2 would add a fifth.
  const double seconds = 1'082'990.0 * 3600;  // as one GPU
  CHECK(energy_mwh(1, 400, 1.0, seconds) == Approx(433.196));
  CHECK(energy_mwh(1, 400, 1.2, seconds) == Approx(519.835));
}
