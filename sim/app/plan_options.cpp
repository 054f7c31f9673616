#include "plan_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "syncsim/core/input_file.hpp"
#include "syncsim/planner/sweep.hpp"

namespace syncsim::app {

std::string plan_fingerprint(const PlanOptions& o) {
  std::vector<std::string> keys{
      "gpus=" + o.gpus,
      fmt::format("gpu-types={}", fmt::join(o.gpu_types, ",")),
      fmt::format("networks={}", fmt::join(o.networks, ";")),
      "prices=" + (o.prices.empty() ? std::string() : read_input_file(o.prices, "price file")),
      "samples=" + o.samples,
      "tokens=" + o.tokens,
      "objective=" + o.objective,
      fmt::format("target-loss={}", o.target_loss ? fmt::format("{}", *o.target_loss) : ""),
      fmt::format("seeds={}", o.seeds),
      "layouts=" + o.layouts,
      fmt::format("global-batch={}", o.global_batch ? *o.global_batch : 0),
      fmt::format("memory-headroom={}", o.memory_headroom),
      fmt::format("max-simulations={}", o.max_simulations),
      fmt::format("no-failures={}", o.no_failures),
      "checkpoint-intervals=" + o.checkpoint_intervals.value_or(""),
      "spares=" + o.spares.value_or("")};
  return planner::sweep_fingerprint(o.scenario, keys);
}

}  // namespace syncsim::app
