// The command line of every subcommand (`syncsim collective --sizes ... --channels ...`, `plan -j ...`): the
// CLI11 app the syncsim binary builds (sim/app/main.cpp and the add_*_command functions of sim/app), parsed, and
// then each command's flag check (commands.hpp): what the command checks before it reads a file or simulates.
//
// One argument a line, without the program name, as the shell passes them:
//
//   collective
//   --topology
//   switch:n=8,bw=100Gbps
//   --sizes
//   8:1G:2
//
// Only InputError and CLI11's ParseError (which main prints as one line, exit 2) may escape a parse and a check.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "commands.hpp"
#include "fuzz_targets.hpp"
#include "syncsim/core/input_error.hpp"

namespace syncsim::fuzz {
namespace {

// An argv this long is a different test (CLI11's own performance), not a flag's value check.
constexpr std::size_t kMaxArgs = 256;

std::vector<std::string> read_args(std::string_view text) {
  std::vector<std::string> args;
  for (std::size_t start = 0; start < text.size() && args.size() < kMaxArgs;) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    args.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

}  // namespace

int fuzz_cli_args(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args = read_args(as_text(data, size));
  // The same app as main(): every subcommand, one required.
  CLI::App app{"syncsim", "syncsim"};
  app.set_version_flag("--version", std::string("syncsim fuzz"));
  app.require_subcommand(1);
  // Each action owns its command's options (CLI11 writes into them while parsing): kept until the end.
  struct Command {
    const char* name;
    app::Action action;
    app::FlagCheck check;
  };
  std::vector<Command> commands(7);
  commands[0] = {"collective", {}, {}};
  commands[0].action = app::add_collective_command(app, &commands[0].check);
  commands[1] = {"topo", app::add_topo_command(app), {}};
  commands[2] = {"calibrate", {}, {}};
  commands[2].action = app::add_calibrate_command(app, &commands[2].check);
  commands[3] = {"validate", app::add_validate_command(app), {}};
  commands[4] = {"run", app::add_run_command(app), {}};
  commands[5] = {"sweep", {}, {}};
  commands[5].action = app::add_sweep_command(app, &commands[5].check);
  commands[6] = {"plan", {}, {}};
  commands[6].action = app::add_plan_command(app, &commands[6].check);
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
    app.parse(args);
  } catch (const CLI::ParseError&) {
    return 0;  // main prints it as one line, exit 2 (or the help, exit 0)
  }
  for (const Command& command : commands) {
    if (!app.got_subcommand(command.name) || !command.check) continue;
    try {
      command.check();
    } catch (const InputError&) {
      // The contract: bad input is an InputError.
    }
  }
  return 0;
}

}  // namespace syncsim::fuzz
