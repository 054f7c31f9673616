#include "atomic_file.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>

#include "syncsim/core/input_error.hpp"

namespace syncsim::app {

namespace {

// The temporary file being written, for the signal handler to remove; empty when none. Set and cleared with the
// signals blocked, so the handler never sees half a path.
char g_temporary[4096];

void on_interrupt(int signal_number) {
  if (g_temporary[0] != '\0') ::unlink(g_temporary);
  ::_exit(128 + signal_number);  // async-signal-safe, unlike exit()
}

class TemporaryGuard {
 public:
  explicit TemporaryGuard(const std::filesystem::path& path) { set(path.string()); }
  ~TemporaryGuard() { set(""); }
  TemporaryGuard(const TemporaryGuard&) = delete;
  TemporaryGuard& operator=(const TemporaryGuard&) = delete;

 private:
  static void set(const std::string& path) {
    sigset_t block;
    sigset_t previous;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &previous);
    const std::size_t n = std::min(path.size(), sizeof g_temporary - 1);
    std::memcpy(g_temporary, path.data(), n);
    g_temporary[n] = '\0';
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  }
};

}  // namespace

void exit_cleanly_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path temporary = path.string() + fmt::format(".tmp{}", ::getpid());
  const TemporaryGuard guard(temporary);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("cannot write '{}'", path.string()));
    try {
      write(out);
    } catch (...) {
      out.close();
      std::filesystem::remove(temporary);
      throw;
    }
    out.flush();
    if (!out) {
      std::filesystem::remove(temporary);
      throw InputError(fmt::format("writing '{}' failed", path.string()));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw InputError(fmt::format("cannot write '{}': {}", path.string(), error.message()));
  }
}

}  // namespace syncsim::app
