// fuzz/algorithm_keys.yaml: each algorithm's key declarations, which the scenario and sweep fuzz
// harnesses validate with (they link no algorithm). It must stay the
// registry's, or the harnesses would fuzz a different key table than fedgrid's.
#include <gtest/gtest.h>

#include <filesystem>

#include "algorithms/registry.hpp"
#include "sim/scenario/key_transfer.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

TEST(FuzzHarnesses, AlgorithmKeysFileIsTheRegistrys) {
  const std::string expected = algorithm_keys_to_yaml(algorithms::algorithm_keys());
  const std::string file = std::string(test::source_dir()) + "/fuzz/algorithm_keys.yaml";
  if (test::read_file(file) != expected) {
    const auto fresh = std::filesystem::temp_directory_path() / "fedgrid_algorithm_keys.yaml";
    test::write_file(fresh.string(), expected);
    FAIL() << file << " differs from the algorithms' declarations: copy " << fresh.string() << " there";
  }
  // What the harnesses do with it, here on top of the registry's: nothing changes, as a declaration
  // the trip through YAML altered would be a second, different one (std::logic_error).
  const size_t before = scenario_keys().size();
  install_algorithm_keys_from_yaml(expected);
  EXPECT_EQ(scenario_keys().size(), before);
  EXPECT_GT(before, 0u);
}

}  // namespace
}  // namespace fedgrid
