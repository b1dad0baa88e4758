#include "platforms/xml_tree.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace fedgrid::platforms {

const std::string* XmlElement::attribute(const std::string& key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

class Reader {
 public:
  Reader(const std::string& text, int max_depth) : s_(text), max_depth_(max_depth) {}

  std::unique_ptr<XmlElement> document() {
    // XML 1.0 allows no control characters but tab, newline and carriage return. A NUL inside a
    // value would end it early for SimGrid's C parser and not for this one, so the two would
    // read different values (found by fuzz/fuzz_xml_platform.cpp).
    for (size_t i = 0; i < s_.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(s_[i]);
      if (c == '\n') ++line_;
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", c);
        fail(std::string("control character ") + hex + " is not allowed in XML");
      }
    }
    line_ = 1;
    skip_prolog();
    if (!at("<") || at("</")) fail("expected the root element");
    auto root = element(1);
    skip_misc();
    if (pos_ < s_.size()) fail("content after the root element </" + root->name + ">");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw XmlSyntaxError{line_, message}; }

  bool at(const char* token) const { return s_.compare(pos_, std::strlen(token), token) == 0; }
  void advance(size_t n) {
    for (size_t i = 0; i < n && pos_ < s_.size(); ++i, ++pos_)
      if (s_[pos_] == '\n') ++line_;
  }
  void skip_spaces() {
    while (pos_ < s_.size() && is_space(s_[pos_])) advance(1);
  }
  // Up to and past `end`, which must come.
  void skip_past(const char* end, const char* what) {
    const size_t found = s_.find(end, pos_);
    if (found == std::string::npos) fail(std::string("unterminated ") + what);
    advance(found + std::strlen(end) - pos_);
  }

  // Comments and processing instructions between elements.
  void skip_misc() {
    while (true) {
      skip_spaces();
      if (at("<!--")) skip_past("-->", "comment");
      else if (at("<?")) skip_past("?>", "processing instruction");
      else return;
    }
  }

  void skip_prolog() {
    if (at("\xEF\xBB\xBF")) advance(3);  // UTF-8 byte order mark
    skip_misc();
    if (at("<!DOCTYPE")) {
      const size_t end = s_.find('>', pos_);
      if (end == std::string::npos) fail("unterminated DOCTYPE");
      if (s_.find('[', pos_) < end) fail("a DOCTYPE with an internal subset is not supported");
      advance(end + 1 - pos_);
      skip_misc();
    }
  }

  std::string name() {
    if (pos_ >= s_.size() || !is_name_start(s_[pos_])) fail("expected a name");
    const size_t start = pos_;
    while (pos_ < s_.size() && is_name_char(s_[pos_])) advance(1);
    return s_.substr(start, pos_ - start);
  }

  void append_utf8(std::string& out, uint32_t cp) {
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("invalid character reference");
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
    }
  }

  // "&...;" inside an attribute value, decoded.
  void entity(std::string& out) {
    const size_t end = s_.find(';', pos_);
    if (end == std::string::npos || end - pos_ > 12) fail("unterminated entity reference");
    const std::string ref = s_.substr(pos_ + 1, end - pos_ - 1);
    static const std::pair<const char*, char> named[] = {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
    bool done = false;
    for (const auto& [n, c] : named)
      if (ref == n) out += c, done = true;
    if (!done) {
      if (ref.size() < 2 || ref[0] != '#') fail("unknown entity '&" + ref + ";'");
      const bool hex = ref[1] == 'x';
      const std::string digits = ref.substr(hex ? 2 : 1);
      if (digits.empty() || digits.size() > 8 ||
          digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
        fail("malformed character reference '&" + ref + ";'");
      append_utf8(out, uint32_t(std::stoul(digits, nullptr, hex ? 16 : 10)));
    }
    advance(end + 1 - pos_);
  }

  std::string attribute_value() {
    if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) fail("expected a quoted attribute value");
    const char quote = s_[pos_];
    advance(1);
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated attribute value");
      const char c = s_[pos_];
      if (c == quote) break;
      if (c == '<') fail("'<' inside an attribute value");
      if (c == '&') entity(out);
      else out += c, advance(1);
    }
    advance(1);
    return out;
  }

  std::unique_ptr<XmlElement> element(int depth) {
    if (depth > max_depth_) fail("elements nested more than " + std::to_string(max_depth_) + " deep");
    auto e = std::make_unique<XmlElement>();
    e->line = line_;
    advance(1);  // '<'
    e->name = name();
    while (true) {
      const size_t before = pos_;
      skip_spaces();
      if (at("/>")) {
        advance(2);
        return e;
      }
      if (at(">")) {
        advance(1);
        break;
      }
      if (pos_ == before) fail("expected an attribute, '>' or '/>' in <" + e->name + ">");
      std::string key = name();
      skip_spaces();
      if (!at("=")) fail("expected '=' after attribute '" + key + "' of <" + e->name + ">");
      advance(1);
      skip_spaces();
      if (e->attribute(key)) fail("attribute '" + key + "' given twice in <" + e->name + ">");
      e->attributes.emplace_back(key, attribute_value());
    }
    while (true) {
      skip_misc();
      if (pos_ >= s_.size()) throw XmlSyntaxError{e->line, "<" + e->name + "> is never closed"};
      if (at("</")) {
        advance(2);
        const std::string closing = name();
        skip_spaces();
        if (!at(">")) fail("expected '>' after </" + closing);
        if (closing != e->name) fail("</" + closing + "> closes <" + e->name + ">");
        advance(1);
        return e;
      }
      if (at("<![CDATA[")) fail("CDATA is not expected in a platform file");
      if (at("<!")) fail("unexpected markup '<!' inside <" + e->name + ">");
      if (at("<")) {
        e->children.push_back(element(depth + 1));
        continue;
      }
      fail("unexpected text inside <" + e->name + ">");
    }
  }

  const std::string& s_;
  const int max_depth_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

std::unique_ptr<XmlElement> parse_xml(const std::string& text, int max_depth) {
  return Reader(text, max_depth).document();
}

}  // namespace fedgrid::platforms
