#pragma once
// JSON a user hands syncsim (a Hugging Face config, a GPU profile, a PyTorch trace, a sweep to resume, a trace or
// report the GUI opens): what every JSON reader does around nlohmann::json, on top of read_input_file.
//
//   check_json_nesting(text, source);                                  // before nlohmann::json::parse
//   fail(fmt::format("expected a whole number, got {}", json_value_text(value)));
//
// nlohmann::json parses and frees a value without recursion, but dump(), comparisons and copies recurse once per
// level: a value nested 200,000 arrays deep (400 KB of '[') overflowed the stack as soon as an error message printed
// it. check_json_nesting refuses text nested deeper than kMaxJsonDepth levels, in one pass that never recurses, at
// the bracket that goes too deep: "config.json:1:257: arrays and objects nested deeper than 256 levels". Real inputs
// nest a few levels. json_value_text describes a value for a message without walking into it, so no message prints
// a whole list or object either, however large.
#include <cstddef>
#include <string>
#include <string_view>

namespace syncsim {

inline constexpr int kMaxJsonDepth = 256;

// Throws InputError at SOURCE:LINE:COLUMN where an array or object opens deeper than kMaxJsonDepth levels. Brackets
// inside strings do not count. Text that is not JSON otherwise passes: the parser says what is wrong with it.
void check_json_nesting(std::string_view text, const std::string& source);

// A scalar as JSON spells it, cut after kMaxShownJsonChars characters ("..."); used by json_value_text.
inline constexpr std::size_t kMaxShownJsonChars = 60;
std::string shortened_json_text(std::string text);

// Lists and objects of at most this many scalars are shown whole ([3, 224]); others by their size.
inline constexpr std::size_t kMaxShownJsonItems = 8;

// A value for an error message: a scalar as JSON spells it, a short flat list or object whole (both shortened to
// kMaxShownJsonChars), any other list or object by its size only ("a list of 300 values", "an object of 2 keys").
// It looks one level in, never deeper.
template <typename Json>
std::string json_value_text(const Json& value) {
  if (!value.is_array() && !value.is_object()) return shortened_json_text(value.dump());  // no recursion
  const std::size_t n = value.size();
  bool flat = n <= kMaxShownJsonItems;
  for (auto it = value.begin(); flat && it != value.end(); ++it) flat = !it->is_array() && !it->is_object();
  if (flat) return shortened_json_text(value.dump());  // one level: its items are scalars
  if (value.is_array()) return "a list of " + std::to_string(n) + (n == 1 ? " value" : " values");
  return "an object of " + std::to_string(n) + (n == 1 ? " key" : " keys");
}

}  // namespace syncsim
