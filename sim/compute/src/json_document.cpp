#include "json_document.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/json_input.hpp"

namespace syncsim {

namespace {

// The line and column (1-based) of the byte nlohmann names, 1-based too; the end of the text past it.
SourceLocation place_of_byte(std::string_view text, std::size_t byte, const std::string& source) {
  const std::size_t at = std::min(byte == 0 ? 0 : byte - 1, text.size());
  const std::string_view before = text.substr(0, at);
  const auto line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
  const std::size_t start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  return SourceLocation{source, line, static_cast<int>(at - start) + 1};
}

}  // namespace

nlohmann::json parse_json_document(std::string_view text, const std::string& source, std::string_view what) {
  check_json_nesting(text, source);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann's message starts "[json.exception.parse_error.101] parse error at line 3, column 14: "; the place is
    // ours, the rest is what it found.
    std::string found = error.what();
    const std::size_t colon = found.find(": ");
    if (colon != std::string::npos) found = found.substr(colon + 2);
    throw InputError(fmt::format("not {}: the file is not JSON ({})", what, found),
                     place_of_byte(text, error.byte, source));
  }
}

}  // namespace syncsim
