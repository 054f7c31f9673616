#include "syncsim/validation/nccl_tests_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "nccl_tests_checks.hpp"
#include "nccl_tests_lines.hpp"
#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"

namespace syncsim {

using nccl_tests_detail::LineRef;
using nccl_tests_detail::Token;

namespace {

bool starts_with_words(const std::vector<Token>& tokens, std::initializer_list<std::string_view> words) {
  if (tokens.size() < words.size()) return false;
  std::size_t i = 0;
  for (const std::string_view word : words) {
    if (tokens[i++].text != word) return false;
  }
  return true;
}

// The text after the first ':' of a footer line, as tokens of their own.
std::vector<Token> after_colon(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return {};
  std::vector<Token> tokens = nccl_tests_detail::tokenize(line.substr(colon + 1));
  for (Token& t : tokens) t.column += static_cast<int>(colon) + 1;
  return tokens;
}

// Reads a log line by line. The table starts at its header line and ends at the footer; what is around it is
// either recognised header (rank lines, parameters, the collective's name) or ignored (NCCL's own INFO lines).
class LogReader {
 public:
  LogReader(std::string source, const NcclTestsReadOptions& options) : options_(options) {
    log_.source = std::move(source);
  }

  void add_line(std::string_view line, int number) {
    const LineRef where{&log_.source, number};
    if (const auto comment = nccl_tests_detail::comment_tokens(line)) {
      add_comment(*comment, line, where);
      return;
    }
    const std::vector<Token> tokens = nccl_tests_detail::tokenize(line);
    note_nccl_statement(tokens);
    if (tokens.empty() || table_line_ == 0) return;  // before the table: launcher and NCCL output
    if (!nccl_tests_detail::looks_like_row(tokens, log_.layout)) {
      if (footer_line_ == 0 && ignored_in_table_++ == 0) first_ignored_ = number;
      return;
    }
    if (footer_line_ != 0) {
      where.fail(tokens.front().column, "row",
                 fmt::format("a row after the table's footer (line {}): two logs in one file?", footer_line_));
    }
    log_.rows.push_back(nccl_tests_detail::parse_row(tokens, log_.layout, where));
  }

  NcclTestsLog finish() {
    const LineRef table{&log_.source, table_line_};
    if (table_line_ == 0) {
      throw InputError("no nccl-tests table: no '#  size  count  type  redop ...' header line",
                       SourceLocation{log_.source, 0, 0});
    }
    if (log_.rows.empty()) table.fail(0, "", "the table has no rows: the log ends (or its footer comes) before any");
    if (footer_line_ == 0) {
      log_.warnings.push_back(
          fmt::format("no footer ('# Avg bus bandwidth') after the last row (line {}): the log may be truncated",
                      log_.rows.back().line));
    }
    if (ignored_in_table_ > 0) {
      log_.warnings.push_back(fmt::format("ignored {} line(s) inside the table that are not rows, the first at line {}",
                                          ignored_in_table_, first_ignored_));
    }
    resolve_ranks(table);
    log_.collective = nccl_tests_detail::decide_collective(log_, options_.collective, named_op_, table);
    nccl_tests_detail::check_rows(log_);
    nccl_tests_detail::remove_duplicates(log_);
    nccl_tests_detail::check_results(log_);
    return std::move(log_);
  }

 private:
  // "NCCL version 2.18.5+cuda12.2" and "... NCCL INFO NCCL_X set by environment to VALUE": the calibration's domain
  // records them (calibration_domain.hpp).
  void note_nccl_statement(const std::vector<Token>& tokens) {
    for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
      if (tokens[i].text == "NCCL" && tokens[i + 1].text == "version" && log_.nccl_version.empty()) {
        log_.nccl_version = std::string(tokens[i + 2].text);
      }
    }
    for (std::size_t i = 1; i + 4 < tokens.size(); ++i) {
      if (tokens[i].text == "set" && tokens[i + 1].text == "by" && tokens[i + 2].text == "environment" &&
          tokens[i + 3].text == "to" && tokens[i - 1].text.starts_with("NCCL_")) {
        const std::string setting = fmt::format("{}={}", tokens[i - 1].text, tokens[i + 4].text);
        if (std::find(log_.nccl_env.begin(), log_.nccl_env.end(), setting) == log_.nccl_env.end()) {
          log_.nccl_env.push_back(setting);
        }
      }
    }
  }

