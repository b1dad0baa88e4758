// Roster CSV (platform.roster) -> read_roster. Bad input must end as PlatformError (which the
// command line reports with file, line and column, exit code 2).
#include <cstdint>

#include "fuzz/fuzz_files.hpp"
#include "platforms/platform_error.hpp"
#include "platforms/roster.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = fedgrid::fuzz::write_scratch("roster.csv", data, size);
  try {
    fedgrid::platforms::read_roster(file);
  } catch (const fedgrid::platforms::PlatformError&) {
  }
  return 0;
}
