#pragma once
// PriceTable: what the user pays, read from a YAML price file. Prices are the USER'S inputs (a quote, a cloud
// list price, an amortized purchase): syncsim ships no prices of its own, and examples/prices-example.yaml says
// its numbers are placeholders.
//
//   currency: USD                    # a label printed next to the amounts
//   gpu_hour:                        # per GPU per hour, by GPU catalog name (aliases work: a100-80gb)
//     A100-SXM4-80GB: 1.80
//     H100-SXM: 3.00
//   network_gpu_hour:                # optional: per GPU per hour a network adds, by network label
//     ib400: 0.20                    # (`syncsim plan --networks ib400=dgx:...`; "scenario" for the file's own)
//   pue: 1.2                         # optional: the data centre's power usage effectiveness, 1 to kMaxPue
//   energy_price_per_kwh: 0.08       # optional: what a kWh costs, 0 to kMaxEnergyPrice
//
// The energy a plan's point takes (plan_energy.hpp) is its GPUs' board power x PUE x time-to-train; with an energy
// price, its cost too. The gpu_hour prices are kept apart: an all-in hourly rate already pays for power, a
// purchase amortized per hour does not.
//
// A cluster's price per hour = GPUs x (gpu_hour[gpu] + network_gpu_hour[network]). Without network_gpu_hour every
// network adds 0; with it, every network of the plan must be listed (check_networks: `rial400` for `rail400`
// would otherwise cost nothing). Every price is a number from 0 to kMaxPrice, so that a cost (price x up to 2^20
// GPUs x hours) stays finite.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "syncsim/core/input_error.hpp"

namespace syncsim::planner {

// The largest price per GPU-hour a file may give: far above any real one in any currency, and small enough that
// no product of prices, GPU counts and times overflows a double.
inline constexpr double kMaxPrice = 1e9;
// A PUE is total facility power over IT power: never below 1; the Uptime Institute's 2023 survey average is 1.58,
// and one above 3 is a typing error.
inline constexpr double kMaxPue = 3;
// Far above any grid's price per kWh in any currency's units (Vietnam's dong: about 3,000 a kWh).
inline constexpr double kMaxEnergyPrice = 1e6;

struct PriceTable {
  std::string source;  // the file, for messages
  std::string currency = "USD";
  std::map<std::string, double> gpu_hour;  // canonical GPU name -> price per GPU-hour
  std::map<std::string, double> network_gpu_hour;
  std::map<std::string, SourceLocation> network_keys;  // where each network_gpu_hour key is, for messages
  std::optional<double> pue;                           // none: 1, the GPUs' board power alone
  std::optional<double> energy_price_per_kwh;          // none: energy has no cost column

  // Throws InputError at `--prices` when the GPU has no price.
  double gpu_price(const std::string& canonical_gpu) const;
  double network_price(const std::string& network) const;  // 0 when not listed (see check_networks)
  // A cluster's price per hour: gpus x (gpu_hour[gpu] + network_gpu_hour[network]).
  double cluster_price_per_hour(const std::string& canonical_gpu, const std::string& network, double gpus) const;
  // When the file prices networks: throws InputError for a network of `planned` (the plan's labels) it does not
  // price, at the closest key it has (file:line:column, network_gpu_hour.KEY, did you mean) if that one is not
  // planned either, else at `--prices`.
  void check_networks(const std::vector<std::string>& planned) const;
};

// Throws InputError with file:line:column and the key for malformed files: not a mapping, unknown keys, a price
// that is not a number >= 0, an unknown GPU name, a PUE outside [1, kMaxPue], an energy price outside
// [0, kMaxEnergyPrice].
PriceTable load_price_table(const std::filesystem::path& file);
PriceTable parse_price_table(const std::string& yaml, const std::string& source);

}  // namespace syncsim::planner
