#include "syncsim/core/run_cost.hpp"

#include <fmt/format.h>

namespace syncsim {

RunCostExceeded::RunCostExceeded(const std::string& work, std::uint64_t budget)
    : RunCostExceeded(work, budget, "fewer ranks, a topology with shorter routes or another algorithm") {}

RunCostExceeded::RunCostExceeded(const std::string& work, std::uint64_t budget, const std::string& within)
    : InputError(fmt::format("simulating it passes the run-cost budget of {} {} ({} stays within it)", budget, work,
                             within)) {}

RunCostExceeded::RunCostExceeded(const std::string& context, const RunCostExceeded& cause)
    : InputError(fmt::format("{}: {}", context, cause.message()), cause.where(), cause.key()) {}

}  // namespace syncsim
