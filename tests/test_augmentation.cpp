// data.augment (issue 36): the per-sample affine transform moves known pixels where it should,
// its draw is a pure function of (job seed, epoch, sample), runs with it are byte-identical
// however many workers or threads train, and bad settings or non-image data exit 2 naming the key.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include "data/rng.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/jobs/training/augmentation.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using jobs::AffineDraw;

// A 1 x 1 x 4 x 4 image, zero but for a one at (row, col).
torch::Tensor one_hot(int row, int col) {
  torch::Tensor x = torch::zeros({1, 1, 4, 4});
  x[0][0][row][col] = 1;
  return x;
}

// Where the single bright pixel of `x` lies, as row * 4 + col; checks that it is exact.
int64_t bright_pixel(const torch::Tensor& x) {
  const torch::Tensor flat = x.reshape({-1});
  const int64_t at = flat.argmax().item<int64_t>();
  EXPECT_NEAR(flat[at].item<float>(), 1.0f, 1e-5f);
  EXPECT_NEAR(flat.sum().item<float>(), 1.0f, 1e-5f);
  return at;
}

TEST(Augmentation, IdentityLeavesTheImage) {
  const torch::Tensor x = torch::rand({2, 3, 5, 7});
  EXPECT_TRUE(torch::allclose(jobs::transform_images(x, {AffineDraw{}, AffineDraw{}}), x, 1e-5, 1e-6));
}

TEST(Augmentation, FlipMirrorsLeftRight) {
  EXPECT_EQ(bright_pixel(jobs::transform_images(one_hot(0, 1), {AffineDraw{.flip = true}})), 0 * 4 + 2);
  EXPECT_EQ(bright_pixel(jobs::transform_images(one_hot(3, 0), {AffineDraw{.flip = true}})), 3 * 4 + 3);
}

TEST(Augmentation, NinetyDegreesTurnsClockwiseOnScreen) {
  // y points down: +90 degrees takes the right-pointing axis to the downward one, so
  // (row 0, col 1) -> (row 1, col 3).
  EXPECT_EQ(bright_pixel(jobs::transform_images(one_hot(0, 1), {AffineDraw{.angle_deg = 90}})), 1 * 4 + 3);
  EXPECT_EQ(bright_pixel(jobs::transform_images(one_hot(0, 1), {AffineDraw{.angle_deg = -90}})), 2 * 4 + 0);
}

TEST(Augmentation, TranslationByAQuarterMovesOnePixel) {
  EXPECT_EQ(bright_pixel(jobs::transform_images(one_hot(1, 1), {AffineDraw{.shift_x = 0.25}})), 1 * 4 + 2);
  EXPECT_EQ(bright_pixel(jobs::transform_images(one_hot(1, 1), {AffineDraw{.shift_y = 0.25}})), 2 * 4 + 1);
  // A pixel shifted out of the image leaves zeros (zero padding).
  EXPECT_EQ(jobs::transform_images(one_hot(1, 3), {AffineDraw{.shift_x = 0.25}}).sum().item<float>(), 0.0f);
}

TEST(Augmentation, NonSquareImagesRotateWithoutShear) {
  // On a 1 x 2 x 4 image a half turn maps (row 0, col 0) to (row 1, col 3): the aspect ratio is kept.
  torch::Tensor x = torch::zeros({1, 1, 2, 4});
  x[0][0][0][0] = 1;
  const torch::Tensor y = jobs::transform_images(x, {AffineDraw{.angle_deg = 180}});
  EXPECT_NEAR(y[0][0][1][3].item<float>(), 1.0f, 1e-5f);
  EXPECT_NEAR(y.sum().item<float>(), 1.0f, 1e-5f);
}

TEST(Augmentation, EachImageOfABatchGetsItsOwnTransform) {
  const torch::Tensor x = torch::cat({one_hot(0, 1), one_hot(0, 1)});
  const torch::Tensor y = jobs::transform_images(x, {AffineDraw{.flip = true}, AffineDraw{}});
  EXPECT_EQ(bright_pixel(y[0]), 2);
  EXPECT_EQ(bright_pixel(y[1]), 1);
}

