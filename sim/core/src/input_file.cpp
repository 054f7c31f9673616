#include "syncsim/core/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

// Closes the descriptor on every path out of read_input_bytes.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

void normalize_text(std::string& text) {
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) text[i] = '\n';
  }
}

}  // namespace

bool needs_normalizing(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) return true;
  for (std::size_t cr = text.find('\r'); cr != std::string_view::npos; cr = text.find('\r', cr + 1)) {
    if (cr + 1 == text.size() || text[cr + 1] != '\n') return true;
  }
  return false;
}

std::string normalized_input_text(std::string_view text) {
  std::string out(text);
  normalize_text(out);
  return out;
}

std::string non_regular_kind(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return "";
  return kind_of(info.st_mode);
}

std::string read_input_bytes(const std::filesystem::path& path, std::string_view what, std::uint64_t max_bytes) {
  const std::string name = path.string();
  const auto fail = [&](const std::string& reason) {
    return InputError(fmt::format("cannot read the {}: {}", what, reason), SourceLocation{name, 0, 0});
  };
  // stat before open: opening a FIFO for reading blocks until a writer comes, which may be never.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw InputError(fmt::format("cannot open the {}: {}", what, std::strerror(errno)), SourceLocation{name, 0, 0});
  }
  if (const std::string kind = kind_of(info.st_mode); !kind.empty()) {
    throw fail(fmt::format("it is {}, not a regular file", kind));
  }
  const auto too_large = [&] { return fail(fmt::format("it is larger than {}, the limit", format_bytes(max_bytes))); };
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) throw too_large();
  // O_NONBLOCK: should the path have become a FIFO since the stat, the open still returns at once.
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    throw InputError(fmt::format("cannot open the {}: {}", what, std::strerror(errno)), SourceLocation{name, 0, 0});
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(std::strerror(errno));
    if (n == 0) break;
    if (text.size() + static_cast<std::uint64_t>(n) > max_bytes) throw too_large();
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

std::string read_input_file(const std::filesystem::path& path, std::string_view what, std::uint64_t max_bytes) {
  std::string text = read_input_bytes(path, what, max_bytes);
  normalize_text(text);
  return text;
}

std::optional<std::size_t> first_invalid_text_byte(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = byte(i);
    if (lead == 0) return i;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The second byte's range depends on the lead (no overlong forms, no surrogates, nothing past U+10FFFF).
    std::size_t continuation = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      continuation = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      continuation = 2;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      continuation = 3;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    for (std::size_t k = 1; k <= continuation; ++k) {
      if (i + k >= text.size()) return i;
      const unsigned char next = byte(i + k);
      if (k == 1 ? (next < low || next > high) : (next < 0x80 || next > 0xBF)) return i;
    }
    i += continuation + 1;
  }
  return std::nullopt;
}

SourceLocation location_of_byte(std::string_view text, std::size_t offset, const std::string& source) {
  const std::string_view before = text.substr(0, std::min(offset, text.size()));
  const std::size_t newline = before.rfind('\n');
  const std::size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  return SourceLocation{source, static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1,
                        static_cast<int>(before.size() - line_start) + 1};
}

}  // namespace syncsim
