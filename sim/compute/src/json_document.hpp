#pragma once
// parse_json_document: a user's JSON file (a Hugging Face config, a GPU profile) as one nlohmann::json document, or
// an InputError that says where it stops being one:
//
//   const nlohmann::json doc = parse_json_document(text, source, "a Hugging Face config");
//   // config.json:3:14: not a Hugging Face config: the file is not JSON (syntax error ...: unexpected '}')
//
// Found by fuzzing: a truncated file, a NaN or a stray byte said only "the file is not JSON". A key an object gives
// twice takes its last value, as Python's json module and so Hugging Face's own reader take it. The nesting check
// (json_input.hpp) runs first.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace syncsim {

nlohmann::json parse_json_document(std::string_view text, const std::string& source, std::string_view what);

}  // namespace syncsim
