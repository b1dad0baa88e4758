#include "sim/scenario/key_table.hpp"

#include "sim/scenario/core_keys.hpp"

#include <algorithm>
#include <stdexcept>

namespace fedgrid {
namespace {

std::vector<KeyDecl>& table() {
  static std::vector<KeyDecl> keys = core_key_declarations();
  return keys;
}

std::vector<std::string>& installed() {
  static std::vector<std::string> names;
  return names;
}

bool same_declaration(const KeyDecl& a, const KeyDecl& b) {
  return a.type == b.type && a.default_value == b.default_value && a.description == b.description &&
         a.allowed == b.allowed && a.min == b.min && a.max == b.max && a.min_exclusive == b.min_exclusive &&
         a.max_exclusive == b.max_exclusive && a.required == b.required;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

const std::vector<KeyDecl>& scenario_keys() { return table(); }

bool is_installed_algorithm(const std::string& algorithm) { return contains(installed(), algorithm); }

void install_keys(const std::string& algorithm, const std::vector<KeyDecl>& keys) {
  if (!is_installed_algorithm(algorithm)) installed().push_back(algorithm);
  auto& all = table();
  for (const auto& k : keys) {
    auto same = std::find_if(all.begin(), all.end(), [&](const KeyDecl& d) {
      return d.path == k.path && !d.algorithms.empty() && same_declaration(d, k);
    });
    if (same != all.end()) {
      if (!contains(same->algorithms, algorithm)) same->algorithms.push_back(algorithm);
      continue;
    }
    if (const KeyDecl* taken = find_key(k.path, algorithm))
      throw std::logic_error("scenario key '" + k.path + "' is declared twice for algorithm '" + algorithm + "'" +
                             (taken->algorithms.empty() ? " (it is the simulator's own)" : ", differently"));
    KeyDecl own = k;
    own.algorithms = {algorithm};
    // After the last algorithm.* key, so `fedgrid list keys` keeps them together.
    auto at = all.end();
    for (auto it = all.begin(); it != all.end(); ++it)
      if (it->path == "algorithm" || it->path.rfind("algorithm.", 0) == 0) at = it + 1;
    all.insert(at, std::move(own));
  }
}

const KeyDecl* find_key(const std::string& path, const std::string& algorithm) {
  const bool any = !is_installed_algorithm(algorithm);
  for (const auto& k : scenario_keys())
    if (k.path == path && (any || k.algorithms.empty() || contains(k.algorithms, algorithm))) return &k;
  return nullptr;
}

std::vector<std::string> algorithms_declaring(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& name : installed())
    for (const auto& k : scenario_keys())
      if (k.path == path && contains(k.algorithms, name) && !contains(out, name)) out.push_back(name);
  return out;
}

std::string type_name(KeyType t) {
  switch (t) {
    case KeyType::Int: return "integer";
    case KeyType::Float: return "number";
    case KeyType::String: return "string";
    case KeyType::Bool: return "boolean";
    case KeyType::Map: return "mapping";
    case KeyType::List: return "list";
    case KeyType::IntList: return "integers";
    case KeyType::IntTable: return "integer rows";
    case KeyType::ModelChoice: return "an arch name or a mapping";
  }
  return "?";
}

}  // namespace fedgrid
