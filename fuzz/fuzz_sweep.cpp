// Sweep file -> load_sweep and the cells it expands into, each cell's overrides applied to its
// base scenario. The sweep is written where the shipped sweeps live (a copy of scenarios/), so
// the seeds' `base: ../quickstart.yaml` resolves. Bad input must end as InputError.
#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz/fuzz_files.hpp"
#include "sim/core/input_error.hpp"
#include "sim/scenario/key_transfer.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fedgrid::install_algorithm_keys_from_yaml(fedgrid::fuzz::read_text(FEDGRID_SOURCE_DIR "/fuzz/algorithm_keys.yaml"));
  fs::copy(FEDGRID_SOURCE_DIR "/scenarios", fedgrid::fuzz::scratch_dir() + "/scenarios", fs::copy_options::recursive);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = fedgrid::fuzz::write_scratch("scenarios/sweeps/fuzz.yaml", data, size);
  try {
    const fedgrid::SweepPlan plan = fedgrid::load_sweep(file, fedgrid::fuzz::scratch_dir() + "/out");
    // What `fedgrid sweep` checks next, per cell, is the cell's own scenario: a few are enough.
    const auto cells = plan.cells();
    for (size_t i = 0; i < cells.size() && i < 4; ++i) fedgrid::load_scenario(plan.base, cells[i].overrides);
  } catch (const fedgrid::InputError&) {
  }
  return 0;
}
