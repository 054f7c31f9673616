#include "config_tree.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "key_path.hpp"
#include "syncsim/core/input_file.hpp"

namespace syncsim::scenario_detail {

namespace {

// No scenario comes near this many values: a model's layers, a fault list and every section together are
// hundreds. The limit counts values as the loader's tree holds them, where each use of an alias is a copy of what
// its anchor names: nested aliases (`a1: &a1 [*a0, *a0]`, ...) double the copy per level, and thirty levels ask
// for a billion nodes (found by fuzzing, tests/fuzz/regressions/scenario). yaml-cpp spends about 10 us and 500
// bytes on each value, so a document of a million values would take seconds and half a gigabyte before it could
// be refused; the scan below refuses it after the first 100,000.
constexpr std::size_t kMaxValues = 100'000;
// Scenarios nest a few levels; the limit matches the NCCL XML and DOT readers'. yaml-cpp's own parser recurses per
// level and stops at 2,000 with the message "bad file", so the scan refuses deeper text first, at the place.
// yaml-cpp 0.7 also lets an alias name the anchor it sits in (`a: &a [*a]`), a node that contains itself: copying
// it would recurse until the stack overflows (found by fuzzing); the converter's own depth check catches that.
constexpr int kMaxDepth = 256;

// Raised by the scan: a message and the yaml-cpp mark where the limit was crossed.
struct ScanLimit {
  std::string message;
  YAML::Mark mark;
};

// A first pass over the documents that builds nothing, so that what would exhaust memory, the stack or time while
// building is refused first, with its place:
// - values, counting each alias use as the size of the anchor it names, beyond kMaxValues;
// - text nested deeper than kMaxDepth;
// - yaml-cpp 0.7's LoadAll never returns when a document starts with a token no node can start with (a stray ','
//   at the top level, as in ",\n" or "[a]\n, b": jbeder/yaml-cpp#1040, fixed upstream by #1319): its parser
//   reports an empty document at that same place again and again, and LoadAll appends them until memory runs out
//   (found by fuzzing). The scan notes a document that starts where the previous one did; every real one moves on.
class DocumentScan : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    stuck_ = count_ > 0 && mark.pos == last_.pos;
    last_ = mark;
    ++count_;
    anchor_sizes_.clear();  // anchors are numbered per document
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    // An alias inside its own anchor names a node still open: count it once; the converter stops its recursion.
    const auto found = anchor_sizes_.find(anchor);
    const std::size_t size = found == anchor_sizes_.end() ? 1 : found->second;
    alias_values_ += size;
    add(size, mark);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

  bool stuck() const { return stuck_; }
  const YAML::Mark& last() const { return last_; }

 private:
  struct Open {
    YAML::anchor_t anchor;
    std::size_t values_before;
  };

  void add(std::size_t values, const YAML::Mark& mark) {
    values_ += values;
    if (values_ <= kMaxValues) return;
    if (alias_values_ == 0) {
      throw ScanLimit{fmt::format("the document has more than {} values (keys, items and scalars; scenarios have "
                                  "hundreds): is this the right file?",
                                  kMaxValues),
                      mark};
    }
    throw ScanLimit{fmt::format("the document expands to more than {} values, {} of them copies made by aliases "
                                "(each use of an alias copies what its anchor names): aliases repeated inside "
                                "aliases?",
                                kMaxValues, alias_values_),
                    mark};
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(1, mark);
    if (anchor != YAML::NullAnchor) anchor_sizes_[anchor] = 1;
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (open_.size() >= static_cast<std::size_t>(kMaxDepth)) {
      throw ScanLimit{fmt::format("lists and mappings nested deeper than {} levels", kMaxDepth), mark};
    }
    add(1, mark);
    open_.push_back(Open{anchor, values_});
  }
  void close() {
    if (open_.empty()) return;
    const Open done = open_.back();
    open_.pop_back();
    // The collection itself was counted before values_before; an alias of it copies it and everything inside.
    if (done.anchor != YAML::NullAnchor) anchor_sizes_[done.anchor] = values_ - done.values_before + 1;
  }

