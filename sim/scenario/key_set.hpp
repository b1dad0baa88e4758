#pragma once
// Keys declared once and bound to the fields of a settings struct, as ns-3 components declare
// their attributes: name, type, default, bounds and description in one place. The
// declarations make the scenario key table (validation, "did you mean", `fedgrid list keys`,
// the key reference, docs/reference/keys.md); read() fills the struct, every field from its
// key's value or its declared default. The simulator's own keys are one KeySet<Scenario>
// (core_keys.cpp); each algorithm declares its own next to its code:
//
//   struct Settings { double mu = 0; };
//   const KeySet<Settings> kKeys = KeySet<Settings>()
//       .add("mu", &Settings::mu, "0.01", "weight of the proximal term", {.min = 0});
//   Settings s = kKeys.read(fed.scenario());        // algorithm.mu, or 0.01
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/core/mode_names.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/scenario/key_values.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

struct KeyBounds {
  std::optional<double> min = {}, max = {};
  bool min_exclusive = false, max_exclusive = false;
  std::vector<std::string> allowed = {};  // the values a string (or an arch name) may take
  bool required = false;                  // inside a list item: must be given
};

template <class Settings>
class KeySet {
 public:
  using Reader = std::function<void(Settings&, const KeyValues&)>;

  // A key bound to a field. `default_text` is the default as YAML scalar text; std::nullopt:
  // optional, no default (the field keeps its initial value when the key is not given).
  template <class T>
  KeySet& add(const std::string& name, T Settings::*field, std::optional<std::string> default_text,
              std::string description, KeyBounds bounds = {}) {
    return bind<T>(name, [field](Settings& s) -> T& { return s.*field; }, std::move(default_text),
                   std::move(description), std::move(bounds));
  }
  // A key bound to a nested field (access returns a reference to it).
  template <class T, class Access>
  KeySet& bind(const std::string& name, Access access, std::optional<std::string> default_text, std::string description,
               KeyBounds bounds = {}) {
    // An int field holds what an int holds: a larger value is an input error, not yaml-cpp's
    // conversion failure when the key is read.
    if constexpr (std::is_same_v<T, int>) {
      if (!bounds.min) bounds.min = double(std::numeric_limits<int>::min());
      if (!bounds.max) bounds.max = double(std::numeric_limits<int>::max());
    }
    return custom(name, type_of<T>(), std::move(default_text), std::move(description), std::move(bounds),
                  [name, access](Settings& s, const KeyValues& from) {
                    if (auto v = from.value<T>(name)) access(s) = *v;
                  });
  }
  // A mode key: a string whose allowed values are the names of Mode (an enum with its
  // modes_of table beside it: a section's, sim/core/modes.hpp's, or an algorithm's own), so its
  // "is not one of" message too; read once into the enum field, so nothing downstream compares
  // strings.
  template <class Mode>
  KeySet& mode(const std::string& name, Mode Settings::*field, std::string default_text, std::string description) {
    return bind_mode<Mode>(name, [field](Settings& s) -> Mode& { return s.*field; }, std::move(default_text),
                           std::move(description));
  }
  // A mode key bound to a nested field (access returns a reference to it).
  template <class Mode, class Access>
  KeySet& bind_mode(const std::string& name, Access access, std::string default_text, std::string description) {
    if (!mode_named<Mode>(default_text))
      throw std::logic_error("key " + name + ": default '" + default_text + "' is none of its mode's names");
    return custom(name, KeyType::String, std::move(default_text), std::move(description),
                  {.allowed = mode_names<Mode>()}, [name, access](Settings& s, const KeyValues& from) {
                    // The table has checked the value against the allowed names.
                    if (auto v = from.value<std::string>(name)) access(s) = *mode_named<Mode>(*v);
                  });
  }
  // A key read by hand (a conversion, a model choice); `read` may be empty when an enclosing
  // key's reader reads it.
  KeySet& custom(const std::string& name, KeyType type, std::optional<std::string> default_text, std::string description,
                 KeyBounds bounds, Reader read) {
    keys_.push_back({{name, type, std::move(default_text), std::move(description), std::move(bounds.allowed), bounds.min,
                      bounds.max, bounds.min_exclusive, bounds.max_exclusive, bounds.required},
                     std::move(read)});
    return *this;
  }
  // A mapping key that only groups others (algorithm.expansions for .weak, .medium, ...).
  KeySet& group(const std::string& name, std::string description) {
    return custom(name, KeyType::Map, std::nullopt, std::move(description), {}, {});
  }
  // A list of mappings, each item read by `item_keys` into an Item appended to the field.
  template <class Item, class Access>
  KeySet& bind_list(const std::string& name, Access access, std::string description, const KeySet<Item>& item_keys) {
    custom(name, KeyType::List, std::nullopt, std::move(description), {},
           [name, access, item_keys](Settings& s, const KeyValues& from) {
             for (size_t i = 0; i < from.items(name); ++i) access(s).push_back(item_keys.read(from.item(name, i)));
           });
    for (auto d : item_keys.declarations("")) {
      d.path = name + "[]." + d.path;
      keys_.push_back({std::move(d), {}});
    }
    return *this;
  }
  template <class Item>
  KeySet& list(const std::string& name, std::vector<Item> Settings::*field, std::string description,
               const KeySet<Item>& item_keys) {
    return bind_list<Item>(name, [field](Settings& s) -> std::vector<Item>& { return s.*field; }, std::move(description),
                           item_keys);
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
  void read_into(Settings& s, const KeyValues& from) const {
    for (const auto& k : keys_)
      if (k.read) k.read(s, from);
  }
  Settings read(const KeyValues& from) const {
    Settings s{};
    read_into(s, from);
    return s;
  }
  // The scenario's algorithm.* keys, defaults as its algorithm declares them.
  Settings read(const Scenario& scenario) const {
    return read(scenario.algorithm.settings.for_algorithm(scenario.algorithm.name));
  }

 private:
  template <class T>
  static KeyType type_of() {
    if constexpr (std::is_same_v<T, bool>) return KeyType::Bool;
    else if constexpr (std::is_integral_v<T>) return KeyType::Int;
    else if constexpr (std::is_floating_point_v<T>) return KeyType::Float;
    else if constexpr (std::is_same_v<T, std::string>) return KeyType::String;
    else if constexpr (std::is_same_v<T, std::vector<int>>) return KeyType::IntList;
    else if constexpr (std::is_same_v<T, std::vector<std::vector<int>>>) return KeyType::IntTable;
    else static_assert(sizeof(T) == 0, "a key binds to bool, an integer, a floating-point number, a string, ints or rows of ints");
  }
  struct Key {
    KeyDecl decl;
    Reader read;  // empty for groups and the keys of list items
  };
  std::vector<Key> keys_;
};

}  // namespace fedgrid
