#include "syncsim/core/input_error.hpp"

#include <fmt/format.h>

namespace syncsim {

namespace {
std::string render(const std::string& message, const std::optional<SourceLocation>& where, const std::string& key) {
  std::string out;
  if (where) {
    out += where->source;
    if (where->line > 0) out += fmt::format(":{}", where->line);
    if (where->column > 0) out += fmt::format(":{}", where->column);
    out += ": ";
  }
  if (!key.empty()) out += key + ": ";
  out += message;
  return out;
}
}  // namespace

InputError::InputError(std::string message, std::optional<SourceLocation> where, std::string key)
    : std::runtime_error(render(message, where, key)),
      message_(std::move(message)),
      where_(std::move(where)),
      key_(std::move(key)) {}

InputError InputError::at(const SourceLocation& where) const {
  return InputError(message_, where_ ? where_ : std::optional<SourceLocation>(where), key_);
}

InputError InputError::with_key(const std::string& key) const {
  return InputError(message_, where_, key_.empty() ? key : key_);
}

void invariant_failed(const char* what, const char* file, int line) {
  throw std::logic_error(fmt::format("internal error: invariant broken: {} ({}:{})", what, file, line));
}

void invariant_failed(const std::string& what, const char* file, int line) {
  invariant_failed(what.c_str(), file, line);
}

}  // namespace syncsim