TEST(Augmentation, TheDrawIsAFunctionOfSeedEpochAndSample) {
  const AugmentSettings s{.flip = true, .rotate_deg = 15, .translate = 0.1, .scale_min = 0.9, .scale_max = 1.1};
  const uint64_t job = mix_seed(42, seed_streams::kTrain, 3, 5);
  auto same = [](const AffineDraw& a, const AffineDraw& b) {
    return a.flip == b.flip && a.angle_deg == b.angle_deg && a.scale == b.scale && a.shift_x == b.shift_x &&
           a.shift_y == b.shift_y;
  };
  EXPECT_TRUE(same(jobs::draw_affine(s, job, 2, 17), jobs::draw_affine(s, job, 2, 17)));
  EXPECT_FALSE(same(jobs::draw_affine(s, job, 2, 17), jobs::draw_affine(s, job, 3, 17)));  // another epoch
  EXPECT_FALSE(same(jobs::draw_affine(s, job, 2, 17), jobs::draw_affine(s, job, 2, 18)));  // another sample
  EXPECT_FALSE(same(jobs::draw_affine(s, job, 2, 17),
                    jobs::draw_affine(s, mix_seed(42, seed_streams::kTrain, 4, 5), 2, 17)));  // another hospital
  // Within the ranges, and covering them: over many samples both flips occur.
  int flips = 0;
  for (int64_t i = 0; i < 400; ++i) {
    const AffineDraw d = jobs::draw_affine(s, job, 0, i);
    flips += d.flip;
    EXPECT_LE(std::abs(d.angle_deg), 15);
    EXPECT_LE(std::abs(d.shift_x), 0.1);
    EXPECT_LE(std::abs(d.shift_y), 0.1);
    EXPECT_GE(d.scale, 0.9);
    EXPECT_LE(d.scale, 1.1);
  }
  EXPECT_GT(flips, 150);
  EXPECT_LT(flips, 250);
  // What is switched off stays at the identity.
  const AffineDraw off = jobs::draw_affine(AugmentSettings{.rotate_deg = 10}, job, 0, 1);
  EXPECT_FALSE(off.flip);
  EXPECT_EQ(off.scale, 1);
  EXPECT_EQ(off.shift_x, 0);
  EXPECT_NE(off.angle_deg, 0);
}

const char* kAugment =
    " --set data.augment.flip=true --set data.augment.rotate_deg=15 --set data.augment.translate=0.1"
    " --set data.augment.scale_min=0.9 --set data.augment.scale_max=1.1";

TEST(Augmentation, RunsAreByteIdenticalAcrossWorkersAndThreadsAndDifferFromUnaugmented) {
  const std::string yaml = test::tiny_scenario("augment");
  const std::string rounds = "/rounds.csv";
  const auto once = test::run_ok("augment-1", yaml, std::string(kAugment) + " --set training.workers=1");
  const auto twice = test::run_ok("augment-2", yaml, std::string(kAugment) + " --set training.workers=1");
  const auto workers = test::run_ok("augment-w2", yaml, std::string(kAugment) + " --set training.workers=2");
  const auto threads = test::run_ok(
      "augment-t2", yaml, std::string(kAugment) + " --set training.workers=1 --set training.threads_per_worker=2");
  const auto off = test::run_ok("augment-off", yaml, "--set training.workers=1");
  for (const char* f : {"/rounds.csv", "/hospitals.csv", "/events.csv"}) {
    EXPECT_EQ(test::read_file(once + f), test::read_file(twice + f)) << f;
    EXPECT_EQ(test::read_file(once + f), test::read_file(workers + f)) << f;
    EXPECT_EQ(test::read_file(once + f), test::read_file(threads + f)) << f;
  }
  EXPECT_NE(test::read_file(once + rounds), test::read_file(off + rounds));
  // All keys at their defaults is off: the same bytes as no key at all.
  const auto defaults = test::run_ok("augment-defaults", yaml,
                                     "--set training.workers=1 --set data.augment.flip=false "
                                     "--set data.augment.scale_min=1");
  EXPECT_EQ(test::read_file(defaults + rounds), test::read_file(off + rounds));
}

