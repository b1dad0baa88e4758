// Surrogate accuracy curve (training.surrogate, any CSV with round and accuracy columns) ->
// AccuracyCurve::load, then the curve read at every round it covers. Bad input: InputError.
#include <cstdint>

#include "fuzz/fuzz_files.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/surrogate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = fedgrid::fuzz::write_scratch("curve.csv", data, size);
  try {
    const auto curve = fedgrid::AccuracyCurve::load(file);
    for (int round = 0; round <= curve.last_round() + 1 && round < 10000; ++round) {
      const auto accuracy = curve.at(round);
      if (accuracy && !(*accuracy >= 0 && *accuracy <= 1)) __builtin_trap();  // interpolation stays within 0..1
    }
  } catch (const fedgrid::InputError&) {
  }
  return 0;
}
