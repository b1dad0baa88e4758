#include "sim/scenario/key_transfer.hpp"

#include <yaml-cpp/yaml.h>

#include <stdexcept>

namespace fedgrid {
namespace {

void emit(YAML::Emitter& out, const std::vector<KeyDecl>& keys) {
  out << YAML::BeginSeq;
  for (const auto& k : keys) {
    out << YAML::BeginMap << YAML::Key << "path" << YAML::Value << k.path << YAML::Key << "type" << YAML::Value
        << int(k.type) << YAML::Key << "description" << YAML::Value << k.description;
    if (k.default_value) out << YAML::Key << "default" << YAML::Value << *k.default_value;
    if (!k.allowed.empty()) out << YAML::Key << "allowed" << YAML::Value << YAML::Flow << k.allowed;
    if (k.min) out << YAML::Key << "min" << YAML::Value << *k.min;
    if (k.max) out << YAML::Key << "max" << YAML::Value << *k.max;
    out << YAML::Key << "min_exclusive" << YAML::Value << k.min_exclusive << YAML::Key << "max_exclusive"
        << YAML::Value << k.max_exclusive << YAML::Key << "required" << YAML::Value << k.required << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

std::vector<KeyDecl> read(const YAML::Node& list) {
  std::vector<KeyDecl> keys;
  for (const auto& n : list) {
    KeyDecl k{n["path"].as<std::string>(), KeyType(n["type"].as<int>()), std::nullopt, n["description"].as<std::string>()};
    if (n["default"]) k.default_value = n["default"].as<std::string>();
    if (n["allowed"]) k.allowed = n["allowed"].as<std::vector<std::string>>();
    if (n["min"]) k.min = n["min"].as<double>();
    if (n["max"]) k.max = n["max"].as<double>();
    k.min_exclusive = n["min_exclusive"].as<bool>();
    k.max_exclusive = n["max_exclusive"].as<bool>();
    k.required = n["required"].as<bool>();
    keys.push_back(std::move(k));
  }
  return keys;
}

}  // namespace

std::string keys_to_yaml(const std::vector<KeyDecl>& keys) {
  YAML::Emitter out;
  emit(out, keys);
  return out.c_str();
}

std::vector<KeyDecl> keys_from_yaml(const std::string& text) {
  try {
    return read(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("malformed key declarations: ") + e.what());
  }
}

std::string algorithm_keys_to_yaml(const std::vector<AlgorithmKeys>& algorithms) {
  YAML::Emitter out;
  out << YAML::BeginSeq;
  for (const auto& a : algorithms) {
    out << YAML::BeginMap << YAML::Key << "algorithm" << YAML::Value << a.algorithm << YAML::Key << "keys"
        << YAML::Value;
    emit(out, a.keys);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  return out.c_str();
}

void install_algorithm_keys_from_yaml(const std::string& text) {
  std::vector<AlgorithmKeys> algorithms;
  try {
    for (const auto& n : YAML::Load(text)) algorithms.push_back({n["algorithm"].as<std::string>(), read(n["keys"])});
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("malformed key declarations: ") + e.what());
  }
  for (const auto& a : algorithms) install_keys(a.algorithm, a.keys);
}

}  // namespace fedgrid
