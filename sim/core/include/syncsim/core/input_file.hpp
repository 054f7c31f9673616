#pragma once
// read_input_file: the one way a reader gets the bytes of a file the user named (scenario, topology file, nccl-tests
// log, calibration, prices, a sweep table to resume).
//
//   const std::string text = read_input_file(path, "nccl-tests log");
//
// Only a regular file (or a symlink to one) is read. A directory, FIFO, device or socket is refused at once with a
// message saying what it is, before it is opened: a FIFO would block forever and /dev/zero would be read until
// memory runs out. A file larger than `max_bytes` is refused too, and the check does not trust the size the file
// system reports (a file in /proc says 0 and a growing file says less than it will give): at most max_bytes + 1
// bytes are ever read. Errors are InputError at the path, line 0: "PATH: cannot open the WHAT: No such file or
// directory", "PATH: cannot read the WHAT: it is a directory, not a regular file".
//
// The text is returned as the readers want it: a UTF-8 byte-order mark at the start is dropped (editors on Windows
// write one, and it is not part of any format), and old Mac line endings (a CR not followed by LF) become LF, byte
// for byte, so lines are counted the same way whatever wrote the file and columns stay where they were.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "syncsim/core/input_error.hpp"

namespace syncsim {

// 256 MiB: ten times the largest real input seen (a 1,000-rank nccl-tests log with every size), and little enough
// that a reader's own structures for it still fit in a laptop's memory.
inline constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{256} << 20;

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes = kMaxInputFileBytes);
// The same checks and limit for a binary format (a Chakra execution trace): the bytes as they are, not normalized.
std::string read_input_bytes(const std::filesystem::path& path, std::string_view what,
                             std::uint64_t max_bytes = kMaxInputFileBytes);

// The text as read_input_file returns it: without a leading UTF-8 byte-order mark, a lone CR turned into LF. The
// readers' text entry points (parse_scenario, read_dot_text, parse_nccl_tests_log, ...) apply it too, so text that
// did not come from a file (a test, a fuzzer, a GUI buffer) reads the same; text that needs nothing is not copied.
bool needs_normalizing(std::string_view text);
std::string normalized_input_text(std::string_view text);

// Where text stops being text a reader can show: the offset of its first byte that is not part of valid UTF-8 (a
// Latin-1 'é', a stray 0xFF) or is NUL, which C strings and terminals cut messages at; nullopt when there is none.
// YAML is UTF-8 by definition, so the scenario reader refuses such a file at that byte.
std::optional<std::size_t> first_invalid_text_byte(std::string_view text);

// The 1-based line and column of byte `offset` (0-based) of `text`, as a reader's errors give a place in it.
SourceLocation location_of_byte(std::string_view text, std::size_t offset, const std::string& source);

// What a path is when it is not a regular file ("a directory", "a FIFO (named pipe)", "a character device", ...),
// or an empty string when it is one or does not exist. Used by outputs too, which write through to such targets.
std::string non_regular_kind(const std::filesystem::path& path);

}  // namespace syncsim
