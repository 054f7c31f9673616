// The XML reader: a recursive-descent parser over the text that keeps the line and column of every character.
#include "xml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <utility>

namespace syncsim::xml {

const Attribute* Element::attribute(std::string_view attribute_name) const {
  const auto found = std::find_if(attributes.begin(), attributes.end(),
                                  [&](const Attribute& attribute) { return attribute.name == attribute_name; });
  return found == attributes.end() ? nullptr : &*found;
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// XML names: ASCII letters, '_' and ':' to start, then digits, '-' and '.' too; bytes >= 0x80 (UTF-8) pass as
// letters.
bool is_name_start(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return std::isalpha(byte) || c == '_' || c == ':' || byte >= 0x80;
}

bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);  // a UTF-8 byte order mark
  }

  Element document() {
    skip_misc();
    if (done()) fail("no root element: the file is empty or holds only comments", here());
    if (peek() != '<' || !is_name_start(peek(1))) fail("expected '<' and an element name", here());
    Element root = element(1);
    skip_misc();
    if (!done()) fail("unexpected content after the root element </" + root.name + ">", here());
    return root;
  }

 private:
  bool done() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  bool looking_at(std::string_view word) const { return text_.substr(pos_, word.size()) == word; }
  Position here() const { return Position{line_, column_}; }

  void advance(std::size_t count = 1) {
    for (std::size_t i = 0; i < count && !done(); ++i) {
      if (text_[pos_] == '\n') {
        ++line_;
        column_ = 0;
      }
      ++column_;
      ++pos_;
    }
  }
  void skip_space() {
    while (!done() && is_space(peek())) advance();
  }

  [[noreturn]] void fail(const std::string& message, Position at) const {
    throw InputError(message, SourceLocation{source_, at.line, at.column});
  }

  // Moves past the next `end`; an error naming `what` (opened at `start`) when the text ends first.
  void skip_past(std::string_view end, std::string_view what, Position start) {
    while (!done() && !looking_at(end)) advance();
    if (done()) fail(fmt::format("unterminated {} (no closing '{}')", what, end), start);
    advance(end.size());
  }

  // Comments, processing instructions (the <?xml ...?> prolog) and a DOCTYPE, with whitespace between them.
  void skip_misc() {
    for (;;) {
      skip_space();
      const Position start = here();
      if (looking_at("<!--")) {
        advance(4);
        skip_past("-->", "comment", start);
      } else if (looking_at("<?")) {
        skip_past("?>", "processing instruction", start);
      } else if (looking_at("<!DOCTYPE")) {
        while (!done() && peek() != '>') {
          if (peek() == '[') fail("DOCTYPE with an internal subset is not supported", here());
          advance();
        }
        if (done()) fail("unterminated <!DOCTYPE (no closing '>')", start);
        advance();
      } else {
        return;
      }
    }
  }

  std::string name() {
    std::string out;
    while (!done() && is_name_char(peek())) {
      out += peek();
      advance();
    }
    return out;
  }

  // At '<' followed by a name start.
  Element element(int depth) {
    Element element;
    element.at = here();
    if (depth > kMaxDepth) fail(fmt::format("elements nested deeper than {} levels", kMaxDepth), element.at);
    advance();
    element.name = name();
    for (;;) {
      const bool spaced = !done() && is_space(peek());
      skip_space();
      if (done()) fail(fmt::format("tag <{} is never closed with '>'", element.name), element.at);
      if (looking_at("/>")) {
        advance(2);
        return element;
      }
      if (peek() == '>') {
        advance();
        break;
      }
      if (!is_name_start(peek())) {
        fail(fmt::format("unexpected '{}' in tag <{}>: expected an attribute, '>' or '/>'", peek(), element.name),
             here());
      }
      if (!spaced) fail(fmt::format("expected a space before attribute in tag <{}>", element.name), here());
      Attribute attribute = this->attribute(element);
      if (const Attribute* first = element.attribute(attribute.name)) {
        fail(fmt::format("duplicate attribute '{}' in <{}> (first given at column {})", attribute.name, element.name,
                         first->name_at.column),
             attribute.name_at);
      }
      element.attributes.push_back(std::move(attribute));
    }
    content(element, depth);
    return element;
  }

  Attribute attribute(const Element& element) {
    Attribute attribute;
    attribute.name_at = here();
    attribute.name = name();
    skip_space();
    if (peek() != '=') {
      fail(fmt::format("attribute '{}' of <{}> has no value: expected '=' and a quoted value", attribute.name,
                       element.name),
           here());
    }
    advance();
    skip_space();
    const char quote = peek();
    if (quote != '"' && quote != '\'') {
      fail(fmt::format("the value of attribute '{}' must be in quotes", attribute.name), here());
    }
    const Position open = here();
    advance();
    attribute.value_at = here();
    while (!done() && peek() != quote) {
      if (peek() == '<') fail(fmt::format("'<' inside the value of attribute '{}'", attribute.name), here());
      if (peek() == '&') {
        reference(attribute.value);
      } else {
        attribute.value += is_space(peek()) ? ' ' : peek();  // XML normalizes whitespace in attribute values
        advance();
      }
    }
    if (done()) fail(fmt::format("the value of attribute '{}' is never closed", attribute.name), open);
    advance();
    return attribute;
  }

  // At '&': one of the five predefined entities or a character reference.
  void reference(std::string& out) {
    const Position at = here();
    const std::size_t end = text_.find(';', pos_);
    const std::string_view body =
        end == std::string_view::npos || end - pos_ > 12 ? std::string_view{} : text_.substr(pos_ + 1, end - pos_ - 1);
    static constexpr std::array<std::pair<std::string_view, char>, 5> kEntities{
        {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}}};
    const auto named = std::find_if(kEntities.begin(), kEntities.end(), [&](const auto& e) { return e.first == body; });
    if (named != kEntities.end()) {
      out += named->second;
    } else if (body.size() > 1 && body[0] == '#') {
      const bool hex = body[1] == 'x';
      const std::string_view digits = body.substr(hex ? 2 : 1);
      std::uint32_t code = 0;
      const auto [last, error] = std::from_chars(digits.data(), digits.data() + digits.size(), code, hex ? 16 : 10);
      if (digits.empty() || error != std::errc{} || last != digits.data() + digits.size() || code == 0 ||
          code > 0x10FFFF) {
        fail(fmt::format("bad character reference '&{};'", body), at);
      }
      append_utf8(out, code);
    } else {
      fail("'&' must start an entity such as &amp; or &#38;", at);
    }
    advance(body.size() + 2);
  }

  // Children of `element` up to its closing tag.
  void content(Element& element, int depth) {
    for (;;) {
      skip_space();
      const Position at = here();
      if (done()) {
        fail(fmt::format("<{}> is never closed (no </{}>)", element.name, element.name), element.at);
      } else if (looking_at("</")) {
        advance(2);
        const std::string closing = name();
        skip_space();
        if (closing != element.name) {
          fail(fmt::format("</{}> does not match <{}> opened at line {}, column {}", closing, element.name,
                           element.at.line, element.at.column),
               at);
        }
        if (peek() != '>') fail(fmt::format("expected '>' to end </{}>", closing), here());
        advance();
        return;
      } else if (looking_at("<!--")) {
        advance(4);
        skip_past("-->", "comment", at);
      } else if (looking_at("<?")) {
        skip_past("?>", "processing instruction", at);
      } else if (looking_at("<![CDATA[")) {
        fail("CDATA sections are not supported in a topology file", at);
      } else if (peek() == '<' && is_name_start(peek(1))) {
        element.children.push_back(this->element(depth + 1));
      } else if (peek() == '<') {
        fail("expected an element name after '<'", at);
      } else {
        std::string text;
        while (!done() && peek() != '<' && peek() != '\n' && text.size() < 20) {
          text += peek();
          advance();
        }
        fail(fmt::format("unexpected text '{}' inside <{}>: a topology file holds only elements", text, element.name),
             at);
      }
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

Element parse(std::string_view text, const std::string& source) {
  return Parser(text, source).document();
}

}  // namespace syncsim::xml
