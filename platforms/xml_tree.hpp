#pragma once
// A small XML reader for platform files: elements, attributes and the line each starts on.
// It reads the XML 1.0 that platform files are written in (declaration, DOCTYPE without an
// internal subset, comments, quoted attributes, the five named entities and character
// references) and refuses the rest (text inside elements, CDATA, other entities).
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fedgrid::platforms {

struct XmlElement {
  std::string name;
  int line = 0;
  std::vector<std::pair<std::string, std::string>> attributes;  // in document order, entities decoded
  std::vector<std::unique_ptr<XmlElement>> children;
  const std::string* attribute(const std::string& key) const;
};

// Where and why text is not XML this reader takes.
struct XmlSyntaxError {
  int line = 0;
  std::string message;
};

// The root element; throws XmlSyntaxError. Elements nested deeper than `max_depth` are refused
// (a platform is a few zones deep; this keeps recursion over the tree bounded).
std::unique_ptr<XmlElement> parse_xml(const std::string& text, int max_depth = 64);

}  // namespace fedgrid::platforms
