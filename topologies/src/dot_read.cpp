// DOT import: Boost's Graphviz parser does the syntax; this file maps its attributes onto a Topology.
//
// Boost reports syntax errors without positions, so a small pre-scan finds the common mistakes (unbalanced
// brackets or quotes, a missing `graph`/`digraph` header) with their line numbers first, any other syntax error is
// located by re-parsing prefixes of the text (locate_syntax_error), and attribute errors are located by searching
// the text for the node or edge they belong to.
#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <cctype>
#include <charconv>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "syncsim/core/input_error.hpp"
#include "syncsim/core/input_file.hpp"
#include "syncsim/topology/dot_io.hpp"

namespace syncsim {

namespace {

struct DotVertex {
  std::string id;
  std::string kind;
  std::string rank;
  std::string latency;
  std::string host;
  std::string reduction;
};

struct DotEdge {
  std::string bw;
  std::string lat;
  std::string kind;
};

using DirectedDot = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, DotVertex, DotEdge>;
using UndirectedDot = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, DotVertex, DotEdge>;

struct DotSource {
  std::string_view text;
  std::string name;
  SourceLocation at(int line, int column = 0) const { return SourceLocation{name, line, column}; }
};

bool is_id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// Walks the text keeping the 1-based line and column of the current character.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool done() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  int line() const { return line_; }
  int column() const { return column_; }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 0;
    }
    ++column_;
    ++pos_;
  }
  // Moves past the next `end`; false when there is none.
  bool skip_past(std::string_view end) {
    while (!done() && text_.substr(pos_, end.size()) != end) advance();
    if (done()) return false;
    for (std::size_t i = 0; i < end.size(); ++i) advance();
    return true;
  }
  std::string word() {
    std::string out;
    while (!done() && is_id_char(peek())) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(peek())));
      advance();
    }
    return out;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

// Boost's parser recurses once per `{` (a subgraph, or an edge's `{a b}` group): 20,000 nested braces overflow
// the stack. Real topologies nest a few levels; the limit matches the NCCL XML reader's and the scenario reader's.
constexpr int kMaxSubgraphDepth = 256;

// Checks what Boost would reject without saying where, and reports whether the graph is directed. It walks the
// text with a loop, never recursing, so it can refuse a nesting depth that Boost's recursion would not survive.
bool prescan(const DotSource& source) {
  struct Open {
    char bracket;
    int line;
    int column;
  };
  std::vector<Open> open;
  int brace_depth = 0;
  std::string first_word;
  int first_line = 1;
  Cursor at(source.text);
  while (!at.done()) {
    const char c = at.peek();
    const SourceLocation here = source.at(at.line(), at.column());
    if ((c == '/' && at.peek(1) == '/') || (c == '#' && at.column() == 1)) {
      at.skip_past("\n");
    } else if (c == '/' && at.peek(1) == '*') {
      if (!at.skip_past("*/")) throw InputError("unterminated /* comment", here);
    } else if (c == '"') {
      at.advance();
      while (!at.done() && at.peek() != '"') {
        if (at.peek() == '\\') at.advance();  // an escaped quote does not end the string
        if (!at.done()) at.advance();
      }
      if (at.done()) throw InputError("unterminated quoted string", here);
      at.advance();
    } else if (c == '<') {  // an HTML string, <...> with nesting; its brackets are text
      int depth = 0;
      do {
        depth += at.peek() == '<' ? 1 : at.peek() == '>' ? -1 : 0;
        at.advance();
      } while (depth > 0 && !at.done());
      if (depth > 0) throw InputError("unterminated <HTML> string", here);
    } else if (first_word.empty() && is_id_char(c)) {
      const std::string word = at.word();
      if (word != "strict") {
        first_word = word;
        first_line = here.line;
      }
    } else {
      if (c == '{' && ++brace_depth > kMaxSubgraphDepth) {
        throw InputError(fmt::format("subgraphs nested deeper than {} levels", kMaxSubgraphDepth), here);
      }
      if (c == '}' && brace_depth > 0) --brace_depth;
      if (c == '{' || c == '[') open.push_back(Open{c, here.line, here.column});
      if (c == '}' || c == ']') {
        if (open.empty() || open.back().bracket != (c == '}' ? '{' : '[')) {
          throw InputError(fmt::format("unexpected '{}'", c), here);
        }
        open.pop_back();
      }
      at.advance();
    }
  }
  if (!open.empty()) {
    throw InputError(fmt::format("'{}' is never closed", open.back().bracket),
                     source.at(open.back().line, open.back().column));
  }
  if (first_word != "graph" && first_word != "digraph") {
    throw InputError(
        fmt::format("expected 'graph' or 'digraph', got '{}'", first_word.empty() ? "nothing" : first_word),
        source.at(first_line, 1));
  }
  return first_word == "digraph";
}

