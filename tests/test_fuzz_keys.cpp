// fuzz/algorithm_keys.yaml: the algorithms' key declarations the scenario and sweep fuzz
// harnesses validate with (they link no algorithm, like the MPI rank binary). It must stay the
// registry's, or the harnesses would fuzz a different key table than fedgrid's.
#include <gtest/gtest.h>

#include <filesystem>

#include "algorithms/registry.hpp"
#include "sim/scenario/key_transfer.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

TEST(FuzzHarnesses, AlgorithmKeysFileIsTheRegistrys) {
  std::vector<KeyDecl> keys;
  for (const auto& alg : algorithms::registry()) keys.insert(keys.end(), alg.keys.begin(), alg.keys.end());
  const std::string expected = keys_to_yaml(keys);
  const std::string file = std::string(FEDGRID_SOURCE_DIR) + "/fuzz/algorithm_keys.yaml";
  if (test::read_file(file) != expected) {
    const auto fresh = std::filesystem::temp_directory_path() / "fedgrid_algorithm_keys.yaml";
    test::write_file(fresh.string(), expected);
    FAIL() << file << " differs from the algorithms' declarations: copy " << fresh.string() << " there";
  }
  EXPECT_FALSE(keys_from_yaml(expected).empty());
}

}  // namespace
}  // namespace fedgrid
