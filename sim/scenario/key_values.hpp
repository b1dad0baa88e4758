#pragma once
// The values of a scenario's keys below one prefix, as the loader validated them: each read
// through its declaration (its value, else the declared default). KeySet (key_set.hpp) reads
// them into a settings struct; the algorithm: section is one (Scenario::algorithm.settings).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace fedgrid {

class KeyValues {
 public:
  KeyValues();  // empty: every key at its default
  // The key's value (dotted name below the prefix, e.g. "expansions.weak"), else its declared
  // default; nullopt when neither. T: bool, int, int64_t, uint64_t, double, std::string,
  // std::vector<int>, std::vector<std::vector<int>>.
  template <class T>
  std::optional<T> value(const std::string& name) const;
  bool given(const std::string& name) const;      // set (not null) in the file or by --set
  bool is_mapping(const std::string& name) const;  // given as a mapping (a model choice's long form)
  // A list key: how many items it has, and item i's values (its keys' defaults are the list's
  // item declarations, prefix "<prefix>.<name>[]").
  size_t items(const std::string& name) const;
  KeyValues item(const std::string& name, size_t i) const;
  KeyValues section(const std::string& name) const;  // the values below a mapping key
  // The same values, defaults read from `algorithm`'s declarations (two algorithms may declare
  // one key differently: key_table.hpp). KeySet::read(scenario) reads with the scenario's.
  KeyValues for_algorithm(const std::string& algorithm) const;

  struct Node;  // the validated YAML (key_values.cpp)
  KeyValues(std::shared_ptr<const Node> node, std::string declared_prefix, std::string algorithm = "");

 private:
  std::string declared(const std::string& name) const;
  std::shared_ptr<const Node> node_;
  std::string prefix_;  // declared path of this level: "" (the root), "algorithm", "algorithm.x[]"
  std::string algorithm_;  // whose declarations give the defaults; "": the first of each path
};

}  // namespace fedgrid
