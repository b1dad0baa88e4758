// Checkpoint files: every value comes back bit for bit; a file is whole or refused.
#include <cmath>
#include <filesystem>
#include <limits>

#include "sim/core/input_error.hpp"
#include "sim/engine/state_file.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::temp_dir;

StateWriter sample() {
  StateWriter w;
  w.put("round", int64_t{7});
  w.put("clock", 12.345678901234567);
  w.put("tiny", std::nextafter(0.0, 1.0));  // a denormal: bits, not decimal digits
  w.put("name", std::string("fedavg"));
  w.put("m", std::vector<double>{0.1, -0.0, 1e300});
  w.put("order", std::vector<int64_t>{3, 1, 2});
  Model model{models::ModelSpec{"cnn", 1, 28, 28, 10, 0.5}, {1.5f, -2.25f, 3e-8f}, 0};
  w.put("global", model);
  w.put("shape_only", shape_only_model(models::ModelSpec{"lenet5", 3, 32, 32, 5, 1.0}, 1234));
  return w;
}

TEST(StateFile, EveryValueComesBackBitForBit) {
  const std::string path = temp_dir("state") + "/checkpoint.bin";
  sample().save(path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  StateReader r(path);
  EXPECT_EQ(r.integer("round"), 7);
  EXPECT_EQ(r.real("clock"), 12.345678901234567);
  EXPECT_EQ(r.real("tiny"), std::nextafter(0.0, 1.0));
  EXPECT_EQ(r.text("name"), "fedavg");
  const auto m = r.reals("m");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_TRUE(std::signbit(m[1]));
  EXPECT_EQ(m[2], 1e300);
  EXPECT_EQ(r.integers("order"), (std::vector<int64_t>{3, 1, 2}));
  const Model g = r.model("global");
  EXPECT_EQ(g.spec, (models::ModelSpec{"cnn", 1, 28, 28, 10, 0.5}));
  EXPECT_EQ(g.weights, (std::vector<float>{1.5f, -2.25f, 3e-8f}));
  const Model s = r.model("shape_only");
  EXPECT_FALSE(s.holds_state());
  EXPECT_EQ(s.values(), 1234);
  EXPECT_EQ(s.spec.arch, "lenet5");
}

TEST(StateFile, SavingAgainReplacesTheWholeFile) {
  const std::string path = temp_dir("state-again") + "/checkpoint.bin";
  sample().save(path);
  StateWriter w;
  w.put("round", int64_t{8});
  w.save(path);
  StateReader r(path);
  EXPECT_EQ(r.integer("round"), 8);
  EXPECT_FALSE(r.has("clock"));
}

TEST(StateFile, ADamagedOrTruncatedFileIsRefusedWithItsName) {
  const std::string dir = temp_dir("state-bad"), path = dir + "/checkpoint.bin";
  sample().save(path);
  std::string bytes = test::read_file(path);
  auto refused = [&](const std::string& content, const std::string& why) {
    test::write_file(dir + "/bad.bin", content);
    try {
      StateReader r(dir + "/bad.bin");
      ADD_FAILURE() << "accepted a file that is " << why;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(dir + "/bad.bin"), std::string::npos) << e.what();
    }
  };
  refused(bytes.substr(0, bytes.size() - 3), "truncated");
  std::string flipped = bytes;
  flipped[flipped.size() - 2] ^= 0x10;
  refused(flipped, "damaged");
  refused("not a checkpoint", "something else");
  EXPECT_THROW(StateReader(dir + "/absent.bin"), InputError);
}

TEST(StateFile, AValueAskedWithTheWrongTypeOrNameIsAnError) {
  const std::string path = temp_dir("state-type") + "/checkpoint.bin";
  sample().save(path);
  StateReader r(path);
  EXPECT_THROW(r.real("round"), InputError);
  EXPECT_THROW(r.integer("absent"), InputError);
  StateWriter w;
  w.put("x", 1.0);
  EXPECT_THROW(w.put("x", 2.0), std::logic_error);
}

}  // namespace
}  // namespace fedgrid
