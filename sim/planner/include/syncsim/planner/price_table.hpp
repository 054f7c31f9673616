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
// A cluster's price per hour = GPUs x (gpu_hour[gpu] + network_gpu_hour[network]); a network left out adds 0.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace syncsim::planner {

struct PriceTable {
  std::string source;  // the file, for messages
  std::string currency = "USD";
  std::map<std::string, double> gpu_hour;  // canonical GPU name -> price per GPU-hour
  std::map<std::string, double> network_gpu_hour;

  // Throws InputError at `--prices` when the GPU has no price.
  double gpu_price(const std::string& canonical_gpu) const;
  double network_price(const std::string& network) const;  // 0 when not listed
};

// Throws InputError with file:line:column and the key for malformed files: not a mapping, unknown keys, a price
// that is not a number >= 0, an unknown GPU name.
PriceTable load_price_table(const std::filesystem::path& file);
PriceTable parse_price_table(const std::string& yaml, const std::string& source);

}  // namespace syncsim::planner
