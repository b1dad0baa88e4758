// --set key.path=value overrides, applied to the YAML tree before validation.
#include "sim/scenario/overrides.hpp"

#include <algorithm>
#include <sstream>

#include "sim/core/input_error.hpp"

namespace fedgrid {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  return parts;
}

// Applies "a.b.c=value" (list items by index: platform.hospitals.0.count=5).
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
    auto parts = split_path(path);
    std::vector<YAML::Node> chain{root};
    std::string concrete;
    for (size_t i = 0; i < parts.size(); ++i) {
      YAML::Node cur = chain.back();
      const bool last = i + 1 == parts.size();
      const bool index = cur.IsSequence() && !parts[i].empty() &&
                         std::all_of(parts[i].begin(), parts[i].end(), ::isdigit);
      if (index) {
        // More digits than any list holds items: out of range, before stoul would overflow.
        const size_t k = parts[i].size() > 9 ? cur.size() : std::stoul(parts[i]);
        if (k >= cur.size())
          throw InputError("--set", 0, path, "list index " + parts[i] + " out of range");
        concrete += "[" + parts[i] + "]";
        if (last) cur[k] = value;
        else chain.push_back(cur[k]);
      } else {
        concrete += (concrete.empty() ? "" : ".") + parts[i];
        if (last) cur[parts[i]] = value;
        else {
          if (!cur[parts[i]] || cur[parts[i]].IsNull()) cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
          chain.push_back(cur[parts[i]]);
        }
      }
    }
    overridden.insert(concrete);
  }
  return overridden;
}

}  // namespace fedgrid
