#include "python_child.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/output_file.hpp"

extern char** environ;

namespace syncsim::app {

namespace {

// The standard error kept: enough for the last lines of a Python traceback.
constexpr std::size_t kErrorTailBytes = 4096;

// A pipe whose ends close themselves.
struct Pipe {
  std::array<int, 2> fds{-1, -1};
  Pipe() {
    if (pipe2(fds.data(), O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  ~Pipe() {
    for (int fd : fds)
      if (fd >= 0) close(fd);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_end(int i) {
    close(fds[i]);
    fds[i] = -1;
  }
};

std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

// SIGINT and SIGTERM held back while the child starts and is registered (stop_child_on_interrupt): an interrupt
// in between would leave it running.
class InterruptsHeld {
 public:
  InterruptsHeld() {
    sigset_t held;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &held, &previous_);
  }
  ~InterruptsHeld() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  InterruptsHeld(const InterruptsHeld&) = delete;
  InterruptsHeld& operator=(const InterruptsHeld&) = delete;

 private:
  sigset_t previous_;
};

int wait_for(pid_t pid) {
  // Waited for without reaping, then unregistered, then reaped: the interrupt handler never kills a reused pid.
  // Before it is reaped its process group still has its number, and what the script started in it goes too.
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  kill(-pid, SIGKILL);
  stop_child_on_interrupt(0);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

// Whether the child has exited (not reaped: its group keeps its number).
bool has_exited(pid_t pid) {
  siginfo_t info{};
  info.si_pid = 0;
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// How often the read loop looks for the child's exit: a process the script started can hold the pipes open after
// the script is done, and is stopped then.
constexpr std::int64_t kExitCheckMs = 200;

}  // namespace

std::string python_interpreter() {
  const char* chosen = std::getenv("SYNCSIM_PYTHON");
  return chosen && *chosen ? chosen : SYNCSIM_DEFAULT_PYTHON;
}

ChildOutput run_python(const std::string& python, std::string_view script, const std::vector<std::string>& args,
                       std::size_t max_output, std::chrono::seconds time_limit) {
  const auto deadline = std::chrono::steady_clock::now() + time_limit;
  Pipe out;
  Pipe err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fds[1], STDERR_FILENO);
  // Not the terminal: outside its process group a read from it would stop the child until the timeout.
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> argv_text{python, "-c", std::string(script)};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // The child starts with no signal held back (the mask would be inherited), in a process group of its own so that
  // whatever the script starts can be stopped with it, and dies with this process on SIGINT and SIGTERM.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  pid_t pid = 0;
  int spawned = 0;
  {
    const InterruptsHeld held;
    spawned = posix_spawnp(&pid, python.c_str(), &actions, &attributes, argv.data(), environ);
    if (spawned == 0) stop_child_on_interrupt(pid);
  }
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw InputError(fmt::format("cannot run Python '{}': {} (set SYNCSIM_PYTHON)", python, std::strerror(spawned)));
  }
  out.close_end(1);
  err.close_end(1);
  ChildOutput result;
  std::string error_text;
  std::array<pollfd, 2> watched{{{out.fds[0], POLLIN, 0}, {err.fds[0], POLLIN, 0}}};
  std::array<char, 65536> buffer{};
  bool too_much = false;
  bool too_long = false;
  while (!too_much && !too_long && (watched[0].fd >= 0 || watched[1].fd >= 0)) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      too_long = true;
      break;
    }
    // The script done, what it started goes with it, and the pipes it held close.
    if (has_exited(pid)) kill(-pid, SIGKILL);
    const int ready =
        poll(watched.data(), watched.size(), static_cast<int>(std::min<std::int64_t>(left.count(), kExitCheckMs)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t i = 0; i < watched.size(); ++i) {
      if (watched[i].fd < 0 || watched[i].revents == 0) continue;
      const ssize_t n = read(watched[i].fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        watched[i].fd = -1;  // the Pipe closes it
        continue;
      }
      std::string& text = i == 0 ? result.out : error_text;
      text.append(buffer.data(), static_cast<std::size_t>(n));
      if (i == 1 && error_text.size() > 2 * kErrorTailBytes) error_text.erase(0, error_text.size() - kErrorTailBytes);
      too_much = result.out.size() > max_output;
    }
  }
  if (too_much || too_long) kill(-pid, SIGKILL);
  result.exit_code = wait_for(pid);
  if (too_much) {
    throw InputError(fmt::format("the tracing script printed more than {} MiB: stopped", max_output >> 20));
  }
  if (too_long) {
    throw InputError(fmt::format("the tracing script ran past {} s: stopped (--timeout)", time_limit.count()));
  }
  result.last_error_line = last_line(error_text);
  return result;
}

}  // namespace syncsim::app
