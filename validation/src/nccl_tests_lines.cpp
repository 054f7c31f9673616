#include "nccl_tests_lines.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <optional>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"

namespace syncsim::nccl_tests_detail {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Column names of each layout, as the errors and the header check use them.
constexpr std::array<std::string_view, 13> kWithRoot{"size",  "count",  "type", "redop", "root",  "time",  "algbw",
                                                     "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
constexpr std::array<std::string_view, 12> kWithoutRoot{"size",  "count", "type", "redop", "time",  "algbw",
                                                        "busbw", "error", "time", "algbw", "busbw", "error"};

std::string describe(NcclTestsLayout layout) {
  return layout == NcclTestsLayout::with_root
             ? "size count type redop root, then time algbw busbw #wrong out-of-place and in-place"
             : "size count type redop, then time algbw busbw error out-of-place and in-place";
}

NcclTestsPlacement parse_placement(const std::vector<Token>& tokens, std::size_t first, const char* placement,
                                   std::string_view check_name, const LineRef& where) {
  const auto key = [&](std::string_view name) { return fmt::format("{}.{}", placement, name); };
  NcclTestsPlacement p;
  p.time_us = parse_decimal(tokens[first], where, key("time"));
  // No collective was timed past the simulated clock's 106 days (2^63 ps); validate could not simulate it, and
  // calibrate would write it into a calibration (found by fuzzing: a row of 1e308 us).
  constexpr double kMaxTimeUs = 9.2e12;
  if (p.time_us > kMaxTimeUs) {
    where.fail(tokens[first].column, key("time"),
               fmt::format("{} us is past the 106 days a time may be (the simulated clock's)", tokens[first].text));
  }
  p.algbw_gbps = parse_decimal(tokens[first + 1], where, key("algbw"));
  p.busbw_gbps = parse_decimal(tokens[first + 2], where, key("busbw"));
  if (tokens[first + 3].text != "N/A") p.wrong = parse_decimal(tokens[first + 3], where, key(check_name));
  return p;
}

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t begin = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > begin) tokens.push_back({line.substr(begin, i - begin), static_cast<int>(begin) + 1});
  }
  return tokens;
}

std::optional<std::vector<Token>> comment_tokens(std::string_view line) {
  std::vector<Token> tokens = tokenize(line);
  if (tokens.empty() || tokens.front().text.front() != '#') return std::nullopt;
  Token& first = tokens.front();
  first.text.remove_prefix(1);
  ++first.column;
  if (first.text.empty()) tokens.erase(tokens.begin());
  return tokens;
}

void LineRef::fail(int column, const std::string& key, const std::string& message) const {
  throw InputError(message, SourceLocation{*source, line, column}, key);
}

std::int64_t parse_integer(const Token& token, const LineRef& where, const std::string& key) {
  std::int64_t value = 0;
  const char* end = token.text.data() + token.text.size();
  const auto [ptr, ec] = std::from_chars(token.text.data(), end, value);
  if (ec != std::errc{} || ptr != end) {
    where.fail(token.column, key, fmt::format("expected a whole number, got '{}'", token.text));
  }
  return value;
}

double parse_decimal(const Token& token, const LineRef& where, const std::string& key) {
  double value = 0;
  const char* end = token.text.data() + token.text.size();
  const auto [ptr, ec] = std::from_chars(token.text.data(), end, value);
  if (ec != std::errc{} || ptr != end || !std::isfinite(value)) {
    where.fail(token.column, key, fmt::format("expected a number, got '{}'", token.text));
  }
  if (value < 0) where.fail(token.column, key, fmt::format("expected a number of at least 0, got '{}'", token.text));
  return value;
}

