#pragma once
// --set overrides: "a.b.c=value" (list items by index: platform.hospitals.0.count=5).
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace fedgrid {

std::vector<std::string> split_path(const std::string& path);
// Applies the overrides to `root`; returns the keys they set, list items as [i].
std::set<std::string> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides);

}  // namespace fedgrid
