#pragma once
// How `syncsim COMMAND --help` reads: each command's own examples under its options, required options marked
// REQUIRED (also those checked by the command itself, for a better message than CLI11's), and an option that
// excludes another saying so in its description rather than in the middle of its name column.
#include <CLI/CLI.hpp>
#include <initializer_list>
#include <string_view>

namespace syncsim::app {

// CLI11's formatter without "Needs:" and "Excludes:" in the name column: they go at the end of the description,
// "(not with --time-to-train)".
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* option) const override;
  std::string make_option_desc(const CLI::Option* option) const override;
};

// The command's footer: "Examples:" and one indented line each.
void set_examples(CLI::App* command, std::initializer_list<std::string_view> lines);

// An option the command requires but checks itself (its message says what to give): REQUIRED in its help.
CLI::Option* required_in_help(CLI::Option* option);

}  // namespace syncsim::app
