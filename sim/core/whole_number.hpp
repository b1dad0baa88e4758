#pragma once
// A number given as text (a CSV cell, a command-line value): the whole text must be one finite
// number. Each reader says what range it takes and how it reports a bad one.
#include <cmath>
#include <optional>
#include <string>

namespace fedgrid {

// The number `text` holds as a whole; none for empty text, trailing characters, or a number
// that is not finite ("inf", "nan", or out of range).
inline std::optional<double> whole_number(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace fedgrid
