// Scenario YAML text -> load and validate, as `fedgrid validate` reads a scenario (with every
// algorithm's own keys in the key table). Bad input must end as InputError, nothing else.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_files.hpp"
#include "sim/core/input_error.hpp"
#include "sim/scenario/key_transfer.hpp"
#include "sim/scenario/scenario.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The harness links no algorithm: their declarations come from the file the test suite keeps
  // equal to the registry (tests/test_fuzz_keys.cpp).
  fedgrid::install_algorithm_keys_from_yaml(fedgrid::fuzz::read_text(FEDGRID_SOURCE_DIR "/fuzz/algorithm_keys.yaml"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    fedgrid::load_scenario_text(text, fedgrid::fuzz::scratch_dir() + "/scenario.yaml");
  } catch (const fedgrid::InputError&) {
  }
  return 0;
}
