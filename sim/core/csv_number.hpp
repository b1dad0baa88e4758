#pragma once
// A number in a cell of an input CSV (compute profiles, fault traces): the whole cell must be
// a finite number, non-negative (or positive), else an InputError naming file, line and column.
#include <cmath>
#include <string>

#include "sim/core/input_error.hpp"
#include "sim/core/whole_number.hpp"

namespace fedgrid {

inline double csv_number(const std::string& cell, const std::string& file, int line, const std::string& column,
                         bool positive) {
  // A number out of double's range ("1e999") is no number; "inf" and "nan" neither.
  const auto number = whole_number(cell);
  if (!number) throw InputError(file, line, column, "expected a number, got '" + cell + "'");
  const double v = *number;
  if (v < 0 || (positive && v == 0))
    throw InputError(file, line, column, std::string("must be ") + (positive ? "positive" : "non-negative") + ", got " + cell);
  return v;
}

}  // namespace fedgrid