std::string escaped(std::string_view id) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(std::string(id), special, R"(\$&)");
}

// The line where a node's attributes are (its id followed by '['), else the first line naming it; 0 if not found.
// 1-based line and column of a statement; column 0 when unknown, line 0 when not found.
struct TextPosition {
  int line = 0;
  int column = 0;
};

// The column is where the match's first group ends: the statement's first character after its delimiter.
TextPosition position_in(int number, const std::smatch& match) {
  return {number, static_cast<int>(match.position(0) + match.length(1)) + 1};
}

TextPosition position_of_node(std::string_view text, std::string_view id) {
  // A node statement starts a statement (line start, or after ';' or '{'); `a -- b [...]` is b's edge, not b.
  const std::regex with_attributes("(^[ \\t]*|[;{][ \\t]*)\"?" + escaped(id) + "\"?\\s*\\[");
  const std::regex mention("(^|[^\\w.\"])\"?" + escaped(id) + "\"?([^\\w.]|$)");
  TextPosition fallback;
  std::istringstream lines{std::string(text)};
  std::string line;
  std::smatch match;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (std::regex_search(line, match, with_attributes)) return position_in(number, match);
    if (fallback.line == 0 && std::regex_search(line, match, mention)) fallback = position_in(number, match);
  }
  return fallback;
}

TextPosition position_of_edge(std::string_view text, std::string_view a, std::string_view b) {
  const std::regex edge("(^[ \\t]*|[^\\w.][ \\t]*)\"?" + escaped(a) + "\"?\\s*(--|->)\\s*\"?" + escaped(b) +
                        "\"?([^\\w.]|$)");
  std::istringstream lines{std::string(text)};
  std::string line;
  std::smatch match;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (std::regex_search(line, match, edge)) return position_in(number, match);
  }
  return {};
}

