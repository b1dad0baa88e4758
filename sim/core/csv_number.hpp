#pragma once
// A number in a cell of an input CSV (compute profiles, fault traces): the whole cell must be
// a finite number, non-negative (or positive), else an InputError naming file, line and column.
#include <cmath>
#include <string>

#include "sim/core/input_error.hpp"

namespace fedgrid {

inline double csv_number(const std::string& cell, const std::string& file, int line, const std::string& column,
                         bool positive) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(cell, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (cell.empty() || used != cell.size()) throw InputError(file, line, column, "expected a number, got '" + cell + "'");
  if (v < 0 || (positive && v == 0) || !std::isfinite(v))
    throw InputError(file, line, column, std::string("must be ") + (positive ? "positive" : "non-negative") + ", got " + cell);
  return v;
}

}  // namespace fedgrid
