// Price files (`syncsim plan --prices FILE`): parse_price_table, then every price lookup the plan makes.
#include <string>

#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/planner/price_table.hpp"

namespace syncsim::fuzz {

int fuzz_prices(const std::uint8_t* data, std::size_t size) {
  try {
    const planner::PriceTable table = planner::parse_price_table(std::string(as_text(data, size)), "fuzz.yaml");
    // The plan prices every GPU type it was given (a missing one is an InputError) and every network.
    for (const auto& [gpu, price] : table.gpu_hour) (void)(table.gpu_price(gpu) + price);
    for (const auto& [network, price] : table.network_gpu_hour) (void)(table.network_price(network) + price);
    (void)table.gpu_price("no such GPU");
  } catch (const InputError&) {
    // The contract: bad input is an InputError.
  }
  return 0;
}

}  // namespace syncsim::fuzz
