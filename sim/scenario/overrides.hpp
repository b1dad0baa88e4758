#pragma once
// --set overrides: "a.b.c=value". A list item is written as docs/reference/keys.md writes list
// keys: platform.hospitals[0].count=5 (or platform.hospitals.0.count=5), and [] sets the key in
// every item: platform.hospitals[].uplink_bps=5e6.
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace fedgrid {

std::vector<std::string> split_path(const std::string& path);
// Applies the overrides to `root`; returns the keys they set, list items as [i].
std::set<std::string> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides);

}  // namespace fedgrid
