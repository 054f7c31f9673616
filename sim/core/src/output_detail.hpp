#pragma once
// The pieces atomic_file.cpp and output_set.cpp share: what an output path is, writing a file with every error
// checked, and the list of temporaries the interrupt handler removes. Not for use outside these two files.
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

namespace syncsim::output_detail {

enum class OutputKind {
  absent,         // nothing there yet: written through a temporary and a rename
  regular,        // a regular file: replaced the same way, its permissions kept
  write_through,  // a FIFO or a character device: opened and written directly, never replaced
  refused,        // a directory, a socket or a block device
};

struct OutputTarget {
  std::filesystem::path file;  // the path after following symlinks: what is written or replaced
  OutputKind kind = OutputKind::absent;
  mode_t mode = 0;   // permissions of a regular file, kept by its replacement
  std::string what;  // for a refused or write-through target: "a directory", "a FIFO (named pipe)", ...
};

// Follows `path` through its symlinks (a dangling one included: its target is created) and says what is there.
OutputTarget resolve_output(const std::filesystem::path& path);

// The one error for an output that could not be written: "cannot write 'SHOWN': REASON".
[[noreturn]] void write_failed(const std::filesystem::path& shown, const std::string& reason);
[[noreturn]] void write_failed_errno(const std::filesystem::path& shown, int error_number);

// Creates (or truncates) `file` and writes it; flush, fsync and close are all checked. `mode` (if not 0) becomes
// its permissions. Errors name `shown`, the path the user gave.
void write_new_file(const std::filesystem::path& file, const std::filesystem::path& shown, mode_t mode,
                    const std::function<void(std::ostream&)>& write);

// Opens a FIFO or character device and writes into it, every error checked (/dev/full: ENOSPC).
void write_through(const std::filesystem::path& file, const std::filesystem::path& shown,
                   const std::function<void(std::ostream&)>& write);

// NAME.tmpPID beside `file`, and NAME.oldPID for a backup.
std::filesystem::path temporary_beside(const std::filesystem::path& file, const char* suffix);

// A path the interrupt handler removes if SIGINT or SIGTERM comes while it is registered.
class RegisteredTemporary {
 public:
  explicit RegisteredTemporary(const std::filesystem::path& path);
  ~RegisteredTemporary();
  RegisteredTemporary(const RegisteredTemporary&) = delete;
  RegisteredTemporary& operator=(const RegisteredTemporary&) = delete;

 private:
  std::atomic<char*>* slot_;  // holds a copy of the path, owned here
};

// SIGINT and SIGTERM held back while it lives: what happens inside (a set of renames) is never cut in half.
class SignalsBlocked {
 public:
  SignalsBlocked();
  ~SignalsBlocked();
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace syncsim::output_detail
