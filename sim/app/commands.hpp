#pragma once
// The subcommands of `syncsim`. Each registers its options on the CLI11 app and returns the action to run once
// parsing succeeded; actions throw InputError for bad input (main turns it into exit code 2).
//
// A command whose flags carry values to check (counts, ranges, names) also fills `check`, when given, with a
// function that checks them as the action would, without reading a file or simulating: the cli_args fuzz target
// (tests/fuzz/cli_args_fuzz.cpp) parses an argv and runs it. The action runs the same checks first.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>

namespace syncsim::app {

using Action = std::function<int()>;
using FlagCheck = std::function<void()>;

Action add_collective_command(CLI::App& app, FlagCheck* check = nullptr);
Action add_topo_command(CLI::App& app);
Action add_calibrate_command(CLI::App& app, FlagCheck* check = nullptr);
Action add_validate_command(CLI::App& app);
Action add_run_command(CLI::App& app);
Action add_memory_command(CLI::App& app);
Action add_sweep_command(CLI::App& app, FlagCheck* check = nullptr);
Action add_plan_command(CLI::App& app, FlagCheck* check = nullptr);
Action add_import_command(CLI::App& app);

// The most threads `-j` may ask for: more than any machine has cores, fewer than a typo (`-j 1000000`) spawns.
inline constexpr std::int64_t kMaxThreads = 1024;

// `-j N` of sweep and plan: 1 to kMaxThreads, or all cores when the flag is absent. 0 is refused (it would
// silently mean the default); throws InputError at `-j`.
unsigned thread_count(std::optional<std::int64_t> jobs);

}  // namespace syncsim::app
