#pragma once
// Line-level pieces of the nccl-tests log reader: tokens with their columns, strict numbers, and the parsers of
// one rank line, one table header and one table row. Each throws InputError naming line, column and column name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/validation/nccl_tests_log.hpp"

namespace syncsim::nccl_tests_detail {

struct Token {
  std::string_view text;
  int column = 0;  // 1-based
};

// Whitespace-separated tokens of one line (spaces and tabs; a trailing '\r' is whitespace too).
std::vector<Token> tokenize(std::string_view line);
// The tokens of a `#` comment line without the `#`, or nullopt when the line is not a comment.
std::optional<std::vector<Token>> comment_tokens(std::string_view line);

// Where a line sits in its source, to build errors.
struct LineRef {
  const std::string* source = nullptr;
  int line = 0;
  [[noreturn]] void fail(int column, const std::string& key, const std::string& message) const;
};

std::int64_t parse_integer(const Token& token, const LineRef& where, const std::string& key);
double parse_decimal(const Token& token, const LineRef& where, const std::string& key);

// `Rank 3 Group 0 Pid 10003 on node-00 device 3 [0x37] NVIDIA A100-SXM4-40GB` (tokens after the `#`); older
// logs have no `Group`.
NcclTestsRank parse_rank_line(const std::vector<Token>& tokens, std::string_view line, const LineRef& where);

// The column layout from `size count type redop [root] time algbw busbw #wrong|error time ...`; throws for a
// header that is neither generation's.
NcclTestsLayout parse_table_header(const std::vector<Token>& tokens, const LineRef& where);
std::size_t column_count(NcclTestsLayout layout);

// One data row in the given layout.
NcclTestsRow parse_row(const std::vector<Token>& tokens, NcclTestsLayout layout, const LineRef& where);

// A row, as opposed to other output that lands inside a table (NCCL INFO lines, warnings): no `NCCL` token, and
// its first token is a plain number, or starts with a digit on a line of the table's column count.
bool looks_like_row(const std::vector<Token>& tokens, NcclTestsLayout layout);

}  // namespace syncsim::nccl_tests_detail
