#include "help_format.hpp"

#include <string>

namespace syncsim::app {

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  if (!option->get_option_text().empty()) return " " + option->get_option_text();
  std::string out;
  if (option->get_type_size() != 0) {
    if (!option->get_type_name().empty()) out += " " + get_label(option->get_type_name());
    if (!option->get_default_str().empty()) out += "=" + option->get_default_str();
    if (option->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    if (option->get_required()) out += " " + get_label("REQUIRED");
  }
  return out;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  std::string out = option->get_description();
  const auto names = [](const std::set<CLI::Option*>& options) {
    std::string list;
    for (const CLI::Option* o : options) list += (list.empty() ? "" : ", ") + o->get_name();
    return list;
  };
  if (!option->get_excludes().empty()) out += " (not with " + names(option->get_excludes()) + ")";
  if (!option->get_needs().empty()) out += " (needs " + names(option->get_needs()) + ")";
  return out;
}

void set_examples(CLI::App* command, std::initializer_list<std::string_view> lines) {
  std::string footer = "Examples:";
  for (const std::string_view line : lines) footer += "\n  " + std::string(line);
  command->footer(footer);
}

CLI::Option* required_in_help(CLI::Option* option) {
  std::string text = option->get_type_name();
  if (option->get_expected_max() == CLI::detail::expected_max_vector_size) text += " ...";
  return option->option_text(text + " REQUIRED");
}

}  // namespace syncsim::app