// `fedgrid validate` on the tiny scenario with `augment` written as data.augment's map.
// `training` replaces the scenario's training section when given.
test::CommandResult validate_with(const std::string& dir, const std::string& augment, const std::string& training = "") {
  std::string yaml = test::tiny_scenario("bad");
  yaml.replace(yaml.find("data:\n"), 6, "data:\n  augment: " + augment + "\n");
  const std::string plain = "training: {lr: 0.05, batch_size: 16}";
  if (!training.empty()) yaml.replace(yaml.find(plain), plain.size(), training);
  test::write_file(dir + "/s.yaml", yaml);
  return test::run_fedgrid("validate " + dir + "/s.yaml");
}

TEST(Augmentation, BadValuesExitTwoNamingFileLineAndKey) {
  const std::string dir = test::temp_dir("augment-bad");
  const auto ok = validate_with(dir, "{flip: true, rotate_deg: 15, translate: 0.1, scale_min: 0.9, scale_max: 1.1}");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  const auto negative = validate_with(dir, "{rotate_deg: -5}");
  EXPECT_EQ(negative.exit_code, 2) << negative.output;
  EXPECT_NE(negative.output.find(dir + "/s.yaml:9: key 'data.augment.rotate_deg': must be >= 0"), std::string::npos)
      << negative.output;
  const auto far = validate_with(dir, "{translate: 1.5}");
  EXPECT_EQ(far.exit_code, 2) << far.output;
  EXPECT_NE(far.output.find("s.yaml:9: key 'data.augment.translate': must be <= 1"), std::string::npos) << far.output;
  const auto upside_down = validate_with(dir, "{scale_min: 1.2, scale_max: 0.8}");
  EXPECT_EQ(upside_down.exit_code, 2) << upside_down.output;
  EXPECT_NE(upside_down.output.find("s.yaml:9: key 'data.augment.scale_min': must not exceed data.augment.scale_max"),
            std::string::npos)
      << upside_down.output;
  const auto zero_zoom = validate_with(dir, "{scale_min: 0}");
  EXPECT_EQ(zero_zoom.exit_code, 2) << zero_zoom.output;
  EXPECT_NE(zero_zoom.output.find("key 'data.augment.scale_min'"), std::string::npos) << zero_zoom.output;
  // Fused jobs augment each member as its own job would (FusedTraining.MembersAugmentAsTheirOwnJobsDo).
  const auto fused = validate_with(dir, "{flip: true}", "training: {lr: 0.05, batch_size: 16, fuse: auto}");
  EXPECT_EQ(fused.exit_code, 0) << fused.output;
}

TEST(Augmentation, NonImageInputsAreRefusedByValidateAndRun) {
  // Synthetic inputs of 1 x 1 x 64: a vector of features, not an image.
  const std::string dir = test::temp_dir("augment-vector");
  std::string yaml = test::tiny_scenario("vector");
  yaml.replace(yaml.find("height: 12, width: 12"), 21, "height: 1, width: 64");
  const std::string expected = "key 'data.augment.rotate_deg': augments images; the data's inputs are 1 x 1 x 64";
  yaml.replace(yaml.find("data:\n"), 6, "data:\n  augment: {rotate_deg: 10}\n");
  test::write_file(dir + "/s.yaml", yaml);
  const auto validated = test::run_fedgrid("validate " + dir + "/s.yaml");
  EXPECT_EQ(validated.exit_code, 2) << validated.output;
  EXPECT_NE(validated.output.find(dir + "/s.yaml:9: " + expected), std::string::npos) << validated.output;
  test::expect_run_input_error("augment-vector-run", yaml, "", expected);
}

}  // namespace
}  // namespace fedgrid
