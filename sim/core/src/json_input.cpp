#include "syncsim/core/json_input.hpp"

#include <fmt/format.h>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

void check_json_nesting(std::string_view text, const std::string& source) {
  int depth = 0;
  int line = 1;
  int column = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      in_string = false;  // JSON strings hold no raw newline; the parser reports the broken one
      continue;
    }
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        throw InputError(fmt::format("arrays and objects nested deeper than {} levels", kMaxJsonDepth),
                         SourceLocation{source, line, column});
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

std::string shortened_json_text(std::string text) {
  if (text.size() <= kMaxShownJsonChars) return text;
  std::size_t end = kMaxShownJsonChars;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a UTF-8 character
  text.resize(end);
  return text + "...";
}

}  // namespace syncsim