  void add_comment(const std::vector<Token>& tokens, std::string_view line, const LineRef& where) {
    if (tokens.empty()) return;
    if (starts_with_words(tokens, {"Collective", "test", "starting:"}) && tokens.size() >= 4) {
      named_op_ = collective_from_test_name(tokens[3].text);
      if (!named_op_) {
        where.fail(tokens[3].column, "collective",
                   fmt::format("unsupported nccl-tests program '{}': expected all_reduce_perf, reduce_scatter_perf, "
                               "all_gather_perf, broadcast_perf, reduce_perf or alltoall_perf",
                               tokens[3].text));
      }
    } else if (tokens.front().text == "nThread") {
      std::string_view rest = line.substr(static_cast<std::size_t>(tokens.front().column - 1));
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r' || rest.back() == '\t')) rest.remove_suffix(1);
      log_.parameters = std::string(rest);
    } else if (tokens.front().text == "Rank") {
      if (footer_line_ != 0) second_log(tokens.front(), where);
      if (table_line_ != 0) where.fail(tokens.front().column, "rank", "a rank line inside the table");
      if (ranks_.size() >= static_cast<std::size_t>(kMaxNcclTestsRanks)) {
        where.fail(tokens.front().column, "rank",
                   fmt::format("more than {} rank lines: more ranks than a log may have", kMaxNcclTestsRanks));
      }
      ranks_.push_back({nccl_tests_detail::parse_rank_line(tokens, line, where), where.line});
    } else if (tokens.front().text == "size") {
      if (table_line_ != 0) second_log(tokens.front(), where);
      log_.layout = nccl_tests_detail::parse_table_header(tokens, where);
      table_line_ = where.line;
    } else if (starts_with_words(tokens, {"Out", "of", "bounds"})) {
      const std::vector<Token> value = after_colon(line);
      if (value.empty()) where.fail(0, "out of bounds", "expected a count after ':'");
      log_.out_of_bounds = nccl_tests_detail::parse_integer(value.front(), where, "out of bounds");
      end_table(where);
    } else if (starts_with_words(tokens, {"Avg", "bus", "bandwidth"})) {
      const std::vector<Token> value = after_colon(line);
      if (value.empty()) where.fail(0, "avg bus bandwidth", "expected a bandwidth after ':'");
      log_.avg_busbw_gbps = nccl_tests_detail::parse_decimal(value.front(), where, "avg bus bandwidth");
      end_table(where);
    }
  }

  [[noreturn]] void second_log(const Token& token, const LineRef& where) const {
    where.fail(
        token.column, "",
        fmt::format("a second log begins here (the first table starts at line {}): one log per file", table_line_));
  }

  void end_table(const LineRef& where) {
    if (table_line_ == 0) where.fail(0, "", "a table footer before any table header");
    if (footer_line_ == 0) footer_line_ = where.line;
  }

  void resolve_ranks(const LineRef& table) {
    std::stable_sort(ranks_.begin(), ranks_.end(),
                     [](const auto& a, const auto& b) { return a.first.rank < b.first.rank; });
    for (std::size_t i = 0; i < ranks_.size(); ++i) {
      const auto& [rank, line] = ranks_[i];
      const LineRef where{&log_.source, line};
      if (i > 0 && ranks_[i - 1].first.rank == rank.rank) {
        where.fail(0, "rank",
                   fmt::format("rank {} appears twice (lines {} and {})", rank.rank, ranks_[i - 1].second, line));
      }
      if (rank.rank != static_cast<int>(i)) {
        where.fail(0, "rank", fmt::format("rank {} is missing from the rank lines", i));
      }
      log_.rank_list.push_back(rank);
    }
    if (options_.ranks) {
      if (*options_.ranks < 1) throw InputError(fmt::format("expected at least 1 rank, got {}", *options_.ranks));
      if (!ranks_.empty() && *options_.ranks != static_cast<int>(ranks_.size())) {
        log_.warnings.push_back(fmt::format("the log's rank lines name {} ranks; read as {} ranks as asked",
                                            ranks_.size(), *options_.ranks));
      }
      log_.ranks = *options_.ranks;
    } else if (ranks_.empty()) {
      table.fail(0, "ranks",
                 "no '#  Rank N ... on HOST device D' lines before the table: the rank count is unknown (0 ranks)");
    } else {
      log_.ranks = static_cast<int>(ranks_.size());
    }
    std::map<std::string, int> per_host;
    std::set<std::string_view> named;  // a set, not a search of gpu_names: a million ranks may name many devices
    for (const NcclTestsRank& rank : log_.rank_list) {
      ++per_host[rank.host];
      if (named.insert(rank.device_name).second) log_.gpu_names.push_back(rank.device_name);
    }
    if (per_host.empty() || log_.ranks != static_cast<int>(log_.rank_list.size())) {
      log_.hosts = 1;
      log_.ranks_per_host = log_.ranks;
      log_.warnings.push_back(
          fmt::format("no rank lines that describe all {} ranks: assuming they share one host", log_.ranks));
      return;
    }
    log_.hosts = static_cast<int>(per_host.size());
    const auto [smallest, largest] = std::minmax_element(
        per_host.begin(), per_host.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    log_.ranks_per_host = largest->second;
    if (smallest->second != largest->second) {
      log_.warnings.push_back(fmt::format("hosts run different rank counts ({} on {}, {} on {}): ranks per host is {}",
                                          smallest->second, smallest->first, largest->second, largest->first,
                                          largest->second));
    }
  }

  NcclTestsReadOptions options_;
  NcclTestsLog log_;
  std::vector<std::pair<NcclTestsRank, int>> ranks_;  // with their lines
  std::optional<CollectiveOp> named_op_;
  int table_line_ = 0;
  int footer_line_ = 0;
  int ignored_in_table_ = 0;
  int first_ignored_ = 0;
};

}  // namespace

std::string_view to_string(NcclTestsLayout layout) {
  return layout == NcclTestsLayout::with_root ? "with_root" : "without_root";
}

NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& source,
                                  const NcclTestsReadOptions& options) {
  // A UTF-8 byte-order mark from Windows editors, old Mac line endings: as read_input_file gives a file.
  std::string normalized;
  if (needs_normalizing(text)) {
    normalized = normalized_input_text(text);
    text = normalized;
  }
  LogReader reader(source, options);
  int number = 0;
  while (!text.empty() || number == 0) {
    const std::size_t end = text.find('\n');
    reader.add_line(text.substr(0, end), ++number);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return reader.finish();
}

NcclTestsLog read_nccl_tests_log(const std::string& path, const NcclTestsReadOptions& options) {
  return parse_nccl_tests_log(read_input_file(path, "nccl-tests log"), path, options);
}

}  // namespace syncsim
