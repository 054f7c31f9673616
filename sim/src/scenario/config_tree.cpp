#include "config_tree.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "key_path.hpp"

namespace syncsim::scenario_detail {

namespace {

// YAML aliases share one node however often they are used, but this tree copies each use: nested aliases
// (`a1: &a1 [*a0, *a0]`, ...) double the copy per level, and thirty levels ask for a billion nodes (found by
// fuzzing, tests/fuzz/regressions/scenario). No scenario comes near this many values; a document that expands
// beyond it is rejected instead of exhausting memory.
constexpr std::size_t kMaxValues = 100'000;
// yaml-cpp 0.7 also lets an alias name the anchor it sits in (`a: &a [*a]`), a node that contains itself: copying
// it would recurse until the stack overflows (found by fuzzing). Scenarios nest a few levels; the limit matches the
// NCCL XML reader's.
constexpr int kMaxDepth = 256;

// yaml-cpp 0.7's LoadAll never returns when a document starts with a token no node can start with (a stray ',' at
// the top level, as in ",\n" or "[a]\n, b": jbeder/yaml-cpp#1040, fixed upstream by #1319): its parser reports an
// empty document at that same place again and again, and LoadAll appends them until memory runs out (found by
// fuzzing, tests/fuzz/regressions/scenario). This walks the documents as LoadAll does, building nothing, and
// returns the place of a document that starts where the previous one did. Every real document moves on.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    stuck_ = count_ > 0 && mark.pos == last_.pos;
    last_ = mark;
    ++count_;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  bool stuck() const { return stuck_; }
  const YAML::Mark& last() const { return last_; }

 private:
  YAML::Mark last_;
  int count_ = 0;
  bool stuck_ = false;
};

std::optional<YAML::Mark> stuck_document(const std::string& yaml) {
  std::istringstream in(yaml);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (parser.HandleNextDocument(starts)) {
    if (starts.stuck()) return starts.last();
  }
  return std::nullopt;
}

// The key path of a runaway node, short enough to read: a self-containing alias is 256 `[0]`s deep.
std::string shortened(const std::string& path) {
  constexpr std::size_t kShown = 60;
  return path.size() <= kShown ? path : path.substr(0, kShown) + "...";
}

class Converter {
 public:
  Converter(const std::string& source, bool line_known) : source_(source), line_known_(line_known) {}

  SourceLocation at(const YAML::Mark& mark) const {
    if (!line_known_ || mark.is_null()) return SourceLocation{source_, 0, 0};
    return SourceLocation{source_, mark.line + 1, mark.column + 1};
  }

  ConfigNode convert(const YAML::Node& node, const std::string& path) {
    ConfigNode out;
    out.where = at(node.Mark());
    if (++values_ > kMaxValues) {
      throw InputError(
          fmt::format("the document expands to more than {} values (aliases repeated inside aliases?)", kMaxValues),
          out.where, shortened(path));
    }
    if (depth_ >= kMaxDepth) {
      throw InputError(fmt::format("values nested deeper than {} levels (an alias inside its own anchor?)", kMaxDepth),
                       out.where, shortened(path));
    }
    ++depth_;
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.kind = ConfigNode::Kind::null;
        break;
      case YAML::NodeType::Scalar:
        out.kind = ConfigNode::Kind::scalar;
        out.text = node.Scalar();
        out.plain = node.Tag() != "!";
        break;
      case YAML::NodeType::Sequence: {
        out.kind = ConfigNode::Kind::sequence;
        std::size_t index = 0;
        for (const YAML::Node& item : node) out.items.push_back(convert(item, item_path(path, index++)));
        break;
      }
      case YAML::NodeType::Map:
        out.kind = ConfigNode::Kind::mapping;
        for (auto it = node.begin(); it != node.end(); ++it) add_entry(out, it->first, it->second, path);
        break;
    }
    --depth_;
    return out;
  }

 private:
  void add_entry(ConfigNode& mapping, const YAML::Node& key, const YAML::Node& value, const std::string& path) {
    const SourceLocation key_where = at(key.Mark());
    if (!key.IsScalar()) {
      throw InputError(fmt::format("expected a plain key, got {}", key.IsSequence() ? "a list" : "a mapping"),
                       key_where, path);
    }
    const std::string& name = key.Scalar();
    const std::string key_path = child_path(path, name);
    const auto previous = std::find_if(mapping.entries.begin(), mapping.entries.end(),
                                       [&](const ConfigEntry& entry) { return entry.key == name; });
    if (previous != mapping.entries.end()) {
      const std::string first =
          previous->key_where.line > 0 ? fmt::format(" (first given on line {})", previous->key_where.line) : "";
      throw InputError(fmt::format("duplicate key '{}'{}", name, first), key_where, key_path);
    }
    mapping.entries.push_back(ConfigEntry{name, key_where, convert(value, key_path)});
  }

  const std::string& source_;
  bool line_known_;
  std::size_t values_ = 0;  // nodes converted so far, against kMaxValues
  int depth_ = 0;           // nodes being converted, outermost to innermost, against kMaxDepth
};

}  // namespace

const ConfigNode* ConfigNode::find(std::string_view key) const {
  for (const ConfigEntry& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  return const_cast<ConfigNode*>(std::as_const(*this).find(key));
}

std::string describe(const ConfigNode& node) {
  switch (node.kind) {
    case ConfigNode::Kind::null:
      return "nothing";
    case ConfigNode::Kind::scalar:
      return fmt::format("'{}'", node.text);
    case ConfigNode::Kind::sequence:
      return "a list";
    case ConfigNode::Kind::mapping:
      return "a mapping";
  }
  return "?";
}

ConfigNode parse_config(std::string_view yaml, const std::string& source, const std::string& key_prefix,
                        bool line_known) {
  Converter converter(source, line_known);
  std::vector<YAML::Node> documents;
  try {
    const std::string text(yaml);
    if (const std::optional<YAML::Mark> stuck = stuck_document(text)) {
      const auto at = static_cast<std::size_t>(std::max(stuck->pos, 0));
      const char found = at < text.size() ? text[at] : ' ';
      throw InputError(fmt::format("invalid YAML: unexpected '{}'", found), converter.at(*stuck), key_prefix);
    }
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& error) {
    // yaml-cpp marks are 0-based; its messages are lower-case fragments ("illegal map value").
    throw InputError(fmt::format("invalid YAML: {}", error.msg), converter.at(error.mark), key_prefix);
  }
  if (documents.empty()) {
    ConfigNode empty;
    empty.where = line_known ? SourceLocation{source, 1, 1} : SourceLocation{source, 0, 0};
    return empty;
  }
  if (documents.size() > 1) {
    throw InputError("expected one YAML document, got several (a second '---')", converter.at(documents[1].Mark()),
                     key_prefix);
  }
  return converter.convert(documents.front(), key_prefix);
}

}  // namespace syncsim::scenario_detail
