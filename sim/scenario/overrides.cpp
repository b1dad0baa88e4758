// --set key.path=value overrides, applied to the YAML tree before validation.
#include "sim/scenario/overrides.hpp"

#include <algorithm>
#include <cctype>

#include "sim/core/input_error.hpp"

namespace fedgrid {
namespace {

bool all_digits(const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), ::isdigit); }

// One step of a path: a key; an item of a list, written [i] (or .i where the node is a list);
// or every item of a list, written [] as docs/reference/keys.md writes list keys.
struct Step {
  enum Kind { Key, Item, Every } kind = Key;
  std::string text;  // the key, or the index as written
};

std::vector<Step> parse_path(const std::string& path) {
  std::vector<Step> steps;
  for (const std::string& part : split_path(path)) {
    const size_t open = part.find('[');
    if (open == std::string::npos) {
      steps.push_back({Step::Key, part});
      continue;
    }
    if (open > 0) steps.push_back({Step::Key, part.substr(0, open)});
    for (size_t at = open; at < part.size();) {
      const size_t close = part.find(']', at);
      const std::string inside = close == std::string::npos ? "" : part.substr(at + 1, close - at - 1);
      if (part[at] != '[' || close == std::string::npos || !(inside.empty() || all_digits(inside)))
        throw InputError("--set", 0, path, "a list item is written [i] (an index from 0) or [] (every item)");
      steps.push_back({inside.empty() ? Step::Every : Step::Item, inside});
      at = close + 1;
    }
  }
  return steps;
}

// Sets `value` at steps[i..] under `node`, whose path so far is `concrete` (list items as [i]);
// adds each key it sets to `overridden`.
void set_at(YAML::Node node, const std::vector<Step>& steps, size_t i, const YAML::Node& value,
            const std::string& path, const std::string& concrete, std::set<std::string>& overridden) {
  const Step& step = steps[i];
  const bool last = i + 1 == steps.size();
  const bool item = step.kind == Step::Item || (step.kind == Step::Key && node.IsSequence() && all_digits(step.text));
  if (item || step.kind == Step::Every) {
    if (!node.IsSequence())
      throw InputError("--set", 0, path, "'" + concrete + "' is not a list in this scenario");
    const std::string items = "list '" + concrete + "' has " + std::to_string(node.size()) +
                              (node.size() == 1 ? " item" : " items");
    if (step.kind == Step::Every) {
      if (node.size() == 0) throw InputError("--set", 0, path, items + ": [] sets nothing");
      for (size_t k = 0; k < node.size(); ++k) {
        const std::string at = concrete + "[" + std::to_string(k) + "]";
        if (last) node[k] = value, overridden.insert(at);
        else set_at(node[k], steps, i + 1, value, path, at, overridden);
      }
      return;
    }
    // More digits than any list holds items: out of range, before stoul would overflow.
    const size_t k = step.text.size() > 9 ? node.size() : std::stoul(step.text);
    if (k >= node.size())
      throw InputError("--set", 0, path, "list index " + step.text + " out of range: " + items);
    const std::string at = concrete + "[" + step.text + "]";
    if (last) node[k] = value, overridden.insert(at);
    else set_at(node[k], steps, i + 1, value, path, at, overridden);
    return;
  }
  const std::string at = concrete + (concrete.empty() ? "" : ".") + step.text;
  if (last) {
    node[step.text] = value;
    overridden.insert(at);
    return;
  }
  if (!node[step.text] || node[step.text].IsNull()) node[step.text] = YAML::Node(YAML::NodeType::Map);
  set_at(node[step.text], steps, i + 1, value, path, at, overridden);
}

}  // namespace

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(path.substr(start, dot - start));
  parts.push_back(path.substr(start));
  return parts;
}

std::set<std::string> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides) {
  std::set<std::string> overridden;
  for (const auto& o : overrides) {
    auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", 0, "", "expected key.path=value, got '" + o + "'");
    const std::string path = o.substr(0, eq);
    YAML::Node value;
    try {
      value = YAML::Load(o.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw InputError("--set", 0, path, "cannot parse value: " + e.msg);
    }
    set_at(root, parse_path(path), 0, value, path, "", overridden);
  }
  return overridden;
}

}  // namespace fedgrid
