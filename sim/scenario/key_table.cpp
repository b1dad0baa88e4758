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

bool same_declaration(const KeyDecl& a, const KeyDecl& b) {
  return a.type == b.type && a.default_value == b.default_value && a.allowed == b.allowed && a.min == b.min &&
         a.max == b.max && a.min_exclusive == b.min_exclusive && a.max_exclusive == b.max_exclusive &&
         a.required == b.required;
}

}  // namespace

const std::vector<KeyDecl>& scenario_keys() { return table(); }

void install_keys(const std::vector<KeyDecl>& keys) {
  auto& all = table();
  for (const auto& k : keys) {
    auto same = std::find_if(all.begin(), all.end(), [&](const KeyDecl& d) { return d.path == k.path; });
    if (same != all.end()) {
      if (!same_declaration(*same, k))
        throw std::logic_error("scenario key '" + k.path + "' is declared twice, differently");
      continue;
    }
    // After the last algorithm.* key, so `fedgrid list keys` keeps them together.
    auto at = all.end();
    for (auto it = all.begin(); it != all.end(); ++it)
      if (it->path == "algorithm" || it->path.rfind("algorithm.", 0) == 0) at = it + 1;
    all.insert(at, k);
  }
}

const KeyDecl* find_key(const std::string& path) {
  for (const auto& k : scenario_keys())
    if (k.path == path) return &k;
  return nullptr;
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
    case KeyType::ModelChoice: return "an arch name or a mapping";
  }
  return "?";
}

}  // namespace fedgrid