  YAML::Mark last_;
  int count_ = 0;
  bool stuck_ = false;
  std::size_t values_ = 0;        // in every document so far, as the converter will copy them
  std::size_t alias_values_ = 0;  // how many of them alias uses add
  std::vector<Open> open_;
  std::map<YAML::anchor_t, std::size_t> anchor_sizes_;
};

// Scans the documents (see DocumentScan); returns the place of a stuck document, throws ScanLimit on a limit.
std::optional<YAML::Mark> scan_documents(const std::string& yaml) {
  std::istringstream in(yaml);
  YAML::Parser parser(in);
  DocumentScan scan;
  while (parser.HandleNextDocument(scan)) {
    if (scan.stuck()) return scan.last();
  }
  return std::nullopt;
}

// YAML is UTF-8 (the spec's character set; yaml-cpp passes other bytes through), and a NUL cuts every message
// and file name made of the text short: refused at the first such byte, with its line and column.
void refuse_invalid_text(std::string_view text, const std::string& source, const std::string& key_prefix,
                         bool line_known) {
  const std::optional<std::size_t> bad = first_invalid_text_byte(text);
  if (!bad) return;
  const auto byte = static_cast<unsigned char>(text[*bad]);
  throw InputError(byte == 0
                       ? std::string("a NUL byte: YAML text has none")
                       : fmt::format("byte 0x{:02X} is not UTF-8 text (YAML files are UTF-8: save it as UTF-8)", byte),
                   line_known ? location_of_byte(text, *bad, source) : SourceLocation{source, 0, 0}, key_prefix);
}

// A tag syncsim would silently ignore (`!custom 5`, found by fuzzing) is refused; the YAML core schema's own tags
// (`!!str`, `!!int`, ...) and the untagged forms ('?' plain, '!' quoted) say nothing the reader does not check.
void refuse_unknown_tag(const YAML::Node& node, const SourceLocation& where, const std::string& path) {
  const std::string& tag = node.Tag();
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  if (tag.empty() || tag == "?" || tag == "!") return;
  if (tag.starts_with(kCore)) {
    const std::string_view type = std::string_view(tag).substr(kCore.size());
    if (type == "str" || type == "int" || type == "float" || type == "bool" || type == "null" || type == "map" ||
        type == "seq") {
      return;
    }
  }
  throw InputError(
      fmt::format("the YAML tag '{}' means nothing to syncsim (it reads plain values; !!str marks text)", tag), where,
      path);
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
    // The scan counted every value first; these two checks are the backstop for what only aliases can do.
    if (++values_ > kMaxValues) {
      throw InputError(fmt::format("the document expands to more than {} values (each use of an alias copies what "
                                   "its anchor names): aliases repeated inside aliases?",
                                   kMaxValues),
                       out.where, shortened(path));
    }
    if (depth_ >= kMaxDepth) {
      throw InputError(fmt::format("values nested deeper than {} levels (an alias inside its own anchor?)", kMaxDepth),
                       out.where, shortened(path));
    }
    ++depth_;
    refuse_unknown_tag(node, out.where, path);
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.kind = ConfigNode::Kind::null;
        break;
      case YAML::NodeType::Scalar:
        out.kind = ConfigNode::Kind::scalar;
        out.text = node.Scalar();
        out.plain = node.Tag() != "!";
        out.tagged_string = node.Tag() == "tag:yaml.org,2002:str";
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
    // A byte-order mark and old Mac line endings, as read_input_file handles a file's (--set values too).
    const std::string text = needs_normalizing(yaml) ? normalized_input_text(yaml) : std::string(yaml);
    refuse_invalid_text(text, source, key_prefix, line_known);
    if (const std::optional<YAML::Mark> stuck = scan_documents(text)) {
      const auto at = static_cast<std::size_t>(std::max(stuck->pos, 0));
      const char found = at < text.size() ? text[at] : ' ';
      throw InputError(fmt::format("invalid YAML: unexpected '{}'", found), converter.at(*stuck), key_prefix);
    }
    documents = YAML::LoadAll(text);
  } catch (const ScanLimit& limit) {
    throw InputError(limit.message, converter.at(limit.mark), key_prefix);
  } catch (const YAML::DeepRecursion& error) {
    // Not reached while kMaxDepth is below yaml-cpp's own limit; its message would be "bad file".
    throw InputError(fmt::format("lists and mappings nested deeper than yaml-cpp's {} levels", error.depth()),
                     converter.at(error.mark), key_prefix);
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
