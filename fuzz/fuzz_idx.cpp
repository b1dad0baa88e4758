// IDX dataset folder (data.dataset: idx:DIR) -> load_idx_dir. The input holds the four files
// (train images, train labels, test images, test labels; fuzz_files.hpp's split_parts).
// Bad input must end as DataError, which the command line reports with the file, exit code 2.
#include <cstdint>
#include <filesystem>

#include "data/sources.hpp"
#include "fuzz/fuzz_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* names[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                                "t10k-labels-idx1-ubyte"};
  const auto parts = fedgrid::fuzz::split_parts(data, size, 4);
  std::filesystem::create_directories(fedgrid::fuzz::scratch_dir() + "/idx");
  for (size_t i = 0; i < 4; ++i)
    fedgrid::fuzz::write_scratch(std::string("idx/") + names[i], reinterpret_cast<const uint8_t*>(parts[i].data()),
                                 parts[i].size());
  try {
    fedgrid::data::load_idx_dir(fedgrid::fuzz::scratch_dir() + "/idx", "fuzz", 10);
  } catch (const fedgrid::data::DataError&) {
  }
  return 0;
}