// Node ids in natural order: digit runs compare as numbers, so gpu2 sorts before gpu10.
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool digit_a = std::isdigit(static_cast<unsigned char>(a[i]));
    const bool digit_b = std::isdigit(static_cast<unsigned char>(b[j]));
    if (digit_a && digit_b) {
      std::size_t end_a = i;
      std::size_t end_b = j;
      while (end_a < a.size() && std::isdigit(static_cast<unsigned char>(a[end_a]))) ++end_a;
      while (end_b < b.size() && std::isdigit(static_cast<unsigned char>(b[end_b]))) ++end_b;
      std::string_view run_a = a.substr(i, end_a - i);
      std::string_view run_b = b.substr(j, end_b - j);
      while (run_a.size() > 1 && run_a.front() == '0') run_a.remove_prefix(1);
      while (run_b.size() > 1 && run_b.front() == '0') run_b.remove_prefix(1);
      if (run_a.size() != run_b.size()) return run_a.size() < run_b.size();
      if (run_a != run_b) return run_a < run_b;
      i = end_a;
      j = end_b;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A node or edge of the file, for error messages. The line is searched for only when an error needs it: the
// search is a regex over the whole text.
struct Element {
  const DotSource& source;
  std::string name;  // "node sw0" or "edge gpu0 -- sw0"
  std::string_view a;
  std::optional<std::string_view> b;  // set for edges

  [[noreturn]] void fail(const std::string& message, std::string_view key = {}) const {
    const TextPosition at = b ? position_of_edge(source.text, a, *b) : position_of_node(source.text, a);
    throw InputError(fmt::format("{}: {}", name, message), source.at(at.line, at.column), std::string(key));
  }

  // Parses one attribute, rethrowing a units.hpp error with the element, the key and the line.
  template <typename Parse>
  auto parse(std::string_view key, const std::string& text, Parse parser) const {
    try {
      return parser(text);
    } catch (const InputError& error) {
      fail(error.message(), key);
    }
  }
};

template <typename Graph>
Topology to_topology(const Graph& graph, const DotSource& source, bool directed) {
  Topology topology;
  const std::size_t count = boost::num_vertices(graph);
  std::vector<std::size_t> order(count);
  for (std::size_t v = 0; v < count; ++v) order[v] = v;
  const auto is_gpu = [&](std::size_t v) { return graph[v].kind.empty() || graph[v].kind == "gpu"; };
  const bool all_ranked =
      std::all_of(order.begin(), order.end(), [&](std::size_t v) { return !is_gpu(v) || !graph[v].rank.empty(); });
  std::vector<std::int64_t> rank(count, 0);
  std::size_t gpu_total = 0;
  for (const std::size_t v : order) {
    if (!is_gpu(v)) continue;
    ++gpu_total;
    if (!all_ranked) continue;
    const auto value = whole_number(graph[v].rank);
    if (!value || *value < 0) {
      Element{source, fmt::format("node {}", graph[v].id), graph[v].id, std::nullopt}.fail(
          fmt::format("rank must be a whole number >= 0, got '{}'", graph[v].rank), "rank");
    }
    rank[v] = *value;
  }
  // GPUs first in GPU index order, then the other nodes, each group in natural id order.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (is_gpu(a) != is_gpu(b)) return is_gpu(a);
    if (is_gpu(a) && all_ranked && rank[a] != rank[b]) return rank[a] < rank[b];
    return natural_less(graph[a].id, graph[b].id);
  });
  std::vector<NodeId> node_of(count);
  for (std::size_t position = 0; position < count; ++position) {
    const std::size_t v = order[position];
    const DotVertex& vertex = graph[v];
    const Element element{source, fmt::format("node {}", vertex.id), vertex.id, std::nullopt};
    if (all_ranked && is_gpu(v) && static_cast<std::size_t>(rank[v]) != position) {
      element.fail(fmt::format("GPU ranks must be 0..{} with each used once, got rank {}", gpu_total - 1, rank[v]),
                   "rank");
    }
    Node node;
    node.name = vertex.id;
    if (!vertex.kind.empty()) {
      node.kind = element.parse("kind", vertex.kind, [](const auto& t) { return parse_node_kind(t); });
    }
    if (!vertex.latency.empty()) {
      node.latency = element.parse("latency", vertex.latency, [](const auto& t) { return parse_duration(t); });
      if (node.latency < SimTime::zero()) element.fail("latency must not be negative", "latency");
    }
    if (!vertex.host.empty()) {
      const auto host = whole_number(vertex.host);
      if (!host || *host < 0 || *host > std::numeric_limits<int>::max()) {
        element.fail(fmt::format("host must be a whole number >= 0, got '{}'", vertex.host), "host");
      }
      node.host = static_cast<int>(*host);
    }
    if (!vertex.reduction.empty()) {
      node.reduction =
          element.parse("reduction", vertex.reduction, [](const auto& t) { return parse_switch_reduction(t); });
      if (node.kind != NodeKind::nvswitch && node.kind != NodeKind::network_switch) {
        element.fail("only an nvswitch or a network_switch reduces in the network", "reduction");
      }
    }
    node_of[v] = topology.add_node(std::move(node));
  }
  for (const auto& edge : boost::make_iterator_range(boost::edges(graph))) {
    const DotVertex& a = graph[boost::source(edge, graph)];
    const DotVertex& b = graph[boost::target(edge, graph)];
    const DotEdge& attributes = graph[edge];
    const Element element{source, fmt::format("edge {} {} {}", a.id, directed ? "->" : "--", b.id), a.id, b.id};
    if (a.id == b.id) element.fail("links a node to itself");
    if (attributes.bw.empty()) element.fail("no bandwidth given (add bw=\"100Gbps\" or similar)", "bw");
    const Bandwidth bw = element.parse("bw", attributes.bw, [](const auto& t) { return parse_bandwidth(t); });
    if (!(bw.bytes_per_second > 0)) element.fail("bandwidth must be greater than zero", "bw");
    SimTime lat;
    if (!attributes.lat.empty()) {
      lat = element.parse("lat", attributes.lat, [](const auto& t) { return parse_duration(t); });
      if (lat < SimTime::zero()) element.fail("latency must not be negative", "lat");
    }
    LinkKind kind = LinkKind::network;
    if (!attributes.kind.empty()) {
      kind = element.parse("kind", attributes.kind, [](const auto& t) { return parse_link_kind(t); });
    }
    const NodeId from = node_of[boost::source(edge, graph)];
    const NodeId to = node_of[boost::target(edge, graph)];
    if (directed) {
      topology.add_simplex_link(from, to, bw, lat, kind);
    } else {
      topology.add_duplex_link(from, to, bw, lat, kind);
    }
  }
  return topology;
}

