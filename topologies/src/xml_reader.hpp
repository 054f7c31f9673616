#pragma once
// A small XML reader for NCCL's topology dumps: a tree of elements and attributes, each with its line and column.
//
// It reads what NCCL writes (src/graph/xml.cc) and what people write by hand around it: an optional prolog
// (<?xml ...?>), comments, a <!DOCTYPE ...> without an internal subset, elements with attributes in double or single
// quotes, self-closing tags, and the five predefined entities plus character references (&#38; &#x26;) in attribute
// values. Text between elements must be whitespace: NCCL's format has none, so stray text is reported rather than
// ignored. CDATA sections and DTD subsets are not supported. Every error is an InputError at source:line:column.
//
//   const xml::Element root = xml::parse(text, "topo.xml");
//   for (const xml::Element& cpu : root.children) { if (const auto* numa = cpu.attribute("numaid")) ... }
#include <string>
#include <string_view>
#include <vector>

#include "syncsim/core/input_error.hpp"

namespace syncsim::xml {

struct Position {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in bytes
};

struct Attribute {
  std::string name;
  std::string value;  // entities decoded
  Position name_at;
  Position value_at;  // the first character inside the quotes
};

struct Element {
  std::string name;
  Position at;  // the '<' that opens it
  std::vector<Attribute> attributes;
  std::vector<Element> children;

  // nullptr when the element has no such attribute.
  const Attribute* attribute(std::string_view attribute_name) const;
};

// The document's root element. Throws InputError naming `source`, the line and the column of the first problem.
Element parse(std::string_view text, const std::string& source);

// Elements nested deeper than this are an error (real dumps nest about 8 levels; this bounds the recursion).
inline constexpr int kMaxDepth = 256;

}  // namespace syncsim::xml
