#include "syncsim/core/run_cost.hpp"

#include <fmt/format.h>

namespace syncsim {

RunCostExceeded::RunCostExceeded(const std::string& work, std::uint64_t budget)
    : InputError(fmt::format("simulating it passes the run-cost budget of {} {} (fewer ranks, a topology with shorter "
                             "routes or another algorithm stays within it)",
                             budget, work)) {}

RunCostExceeded::RunCostExceeded(const std::string& context, const RunCostExceeded& cause)
    : InputError(fmt::format("{}: {}", context, cause.message()), cause.where(), cause.key()) {}

}  // namespace syncsim
