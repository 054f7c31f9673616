#pragma once
// SpecialFiles: what a hostile or careless user hands a file reader instead of a regular file, made once per test in
// a fresh temporary folder and removed with it.
//
//   const SpecialFiles files;
//   CHECK_THROWS_WITH(read_dot(files.directory("x.dot")), Contains("it is a directory"));
//   const ReadOutcome fifo = read_outcome([&] { read_dot(files.fifo("x.dot")); }, files.fifo("x.dot"));
//   CHECK(fifo.kind == ReadOutcome::Kind::input_error);                  // and never blocked
//   CHECK_THROWS_WITH(read_dot(SpecialFiles::zero_device()), Contains("character device"));
//   read_dot(files.symlink_to("g.dot", text));                            // a link reads its target
//
// The FIFO has no writer. A reader that opens it for reading blocks until one comes, forever, and a test of such a
// reader would hang instead of failing. read_outcome() therefore runs the reader on a thread and waits a while; if
// the reader is still running, it opens and closes the FIFO's write end (O_RDWR never blocks on Linux), which
// wakes the reader's open and ends its read with end-of-file, and reports that the reader blocked. The test fails
// with a message instead of hanging.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/core/input_error.hpp"

namespace syncsim::test_support {

class SpecialFiles {
 public:
  SpecialFiles() : root_(fresh_folder()) {
    std::filesystem::create_directories(root_ / "a-directory.yaml");  // an extension a reader would accept
    fifo_ = root_ / "a-fifo.yaml";
    if (::mkfifo(fifo_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed for " + fifo_.string());
  }
  ~SpecialFiles() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  SpecialFiles(const SpecialFiles&) = delete;
  SpecialFiles& operator=(const SpecialFiles&) = delete;

  const std::filesystem::path& root() const { return root_; }

  // A directory named NAME inside the folder (a name with the extension a reader checks: "x.dot").
  std::filesystem::path directory(std::string_view name = "a-directory.yaml") const {
    const std::filesystem::path path = root_ / std::string(name);
    std::filesystem::create_directories(path);
    return path;
  }

  // A FIFO named NAME (created on first use; "a-fifo.yaml" exists from the start).
  std::filesystem::path fifo(std::string_view name = "a-fifo.yaml") const {
    const std::filesystem::path path = root_ / std::string(name);
    if (!std::filesystem::exists(path) && ::mkfifo(path.c_str(), 0600) != 0) {
      throw std::runtime_error("mkfifo failed for " + path.string());
    }
    return path;
  }

  // /dev/zero: endless, a character device; a reader without a size cap reads it until memory runs out.
  static std::filesystem::path zero_device() { return "/dev/zero"; }

  // A regular file NAME holding TEXT, and a symlink LINK_NAME to it; returns the link.
  std::filesystem::path symlink_to(std::string_view name, std::string_view text,
                                   std::string_view link_name = {}) const {
    const std::filesystem::path target = write(name, text);
    const std::filesystem::path link =
        root_ / (link_name.empty() ? "link-to-" + std::string(name) : std::string(link_name));
    std::filesystem::remove(link);
    std::filesystem::create_symlink(target, link);
    return link;
  }

  // A regular file NAME holding TEXT.
  std::filesystem::path write(std::string_view name, std::string_view text) const {
    const std::filesystem::path path = root_ / std::string(name);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return path;
  }

 private:
  static std::filesystem::path fresh_folder() {
    static std::atomic<int> counter{0};
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("syncsim-special-files-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    return path;
  }
  std::filesystem::path root_;
  std::filesystem::path fifo_;
};

// What a reader did with a special file: threw InputError (with its one-line message), threw something else, returned,
// or blocked (see the top of the file).
struct ReadOutcome {
  enum class Kind { input_error, other_exception, returned, blocked } kind = Kind::returned;
  std::string message;  // InputError's what(), or the other exception's
};

inline std::string to_string(const ReadOutcome& outcome) {
  switch (outcome.kind) {
    case ReadOutcome::Kind::input_error:
      return "InputError: " + outcome.message;
    case ReadOutcome::Kind::other_exception:
      return "another exception: " + outcome.message;
    case ReadOutcome::Kind::returned:
      return "it returned without an error";
    case ReadOutcome::Kind::blocked:
      return "it blocked (a FIFO opened for reading?)";
  }
  return "?";
}

// Runs read() and says what it did. `fifo`, when given, is unblocked should read() still run after `patience`.
template <typename Read>
ReadOutcome read_outcome(Read read, const std::filesystem::path& fifo = {},
                         std::chrono::milliseconds patience = std::chrono::seconds(10)) {
  auto done = std::async(std::launch::async, [read]() -> ReadOutcome {
    try {
      read();
    } catch (const InputError& error) {
      return {ReadOutcome::Kind::input_error, error.what()};
    } catch (const std::exception& error) {
      return {ReadOutcome::Kind::other_exception, error.what()};
    }
    return {};
  });
  if (done.wait_for(patience) == std::future_status::ready) return done.get();
  // Again and again: the reader may reach its open() only after the first writer came and went.
  while (done.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready && !fifo.empty()) {
    const int fd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
  }
  done.wait();
  return {ReadOutcome::Kind::blocked, ""};
}

}  // namespace syncsim::test_support
