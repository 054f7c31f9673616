#include "config_tree.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "key_path.hpp"

namespace syncsim::scenario_detail {

namespace {

class Converter {
 public:
  Converter(const std::string& source, bool line_known) : source_(source), line_known_(line_known) {}

  SourceLocation at(const YAML::Mark& mark) const {
    if (!line_known_ || mark.is_null()) return SourceLocation{source_, 0, 0};
    return SourceLocation{source_, mark.line + 1, mark.column + 1};
  }

  ConfigNode convert(const YAML::Node& node, const std::string& path) const {
    ConfigNode out;
    out.where = at(node.Mark());
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
    return out;
  }

 private:
  void add_entry(ConfigNode& mapping, const YAML::Node& key, const YAML::Node& value, const std::string& path) const {
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
  const Converter converter(source, line_known);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(yaml));
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
