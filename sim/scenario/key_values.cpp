#include "sim/scenario/key_values.hpp"

#include <yaml-cpp/yaml.h>

#include <sstream>
#include <vector>

#include "sim/scenario/key_table.hpp"
#include "sim/scenario/yaml_node.hpp"

namespace fedgrid {
namespace {

// The node at a dotted path below `root`, or an undefined node.
YAML::Node walk(const YAML::Node& root, const std::string& dotted) {
  YAML::Node cur = root;
  std::stringstream ss(dotted);
  for (std::string p; std::getline(ss, p, '.');) {
    const YAML::Node& here = cur;
    if (!here || !here.IsMap() || !here[p]) return YAML::Node(YAML::NodeType::Undefined);
    cur.reset(here[p]);  // reset, not operator=: assigning a yaml-cpp node rewrites the tree
  }
  return cur;
}

}  // namespace

KeyValues::KeyValues() : node_(std::make_shared<Node>()), prefix_("algorithm") {}

KeyValues::KeyValues(std::shared_ptr<const Node> node, std::string declared_prefix, std::string algorithm)
    : node_(std::move(node)), prefix_(std::move(declared_prefix)), algorithm_(std::move(algorithm)) {}

KeyValues KeyValues::for_algorithm(const std::string& algorithm) const { return KeyValues(node_, prefix_, algorithm); }

std::string KeyValues::declared(const std::string& name) const { return prefix_.empty() ? name : prefix_ + "." + name; }

template <class T>
std::optional<T> KeyValues::value(const std::string& name) const {
  if (YAML::Node n = walk(node_->yaml, name); n && !n.IsNull()) return n.as<T>();
  const KeyDecl* d = find_key(declared(name), algorithm_);
  if (d && d->default_value) return YAML::Load(*d->default_value).as<T>();
  return std::nullopt;
}
template std::optional<bool> KeyValues::value<bool>(const std::string&) const;
template std::optional<int> KeyValues::value<int>(const std::string&) const;
template std::optional<int64_t> KeyValues::value<int64_t>(const std::string&) const;
template std::optional<uint64_t> KeyValues::value<uint64_t>(const std::string&) const;
template std::optional<double> KeyValues::value<double>(const std::string&) const;
template std::optional<std::string> KeyValues::value<std::string>(const std::string&) const;
template std::optional<std::vector<int>> KeyValues::value<std::vector<int>>(const std::string&) const;
template std::optional<std::vector<std::vector<int>>> KeyValues::value<std::vector<std::vector<int>>>(
    const std::string&) const;

bool KeyValues::given(const std::string& name) const {
  const YAML::Node n = walk(node_->yaml, name);
  return n && !n.IsNull();
}

bool KeyValues::is_mapping(const std::string& name) const {
  const YAML::Node n = walk(node_->yaml, name);
  return n && n.IsMap();
}

size_t KeyValues::items(const std::string& name) const {
  const YAML::Node n = walk(node_->yaml, name);
  return n && n.IsSequence() ? n.size() : 0;
}

KeyValues KeyValues::item(const std::string& name, size_t i) const {
  return KeyValues(std::make_shared<Node>(Node{walk(node_->yaml, name)[i]}), declared(name) + "[]", algorithm_);
}

KeyValues KeyValues::section(const std::string& name) const {
  return KeyValues(std::make_shared<Node>(Node{walk(node_->yaml, name)}), declared(name), algorithm_);
}

}  // namespace fedgrid
