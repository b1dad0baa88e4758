#pragma once
// A mode: a key whose value picks one of a few ways of doing something. Each is an enum read
// once, when the scenario is loaded, so nothing downstream compares strings; its names are
// declared once, beside the enum, in a `modes_of` table found by argument-dependent lookup: the
// key's allowed values (and so the "is not one of" message), the reader, and the name outputs
// print (summary.json). The scenario's sections declare theirs (sim/scenario/sections/), the
// compute side's in sim/core/modes.hpp, codecs and algorithms beside their code.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fedgrid {

template <class Mode>
struct ModeName {
  Mode mode;
  std::string_view name;  // as a scenario writes it (a literal: data() ends in '\0')
};

// The name of `mode`, as a scenario writes it.
template <class Mode>
constexpr std::string_view mode_name(Mode mode) {
  for (const auto& m : modes_of(mode))
    if (m.mode == mode) return m.name;
  return "?";  // not reached: every enumerator has its name
}

// The mode named `name`, or nullopt.
template <class Mode>
constexpr std::optional<Mode> mode_named(std::string_view name) {
  for (const auto& m : modes_of(Mode{}))
    if (m.name == name) return m.mode;
  return std::nullopt;
}

// Every name of the mode, in declaration order (the key's allowed values).
template <class Mode>
std::vector<std::string> mode_names() {
  std::vector<std::string> out;
  for (const auto& m : modes_of(Mode{})) out.emplace_back(m.name);
  return out;
}

}  // namespace fedgrid
