// When LibTorch is loaded (sim/jobs/torch_module.hpp): commands that train nothing start
// without it, a run that trains loads it, and once the torch libraries are there every call the
// torch-free libraries leave to the dynamic linker resolves. What they cost in CPU time and
// memory is bench/startup_cost.sh's (docs/performance.md), not a test's.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

// Whether the dynamic linker's own trace (LD_DEBUG=files, on stderr) names LibTorch's main
// library among those the command loaded; the command's exit code must be 0.
bool loads_libtorch(const std::string& args) {
  const auto r = test::run_fedgrid(args, "LD_DEBUG=files");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output.substr(r.output.size() > 4000 ? r.output.size() - 4000 : 0);
  return r.output.find("libtorch_cpu") != std::string::npos;
}

// A scenario that trains for real in a second: two hospitals, synthetic data, an mlp.
std::string small_training_scenario() {
  const std::string dir = test::temp_dir("startup-train");
  test::write_file(dir + "/s.yaml",
                   "name: startup\nseed: 1\nplatform:\n  hospitals:\n    - {count: 2, tier: weak}\n"
                   "data: {dataset: synthetic, synthetic: {train_samples: 200, test_samples: 50}}\nmodel: {arch: mlp}\n"
                   "stop: {rounds: 1}\n");
  return dir;
}

}  // namespace

TEST(Startup, CommandsThatTrainNothingLeaveLibTorchUnloaded) {
  EXPECT_FALSE(loads_libtorch("--version"));
  EXPECT_FALSE(loads_libtorch("list keys"));
  EXPECT_FALSE(loads_libtorch("list metrics"));
  const std::string quickstart = std::string(test::source_dir()) + "/scenarios/quickstart.yaml";
  // validate reads a training run's data files through, and builds no network.
  EXPECT_FALSE(loads_libtorch("validate " + quickstart));
  // A timing-only run of 102 hospitals: shapes and labels of Fashion-MNIST, no pixels.
  const std::string out = test::temp_dir("startup-timing") + "/out";
  EXPECT_FALSE(loads_libtorch("run " + quickstart + " --set training.mode=timing-only --set 'platform.hospitals[].count=34'" +
                              " --set stop.rounds=1 --out " + out));
  EXPECT_TRUE(std::filesystem::exists(out + "/rounds.csv"));
}

TEST(Startup, ARunThatTrainsLoadsLibTorch) {
  const std::string dir = small_training_scenario();
  EXPECT_TRUE(loads_libtorch("run " + dir + "/s.yaml --out " + dir + "/out"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/summary.json"));
}

// LD_BIND_NOW=1 binds every call at start. With the torch libraries preloaded that must succeed
// (no call the torch-free libraries make is missing from them); without them it must fail, or
// the late binding this rests on was not there to test.
TEST(Startup, EveryLateCallResolvesOnceLibTorchIsLoaded) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan must be the first library loaded; LD_PRELOAD would come before it";
#else
  const auto folder = std::filesystem::path(test::fedgrid_binary()).parent_path();
  std::string preload;
  for (const char* wing : {"models", "jobs", "algorithms"})
    preload += (preload.empty() ? "" : ":") + (folder / ("libfedgrid_" + std::string(wing) + "_torch.so")).string();
  const auto bound = test::run_fedgrid("--version", "LD_BIND_NOW=1 LD_PRELOAD=" + preload);
  EXPECT_EQ(bound.exit_code, 0) << bound.output;
  const auto unbound = test::run_fedgrid("--version", "LD_BIND_NOW=1");
  EXPECT_NE(unbound.exit_code, 0) << unbound.output;
  EXPECT_NE(unbound.output.find("undefined symbol"), std::string::npos) << unbound.output;
#endif
}

}  // namespace fedgrid
