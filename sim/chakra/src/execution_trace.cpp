// What does not depend on protobuf: names, the file name, reading a file.
#include <fmt/format.h>

#include <array>

#include "syncsim/chakra/execution_trace.hpp"
#include "syncsim/core/input_file.hpp"

namespace syncsim::chakra {

std::string to_string(NodeKind kind) {
  static constexpr std::array<const char*, 8> kNames = {"INVALID_NODE",   "METADATA_NODE", "MEM_LOAD_NODE",
                                                        "MEM_STORE_NODE", "COMP_NODE",     "COMM_SEND_NODE",
                                                        "COMM_RECV_NODE", "COMM_COLL_NODE"};
  const auto index = static_cast<std::int64_t>(kind);
  if (index >= 0 && index < static_cast<std::int64_t>(kNames.size())) return kNames[static_cast<std::size_t>(index)];
  return fmt::format("node type {}", index);
}

std::string to_string(CollectiveKind kind) {
  static constexpr std::array<const char*, 10> kNames = {
      "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
      "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
  const auto index = static_cast<std::int64_t>(kind);
  if (index >= 0 && index < static_cast<std::int64_t>(kNames.size())) return kNames[static_cast<std::size_t>(index)];
  return fmt::format("collective type {}", index);
}

ExecutionTrace read_execution_trace(const std::filesystem::path& path) {
  return decode_execution_trace(read_input_bytes(path, "Chakra execution trace"), path.string());
}

std::string execution_trace_file_name(const std::string& prefix, std::int64_t rank) {
  return fmt::format("{}.{}.et", prefix, rank);
}

std::optional<std::int64_t> execution_trace_file_rank(const std::string& prefix, const std::string& name) {
  const std::string head = prefix + ".";
  const std::string tail = ".et";
  if (name.size() <= head.size() + tail.size() || !name.starts_with(head) || !name.ends_with(tail)) return std::nullopt;
  const std::string digits = name.substr(head.size(), name.size() - head.size() - tail.size());
  // Ranks as execution_trace_file_name writes them: decimal, no sign or leading zero, within 18 digits.
  if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos ||
      (digits.size() > 1 && digits[0] == '0')) {
    return std::nullopt;
  }
  return std::stoll(digits);
}

}  // namespace syncsim::chakra