NcclTestsRank parse_rank_line(const std::vector<Token>& tokens, std::string_view line, const LineRef& where) {
  const auto bad = [&](int column) {
    where.fail(column, "rank", "malformed rank line: expected '#  Rank N Group G Pid P on HOST device D [BUSID] NAME'");
  };
  const auto find = [&](std::string_view word) -> std::size_t {
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
      if (tokens[i].text == word) return i + 1;
    }
    bad(tokens.back().column + static_cast<int>(tokens.back().text.size()));
    return 0;
  };
  NcclTestsRank rank;
  if (tokens.size() < 2) bad(tokens.front().column);
  const std::int64_t number = parse_integer(tokens[1], where, "rank");
  if (number < 0) where.fail(tokens[1].column, "rank", "expected a rank number from 0");
  if (number >= kMaxNcclTestsRanks) {
    where.fail(tokens[1].column, "rank",
               fmt::format("rank {} is beyond the {} ranks a log may have (the largest topology syncsim builds)",
                           number, kMaxNcclTestsRanks));
  }
  rank.rank = static_cast<int>(number);
  rank.pid = parse_integer(tokens[find("Pid")], where, "pid");
  rank.host = std::string(tokens[find("on")].text);
  const std::size_t device = find("device");
  rank.device = static_cast<int>(parse_integer(tokens[device], where, "device"));
  if (device + 1 < tokens.size()) {
    const Token& bus = tokens[device + 1];
    if (bus.text.size() < 2 || bus.text.front() != '[' || bus.text.back() != ']') bad(bus.column);
    rank.bus_id = std::string(bus.text.substr(1, bus.text.size() - 2));
    if (device + 2 < tokens.size()) {
      std::string_view name = line.substr(static_cast<std::size_t>(tokens[device + 2].column - 1));
      while (!name.empty() && is_space(name.back())) name.remove_suffix(1);
      // Written into calibration files and reports as it is: text, or refused here at its byte.
      if (const std::optional<std::size_t> invalid = first_invalid_text_byte(name)) {
        where.fail(tokens[device + 2].column + static_cast<int>(*invalid), "device",
                   "the device name is not UTF-8 text");
      }
      rank.device_name = std::string(name);
    }
  }
  return rank;
}

NcclTestsLayout parse_table_header(const std::vector<Token>& tokens, const LineRef& where) {
  const auto matches = [&](const auto& names) {
    if (tokens.size() != names.size()) return false;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (tokens[i].text != names[i]) return false;
    }
    return true;
  };
  if (matches(kWithRoot)) return NcclTestsLayout::with_root;
  if (matches(kWithoutRoot)) return NcclTestsLayout::without_root;
  std::string got;
  for (const Token& t : tokens) {
    if (!got.empty()) got += ' ';
    got += t.text;
  }
  where.fail(tokens.front().column, "table header",
             fmt::format("unknown table header '{}': expected '{}' or the older '{}'", got, fmt::join(kWithRoot, " "),
                         fmt::join(kWithoutRoot, " ")));
}

std::size_t column_count(NcclTestsLayout layout) {
  return layout == NcclTestsLayout::with_root ? kWithRoot.size() : kWithoutRoot.size();
}

bool looks_like_row(const std::vector<Token>& tokens, NcclTestsLayout layout) {
  if (tokens.empty()) return false;
  // NCCL's own lines ("host:pid:tid [0] NCCL INFO ...") can have a table's column count, and hosts may start
  // with a digit.
  for (const Token& t : tokens) {
    if (t.text == "NCCL") return false;
  }
  const std::string_view first = tokens.front().text;
  return all_digits(first) || (first.front() >= '0' && first.front() <= '9' && tokens.size() == column_count(layout));
}

NcclTestsRow parse_row(const std::vector<Token>& tokens, NcclTestsLayout layout, const LineRef& where) {
  const std::size_t expected = column_count(layout);
  if (tokens.size() != expected) {
    where.fail(tokens.empty() ? 1 : tokens.front().column, "row",
               fmt::format("a row of {} columns where the table has {} ({}): the row is half-written or garbled",
                           tokens.size(), expected, describe(layout)));
  }
  NcclTestsRow row;
  row.line = where.line;
  row.size_bytes = parse_integer(tokens[0], where, "size");
  row.count = parse_integer(tokens[1], where, "count");
  if (row.size_bytes < 0) where.fail(tokens[0].column, "size", "expected a size of at least 0");
  if (row.count < 0) where.fail(tokens[1].column, "count", "expected a count of at least 0");
  row.type = std::string(tokens[2].text);
  row.redop = std::string(tokens[3].text);
  std::size_t next = 4;
  if (layout == NcclTestsLayout::with_root) {
    const std::int64_t root = parse_integer(tokens[4], where, "root");
    if (root < -1 || root >= kMaxNcclTestsRanks) where.fail(tokens[4].column, "root", "expected -1 or a rank");
    row.root = static_cast<int>(root);
    next = 5;
  }
  const std::string_view check = layout == NcclTestsLayout::with_root ? "#wrong" : "error";
  row.out_of_place = parse_placement(tokens, next, "out-of-place", check, where);
  row.in_place = parse_placement(tokens, next + 4, "in-place", check, where);
  return row;
}

}  // namespace syncsim::nccl_tests_detail
