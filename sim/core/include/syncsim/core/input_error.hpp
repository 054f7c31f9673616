#pragma once
// InputError: the one error type for bad user input (files, spec strings, flags).
//
// It carries where the input came from (file or flag, line, column) and the key path that was wrong, and prints
// as one line: `scenario.yaml:12:7: cluster.topology.bw: expected a bandwidth with a unit like 100Gbps, got '100'`.
// main() catches it once and exits with status 2.
#include <optional>
#include <stdexcept>
#include <string>

namespace syncsim {

struct SourceLocation {
  std::string source;  // a file path, or a flag such as "--topology"
  int line = 0;        // 1-based; 0 when the source has no lines (a flag value)
  int column = 0;      // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
 public:
  explicit InputError(std::string message, std::optional<SourceLocation> where = std::nullopt, std::string key = {});

  const std::string& message() const { return message_; }
  const std::optional<SourceLocation>& where() const { return where_; }
  const std::string& key() const { return key_; }

  // A copy with the location and key filled in where they are still unknown; used by callers that know more.
  InputError at(const SourceLocation& where) const;
  InputError with_key(const std::string& key) const;

 private:
  std::string message_;
  std::optional<SourceLocation> where_;
  std::string key_;
};

// Engine invariant check: always on, throws std::logic_error naming the broken invariant.
[[noreturn]] void invariant_failed(const char* what, const char* file, int line);
#define SYNCSIM_INVARIANT(cond, what)                                   \
  do {                                                                  \
    if (!(cond)) ::syncsim::invariant_failed(what, __FILE__, __LINE__); \
  } while (false)

}  // namespace syncsim