// 1-based line and column of a byte offset.
SourceLocation location_of(const DotSource& source, std::size_t offset) {
  offset = std::min(offset, source.text.size());
  const std::string_view before = source.text.substr(0, offset);
  const std::size_t line_start = before.rfind('\n');
  const auto line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
  const auto column = static_cast<int>(line_start == std::string_view::npos ? offset : offset - line_start - 1) + 1;
  return source.at(line, column);
}

// Offsets where the text may be cut without splitting a token: whitespace outside comments, quoted strings and
// HTML strings, and the end. Cut there, every token of the prefix is a token of the whole text.
std::vector<std::size_t> token_boundaries(std::string_view text) {
  std::vector<std::size_t> cuts;
  std::size_t i = 0;
  auto skip_past = [&](std::string_view end) {
    const std::size_t found = text.find(end, i);
    i = found == std::string_view::npos ? text.size() : found + end.size();
  };
  while (i < text.size()) {
    const char c = text[i];
    if ((c == '/' && i + 1 < text.size() && text[i + 1] == '/') || (c == '#' && (i == 0 || text[i - 1] == '\n'))) {
      skip_past("\n");
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i += 2;
      skip_past("*/");
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    } else if (c == '<') {
      for (int depth = 0; i < text.size();) {
        depth += text[i] == '<' ? 1 : text[i] == '>' ? -1 : 0;
        ++i;
        if (depth == 0) break;
      }
    } else {
      if (std::isspace(static_cast<unsigned char>(c))) cuts.push_back(i);
      ++i;
    }
  }
  cuts.push_back(text.size());
  return cuts;
}

