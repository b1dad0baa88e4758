// MedMNIST .npz archive (data.dataset: npz:FILE) -> load_npz. Bad input must end as DataError.
#include <cstdint>

#include "data/sources.hpp"
#include "fuzz/fuzz_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = fedgrid::fuzz::write_scratch("data.npz", data, size);
  try {
    fedgrid::data::load_npz(file, "fuzz");
  } catch (const fedgrid::data::DataError&) {
  }
  return 0;
}
