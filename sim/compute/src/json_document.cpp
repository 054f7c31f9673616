#include "json_document.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/core/json_input.hpp"

namespace syncsim {

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
                     location_of_byte(text, error.byte == 0 ? 0 : error.byte - 1, source));  // its byte is 1-based
  }
}

}  // namespace syncsim
