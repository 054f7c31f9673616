#pragma once
// The subcommands of `syncsim`. Each registers its options on the CLI11 app and returns the action to run once
// parsing succeeded; actions throw InputError for bad input (main turns it into exit code 2).
#include <CLI/CLI.hpp>
#include <functional>

namespace syncsim::app {

using Action = std::function<int()>;

Action add_collective_command(CLI::App& app);
Action add_topo_command(CLI::App& app);
Action add_calibrate_command(CLI::App& app);
Action add_validate_command(CLI::App& app);
Action add_run_command(CLI::App& app);
Action add_sweep_command(CLI::App& app);
Action add_plan_command(CLI::App& app);

}  // namespace syncsim::app
