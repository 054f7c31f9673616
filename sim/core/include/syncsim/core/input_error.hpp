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

// Engine invariant check: always on, throws std::logic_error naming the broken invariant. `what` is a string
// literal, or a std::string for a report built only once the check failed (a deadlock names who waits for whom).
[[noreturn]] void invariant_failed(const char* what, const char* file, int line);
[[noreturn]] void invariant_failed(const std::string& what, const char* file, int line);
#define SYNCSIM_INVARIANT(cond, what)                                   \
  do {                                                                  \
    if (!(cond)) ::syncsim::invariant_failed(what, __FILE__, __LINE__); \
  } while (false)

// Audits: invariants too costly for every run (a sweep over all links after each re-solve, a walk over a whole
// collective plan), compiled in where a bug is being looked for: Debug, sanitizer and fuzz builds (SYNCSIM_AUDITS,
// set by sim/core/CMakeLists.txt). `syncsim-invariants` lists what a build checks (docs/reliability.md).
#ifdef SYNCSIM_AUDITS
inline constexpr bool kAuditsCompiledIn = true;
#else
inline constexpr bool kAuditsCompiledIn = false;
#endif
#define SYNCSIM_AUDIT(cond, what)                                         \
  do {                                                                    \
    if constexpr (::syncsim::kAuditsCompiledIn) {                         \
      if (!(cond)) ::syncsim::invariant_failed(what, __FILE__, __LINE__); \
    }                                                                     \
  } while (false)

}  // namespace syncsim
