#include "sim/engine/surrogate.hpp"

#include <libfccp/csv.h>

#include <filesystem>

#include "sim/core/input_error.hpp"

namespace fedgrid {

namespace {

template <class T>
T parse_cell(const std::string& cell, const std::string& file, int line, const char* column) {
  size_t used = 0;
  T value{};
  try {
    if constexpr (std::is_same_v<T, int>) value = std::stoi(cell, &used);
    else value = std::stod(cell, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (cell.empty() || used != cell.size())
    throw InputError(file, line, column, "expected a number, got '" + cell + "'");
  return value;
}

}  // namespace

AccuracyCurve AccuracyCurve::load(const std::string& file) {
  if (std::error_code ec; !std::filesystem::exists(file, ec)) throw InputError(file, 0, "training.surrogate", "surrogate curve not found");
  AccuracyCurve curve;
  try {
    io::CSVReader<2, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_line_comment<'#'>>
        in(file);
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "round", "accuracy");
    for (const char* required : {"round", "accuracy"})
      if (!in.has_column(required)) throw InputError(file, 1, required, "required column is missing");
    std::string round_cell, accuracy_cell;
    while (in.read_row(round_cell, accuracy_cell)) {
      const int line = int(in.get_file_line());
      const int round = parse_cell<int>(round_cell, file, line, "round");
      if (round < 1) throw InputError(file, line, "round", "rounds start at 1, got " + round_cell);
      if (accuracy_cell.empty()) continue;  // a round the earlier run did not evaluate
      const double accuracy = parse_cell<double>(accuracy_cell, file, line, "accuracy");
      if (accuracy < 0 || accuracy > 1) throw InputError(file, line, "accuracy", "must be within 0..1, got " + accuracy_cell);
      if (!curve.points_.emplace(round, accuracy).second)
        throw InputError(file, line, "round", "round " + round_cell + " appears twice");
    }
  } catch (const io::error::base& e) {
    throw InputError(file, 0, "training.surrogate", e.what());
  }
  if (curve.points_.empty()) throw InputError(file, 0, "training.surrogate", "the curve has no accuracy values");
  return curve;
}

std::optional<double> AccuracyCurve::at(int round) const {
  auto hi = points_.lower_bound(round);
  if (hi == points_.end()) return std::nullopt;
  if (hi->first == round) return hi->second;
  if (hi == points_.begin()) return std::nullopt;
  auto lo = std::prev(hi);
  const double t = double(round - lo->first) / double(hi->first - lo->first);
  return lo->second + t * (hi->second - lo->second);
}

}  // namespace fedgrid
