#pragma once
// An algorithm's own scenario keys, declared once next to its code and bound to the fields of
// its settings struct, as ns-3 components declare their attributes: name, type, default,
// bounds and description in one place. The declarations join the scenario key table
// (validation, "did you mean", `fedgrid list keys`, the README's key reference); read() fills
// the struct from a scenario, every field from its key's value or its declared default.
//
//   struct Settings { double mu = 0; };
//   const KeySet<Settings> kKeys = KeySet<Settings>()
//       .add("mu", &Settings::mu, "0.01", "weight of the proximal term", {.min = 0});
//   Settings s = kKeys.read(fed.scenario());        // algorithm.mu, or 0.01
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/scenario/key_table.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

struct KeyBounds {
  std::optional<double> min = {}, max = {};
  bool min_exclusive = false;
  std::vector<std::string> allowed = {};  // the values a string may take
  bool required = false;                  // inside a list item: must be given
};

template <class Settings>
class KeySet {
 public:
  // A key under algorithm. (or under the list item, for a list's item keys) bound to `field`.
  // `default_text` is the YAML scalar of the default; std::nullopt: optional, no default (the
  // field keeps its initial value when the key is not given).
  template <class T>
  KeySet& add(const std::string& name, T Settings::*field, std::optional<std::string> default_text,
              std::string description, KeyBounds bounds = {}) {
    keys_.push_back({{name, type_of<T>(), std::move(default_text), std::move(description), bounds.allowed, bounds.min,
                      bounds.max, bounds.min_exclusive, bounds.required},
                     [name, field](Settings& s, const AlgorithmSettings& from) {
                       if (auto v = from.value<T>(name)) s.*field = *v;
                     }});
    return *this;
  }
  // A mapping key that only groups others (algorithm.expansions for .weak, .medium, ...).
  KeySet& group(const std::string& name, std::string description) {
    keys_.push_back({{name, KeyType::Map, std::nullopt, std::move(description)}, {}});
    return *this;
  }
  // A list of mappings, each item read by `item_keys` into an Item.
  template <class Item>
  KeySet& list(const std::string& name, std::vector<Item> Settings::*field, std::string description,
               const KeySet<Item>& item_keys) {
    keys_.push_back({{name, KeyType::List, std::nullopt, std::move(description)}, [name, field, item_keys](Settings& s, const AlgorithmSettings& from) {
                       for (size_t i = 0; i < from.items(name); ++i) (s.*field).push_back(item_keys.read(from.item(name, i)));
                     }});
    for (auto d : item_keys.declarations("")) {
      d.path = name + "[]." + d.path;
      keys_.push_back({std::move(d), {}});
    }
    return *this;
  }

  // The declarations, paths under `prefix` ("algorithm" for an algorithm's own keys).
  std::vector<KeyDecl> declarations(const std::string& prefix = "algorithm") const {
    std::vector<KeyDecl> out;
    for (const auto& k : keys_) {
      KeyDecl d = k.decl;
      if (!prefix.empty()) d.path = prefix + "." + d.path;
      out.push_back(std::move(d));
    }
    return out;
  }
  Settings read(const AlgorithmSettings& from) const {
    Settings s{};
    for (const auto& k : keys_)
      if (k.read) k.read(s, from);
    return s;
  }
  Settings read(const Scenario& scenario) const { return read(scenario.algorithm.settings); }

 private:
  template <class T>
  static KeyType type_of() {
    if constexpr (std::is_same_v<T, bool>) return KeyType::Bool;
    else if constexpr (std::is_integral_v<T>) return KeyType::Int;
    else if constexpr (std::is_floating_point_v<T>) return KeyType::Float;
    else if constexpr (std::is_same_v<T, std::string>) return KeyType::String;
    else if constexpr (std::is_same_v<T, std::vector<int>>) return KeyType::IntList;
    else static_assert(sizeof(T) == 0, "a key binds to bool, an integer, a floating-point number, a string or ints");
  }
  struct Key {
    KeyDecl decl;
    std::function<void(Settings&, const AlgorithmSettings&)> read;  // empty for groups and item keys
  };
  std::vector<Key> keys_;
};

}  // namespace fedgrid
