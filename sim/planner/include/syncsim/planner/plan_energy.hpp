#pragma once
// The energy a plan's points take to train, beside their GPU-hours:
//
//   MWh    = GPUs x board power x PUE x time-to-train          (board power: the catalog's, docs/compute.md, or the
//                                                              scenario's cluster.gpu.power_limit)
//   cost   = MWh x 1000 x energy_price_per_kwh                 (the price file's, price_table.hpp)
//
// It counts the GPUs' board power at full draw, scaled by the data centre's PUE (1 when the price file gives none:
// the GPUs alone); the hosts' CPUs, memory, NICs and switches are inside the PUE's "IT load" only as far as the
// PUE the user gives accounts for them. A check against a published figure (BLOOM-176B) is in docs/planner.md.
#include <optional>

#include "syncsim/planner/plan_analysis.hpp"
#include "syncsim/planner/price_table.hpp"

namespace syncsim::planner {

// Fills every point's gpu_power_watts (where the catalog has its GPU's board power) and, for points with a
// time-to-train, energy_mwh and, when `prices` has an energy price, energy_cost. A power limit caps the board power.
void add_energy(Plan& plan, const PriceTable* prices, std::optional<double> power_limit_watts);

// One point's MWh: GPUs x watts x PUE x seconds.
double energy_mwh(std::int64_t gpus, double watts, double pue, double seconds);

}  // namespace syncsim::planner
