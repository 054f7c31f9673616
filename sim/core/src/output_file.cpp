#include "syncsim/core/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

#include "output_detail.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"

namespace syncsim {

namespace output_detail {

namespace {

// The temporaries being written, for the signal handler to remove: slots in blocks that are only ever added, never
// freed, so the handler may walk them at any moment; an empty slot holds nullptr. A slot is set and cleared with the
// signals blocked, so the handler never sees a path being freed. A set of outputs holds a temporary per file, and a
// layout's Chakra export writes one trace per rank: thousands at once, hence no fixed number of slots.
constexpr int kSlotsPerBlock = 256;
struct TemporaryBlock {
  std::atomic<char*> paths[kSlotsPerBlock]{};
  std::atomic<TemporaryBlock*> next{nullptr};
};
static_assert(std::atomic<char*>::is_always_lock_free);
TemporaryBlock g_first_block;
// The empty slots, for registration in constant time; only ever touched with the signals blocked, never by the
// handler. Its capacity is every slot's, so that a slot given back never needs memory.
std::vector<std::atomic<char*>*> g_free_slots;

TemporaryBlock* g_last_block = nullptr;  // nullptr until the first registration takes g_first_block
std::size_t g_blocks = 0;

std::atomic<char*>* take_free_slot() {
  if (g_free_slots.empty()) {
    g_free_slots.reserve((g_blocks + 1) * kSlotsPerBlock);
    TemporaryBlock* fresh = g_last_block == nullptr ? &g_first_block : new TemporaryBlock;
    if (g_last_block != nullptr) g_last_block->next.store(fresh);
    g_last_block = fresh;
    ++g_blocks;
    for (int i = kSlotsPerBlock; i-- > 0;) g_free_slots.push_back(&fresh->paths[i]);
  }
  std::atomic<char*>* slot = g_free_slots.back();
  g_free_slots.pop_back();
  return slot;
}

// The child process an interrupt ends too (stop_child_on_interrupt); 0: none. Lock-free, so the handler may read it.
std::atomic<pid_t> g_child{0};
static_assert(std::atomic<pid_t>::is_always_lock_free);

void on_interrupt(int signal_number) {
  // kill and waitpid are async-signal-safe: the child is gone, not a zombie, before this process is. A child that
  // leads its own process group takes what it started with it.
  if (const pid_t child = g_child.load(); child > 0 && (::kill(-child, SIGKILL) == 0 || ::kill(child, SIGKILL) == 0)) {
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  for (const TemporaryBlock* block = &g_first_block; block != nullptr; block = block->next.load()) {
    for (const auto& slot : block->paths) {
      if (const char* path = slot.load(); path != nullptr) ::unlink(path);
    }
  }
  ::_exit(128 + signal_number);  // async-signal-safe, unlike exit()
}

// Symlinks followed before giving up, as the kernel does (ELOOP).
constexpr int kMaxSymlinkHops = 40;

// An ostream's buffer over a file descriptor that keeps the first errno a write() gave: std::ofstream only says
// that something failed, never what (a full disk and a vanished folder read the same).
class FdStreambuf : public std::streambuf {
 public:
  explicit FdStreambuf(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    if (error_ != 0) return false;
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return false;
      }
      p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return true;
  }

  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

// Writes through `fd`; flush, fsync (where the file is one that can be synced) and close are each checked, and
// `fd` is closed whatever happens.
void write_and_close(int fd, const std::filesystem::path& shown, bool sync,
                     const std::function<void(std::ostream&)>& write) {
  int error = 0;
  try {
    FdStreambuf buffer(fd);
    std::ostream out(&buffer);
    write(out);
    out.flush();
    error = buffer.error() != 0 ? buffer.error() : (out ? 0 : EIO);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (error == 0 && sync && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0 && errno != EINTR) error = errno;
  if (error != 0) write_failed_errno(shown, error);
}

}  // namespace

void write_failed(const std::filesystem::path& shown, const std::string& reason) {
  throw InputError(fmt::format("cannot write '{}': {}", shown.string(), reason));
}

void write_failed_errno(const std::filesystem::path& shown, int error_number) {
  write_failed(shown, std::strerror(error_number));
}

OutputTarget resolve_output(const std::filesystem::path& path) {
  OutputTarget target;
  target.file = path;
  struct stat info {};
  for (int hops = 0;; ++hops) {
    if (::lstat(target.file.c_str(), &info) != 0) {
      if (errno != ENOENT) write_failed_errno(path, errno);
      return target;  // absent
    }
    if (!S_ISLNK(info.st_mode)) break;
    if (hops == kMaxSymlinkHops) write_failed_errno(path, ELOOP);
    std::error_code error;
    const std::filesystem::path link = std::filesystem::read_symlink(target.file, error);
    if (error) write_failed(path, error.message());
    target.file = link.is_absolute() ? link : target.file.parent_path() / link;
  }
  if (S_ISREG(info.st_mode)) {
    target.kind = OutputKind::regular;
    target.mode = info.st_mode & 07777;
  } else {
    target.kind = S_ISFIFO(info.st_mode) || S_ISCHR(info.st_mode) ? OutputKind::write_through : OutputKind::refused;
    target.what = non_regular_kind(target.file);
  }
  return target;
}

std::filesystem::path temporary_beside(const std::filesystem::path& file, const char* suffix) {
  return file.string() + fmt::format(".{}{}", suffix, ::getpid());
}

void write_new_file(const std::filesystem::path& file, const std::filesystem::path& shown, mode_t mode,
                    const std::function<void(std::ostream&)>& write) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0) write_failed_errno(shown, errno);
  if (mode != 0) (void)::fchmod(fd, mode);  // best effort: a file the user made read-only for others stays so
  write_and_close(fd, shown, true, write);
}

void write_through(const std::filesystem::path& file, const std::filesystem::path& shown,
                   const std::function<void(std::ostream&)>& write) {
  // Replacing /dev/null or a FIFO by a rename would destroy it for everyone: write into it instead. A FIFO's open
  // waits for a reader, as a shell's redirection does.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) write_failed_errno(shown, errno);
  write_and_close(fd, shown, false, write);
}

RegisteredTemporary::RegisteredTemporary(const std::filesystem::path& path) {
  const std::string& text = path.native();
  auto copy = std::make_unique<char[]>(text.size() + 1);
  std::memcpy(copy.get(), text.c_str(), text.size() + 1);
  const SignalsBlocked blocked;
  slot_ = take_free_slot();
  slot_->store(copy.release());
}

RegisteredTemporary::~RegisteredTemporary() {
  const SignalsBlocked blocked;
  delete[] slot_->exchange(nullptr);
  g_free_slots.push_back(slot_);  // within its capacity: no allocation, no exception
}

SignalsBlocked::SignalsBlocked() {
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &previous_);
}

SignalsBlocked::~SignalsBlocked() {
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace output_detail

using namespace output_detail;

namespace {

[[noreturn]] void fail_at(std::string_view flag, const std::string& message) {
  throw InputError(message, SourceLocation{std::string(flag)});
}

// The folder a new file goes into (or a regular file is replaced in) must exist and take new entries.
void check_folder_takes_files(const std::filesystem::path& folder, const std::filesystem::path& shown,
                              std::string_view flag) {
  const std::filesystem::path dir = folder.empty() ? "." : folder;
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) {
    fail_at(flag, fmt::format("cannot write '{}': folder '{}' {}", shown.string(), dir.string(),
                              errno == ENOENT ? "does not exist" : std::strerror(errno)));
  }
  if (!S_ISDIR(info.st_mode)) {
    fail_at(flag, fmt::format("cannot write '{}': '{}' is not a folder", shown.string(), dir.string()));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    fail_at(flag, fmt::format("cannot write '{}': folder '{}' is not writable ({})", shown.string(), dir.string(),
                              std::strerror(errno)));
  }
}

}  // namespace

void exit_cleanly_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A write past the file-size limit (ulimit -f) would kill the process with SIGXFSZ and leave its temporary
  // behind; ignored, the write fails with EFBIG instead, and that is reported and cleaned up like any write error.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

void stop_child_on_interrupt(pid_t pid) {
  g_child.store(pid);
}

namespace {
// std::cout's buffer once check_standard_output_writes() has run; never freed, since std::cout is flushed at exit
// after every static object is gone.
FdStreambuf* g_standard_output = nullptr;
}  // namespace

void check_standard_output_writes() {
  // A terminal keeps the standard library's line buffering: what a user watches appears line by line. A file or a
  // pipe is fully buffered either way.
  if (::isatty(STDOUT_FILENO) == 1 || g_standard_output != nullptr) return;
  std::cout.flush();
  g_standard_output = new FdStreambuf(STDOUT_FILENO);
  std::cout.rdbuf(g_standard_output);
}

int finish_standard_output(int code) {
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return code;
  const int error = g_standard_output != nullptr ? g_standard_output->error() : 0;
  std::cerr << "syncsim: error: cannot write the standard output" << (error != 0 ? ": " : "")
            << (error != 0 ? std::strerror(error) : "") << '\n';
  return 2;
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  const OutputTarget target = resolve_output(path);
  if (target.kind == OutputKind::refused) write_failed(path, fmt::format("it is {}", target.what));
  if (target.kind == OutputKind::write_through) return write_through(target.file, path, write);
  const std::filesystem::path temporary = temporary_beside(target.file, "tmp");
  const RegisteredTemporary registered(temporary);
  try {
    write_new_file(temporary, path, target.mode, write);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  const SignalsBlocked blocked;
  if (::rename(temporary.c_str(), target.file.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    write_failed_errno(path, error);
  }
}

void check_output_file(const std::filesystem::path& path, std::string_view flag) {
  OutputTarget target;
  try {
    target = resolve_output(path);
  } catch (const InputError& e) {
    throw e.at(SourceLocation{std::string(flag)});
  }
  if (target.kind == OutputKind::refused) {
    fail_at(flag, fmt::format("cannot write '{}': it is {}", path.string(), target.what));
  }
  if (target.kind == OutputKind::write_through) {
    if (::access(target.file.c_str(), W_OK) != 0) {
      fail_at(flag, fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
    }
    return;
  }
  check_folder_takes_files(target.file.parent_path(), path, flag);
}

void check_output_dir(const std::filesystem::path& dir, std::string_view flag, const std::vector<std::string>& files) {
  // The nearest folder that exists: create_directories makes the rest, so it alone must take new entries.
  std::filesystem::path existing = dir.empty() ? "." : dir;
  struct stat info {};
  while (::stat(existing.c_str(), &info) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) {
      fail_at(flag, fmt::format("cannot create '{}': {}", dir.string(), std::strerror(errno)));
    }
    const std::filesystem::path parent = existing.parent_path();
    if (parent == existing || parent.empty()) {
      existing = parent.empty() ? "." : parent;
      if (::stat(existing.c_str(), &info) != 0) fail_at(flag, fmt::format("cannot create '{}'", dir.string()));
      break;
    }
    existing = parent;
  }
  if (!S_ISDIR(info.st_mode)) {
    fail_at(flag, existing == dir
                      ? fmt::format("cannot write into '{}': it is not a folder", dir.string())
                      : fmt::format("cannot create '{}': '{}' is not a folder", dir.string(), existing.string()));
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    fail_at(flag, fmt::format("cannot write into '{}': folder '{}' is not writable ({})", dir.string(),
                              existing.string(), std::strerror(errno)));
  }
  if (existing != dir) return;  // a folder still to be made holds nothing
  for (const std::string& name : files) {
    const std::filesystem::path file = dir / name;
    try {
      const OutputTarget target = resolve_output(file);
      if (target.kind == OutputKind::refused) write_failed(file, fmt::format("it is {}", target.what));
    } catch (const InputError& e) {
      throw e.at(SourceLocation{std::string(flag)});
    }
  }
}

}  // namespace syncsim