// Boost's message for a syntax error names the token (`... (token is "<identifier> 'x'")`) but not where it is.
// Its parser reads left to right and stops at the first bad token, so a prefix of the text fails with the same
// message exactly when it contains that token (a shorter prefix fails at its end instead: `<eof>`). A binary search
// over the token boundaries finds the shortest such prefix; the bad token is its last, found by its text.
template <typename Graph>
SourceLocation locate_syntax_error(const DotSource& source, const std::string& message) {
  const bool at_end = message.find("<eof>") != std::string::npos || message.find("end of input") != std::string::npos;
  if (at_end) return location_of(source, source.text.size());
  const auto fails_the_same_way = [&](std::size_t length) {
    Graph graph;
    boost::dynamic_properties properties(boost::ignore_other_properties);
    std::string prefix(source.text.substr(0, length));
    try {
      boost::read_graphviz(prefix, graph, properties, "node_id");
    } catch (const boost::bad_graphviz_syntax& error) {
      return message == error.what();
    } catch (const boost::graph_exception&) {
    }
    return false;
  };
  const std::vector<std::size_t> cuts = token_boundaries(source.text);
  const auto first =
      std::partition_point(cuts.begin(), cuts.end(), [&](std::size_t c) { return !fails_the_same_way(c); });
  if (first == cuts.end()) return source.at(0);  // not the parser's own error (it needs the whole text)
  // The bad token lies between the previous boundary and this one; Boost quotes it as 'TEXT' (or char is 'C').
  const std::size_t run_start = first == cuts.begin() ? 0 : *std::prev(first);
  const std::size_t quote_end = message.rfind('\'');
  const std::size_t quote_start =
      quote_end == std::string::npos ? std::string::npos : message.rfind('\'', quote_end - 1);
  std::size_t at = run_start;
  if (quote_start != std::string::npos && quote_end > quote_start + 1) {
    const std::string_view token = std::string_view(message).substr(quote_start + 1, quote_end - quote_start - 1);
    const std::size_t found = source.text.substr(0, *first).rfind(token);
    if (found != std::string_view::npos && found >= run_start) at = found;
  }
  while (at < *first && std::isspace(static_cast<unsigned char>(source.text[at]))) ++at;
  return location_of(source, at);
}

template <typename Graph>
Topology parse_with_boost(const DotSource& source, bool directed) {
  Graph graph;
  boost::dynamic_properties properties(boost::ignore_other_properties);
  properties.property("node_id", boost::get(&DotVertex::id, graph));
  properties.property("kind", boost::get(&DotVertex::kind, graph));
  properties.property("rank", boost::get(&DotVertex::rank, graph));
  properties.property("latency", boost::get(&DotVertex::latency, graph));
  properties.property("host", boost::get(&DotVertex::host, graph));
  properties.property("reduction", boost::get(&DotVertex::reduction, graph));
  properties.property("bw", boost::get(&DotEdge::bw, graph));
  properties.property("lat", boost::get(&DotEdge::lat, graph));
  properties.property("kind", boost::get(&DotEdge::kind, graph));
  try {
    std::string text(source.text);
    boost::read_graphviz(text, graph, properties, "node_id");
  } catch (const boost::bad_graphviz_syntax& error) {
    throw InputError(fmt::format("malformed DOT: {}", error.what()), locate_syntax_error<Graph>(source, error.what()));
  } catch (const boost::graph_exception& error) {
    throw InputError(fmt::format("malformed DOT: {}", error.what()), source.at(0));
  }
  return to_topology(graph, source, directed);
}

}  // namespace

Topology read_dot_text(std::string_view text, std::string_view source_name) {
  // A byte-order mark (Boost: "Invalid character") and old Mac line endings, as read_input_file handles a file's.
  std::string normalized;
  if (needs_normalizing(text)) {
    normalized = normalized_input_text(text);
    text = normalized;
  }
  const DotSource source{text, std::string(source_name)};
  // Boost's lexer takes a NUL byte for the end of the input and reports it there, far from the byte.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    throw InputError("a NUL byte: a DOT file is text (is this a binary file?)", location_of(source, nul));
  }
  const bool directed = prescan(source);
  Topology topology =
      directed ? parse_with_boost<DirectedDot>(source, true) : parse_with_boost<UndirectedDot>(source, false);
  try {
    topology.check_gpus_connected();
  } catch (const InputError& error) {
    throw error.at(source.at(0));
  }
  topology.set_description(std::string(source_name));
  return topology;
}

Topology read_dot(const std::filesystem::path& path) {
  return read_dot_text(read_input_file(path, "DOT file"), path.string());
}

}  // namespace syncsim
