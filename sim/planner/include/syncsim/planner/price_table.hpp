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

struct PriceTable {
  std::string source;  // the file, for messages
  std::string currency = "USD";
  std::map<std::string, double> gpu_hour;  // canonical GPU name -> price per GPU-hour
  std::map<std::string, double> network_gpu_hour;
  std::map<std::string, SourceLocation> network_keys;  // where each network_gpu_hour key is, for messages

  // Throws InputError at `--prices` when the GPU has no price.
  double gpu_price(const std::string& canonical_gpu) const;
  double network_price(const std::string& network) const;  // 0 when not listed (see check_networks)
  // When the file prices networks: throws InputError for a network of `planned` (the plan's labels) it does not
  // price, at the closest key it has (file:line:column, network_gpu_hour.KEY, did you mean) if that one is not
  // planned either, else at `--prices`.
  void check_networks(const std::vector<std::string>& planned) const;
};

// Throws InputError with file:line:column and the key for malformed files: not a mapping, unknown keys, a price
// that is not a number >= 0, an unknown GPU name.
PriceTable load_price_table(const std::filesystem::path& file);
PriceTable parse_price_table(const std::string& yaml, const std::string& source);

}  // namespace syncsim::planner
