#include "syncsim/planner/plan_energy.hpp"

#include <algorithm>

#include "syncsim/compute/gpu_spec.hpp"

namespace syncsim::planner {

namespace {

constexpr double kJoulesPerMwh = 3.6e9;
constexpr double kKwhPerMwh = 1000;

// The catalog's board power of a GPU by its canonical name; none for a GPU the catalog does not know (a
// scenario's own inline GPU) or whose power it does not list.
std::optional<double> board_power(const std::string& gpu) {
  for (const GpuCatalogEntry& entry : gpu_catalog()) {
    if (entry.spec.name == gpu) return entry.spec.board_power_watts;
  }
  return std::nullopt;
}

}  // namespace

double energy_mwh(std::int64_t gpus, double watts, double pue, double seconds) {
  return static_cast<double>(gpus) * watts * pue * seconds / kJoulesPerMwh;
}

void add_energy(Plan& plan, const PriceTable* prices, std::optional<double> power_limit_watts) {
  const double pue = prices && prices->pue ? *prices->pue : 1.0;
  for (PlanPoint& p : plan.points) {
    p.gpu_power_watts = board_power(p.gpu);
    if (p.gpu_power_watts && power_limit_watts) p.gpu_power_watts = std::min(*p.gpu_power_watts, *power_limit_watts);
    if (!p.gpu_power_watts || !p.time_to_train_s) continue;
    p.energy_mwh = energy_mwh(p.gpus, *p.gpu_power_watts, pue, *p.time_to_train_s);
    if (prices && prices->energy_price_per_kwh)
      p.energy_cost = *p.energy_mwh * kKwhPerMwh * *prices->energy_price_per_kwh;
  }
}

}  // namespace syncsim::planner
