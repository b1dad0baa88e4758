// data.site_shift (issue 18): each hospital's own image transformation is deterministic, does
// what each effect says on hand-checkable images, makes the sites tell-apart-able by a
// classifier (and strength 0 does not), reaches only the hospitals' samples, and keeps runs
// reproducible byte for byte.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

#include "data/partition.hpp"
#include "data/rng.hpp"
#include "data/site_shift.hpp"
#include "data/sources.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/engine/data_setup.hpp"
#include "sim/engine/world.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using data::ImageShape;
using data::PixelRange;
using data::SiteShift;

data::TrainTest small_synthetic(uint64_t seed = 3) {
  data::SyntheticOptions o;
  o.train_samples = 600, o.test_samples = 100, o.shape = {1, 12, 12}, o.seed = seed;
  return data::make_synthetic(o);
}

data::Indices all_samples(const data::Dataset& d) {
  data::Indices all(size_t(d.size()));
  std::iota(all.begin(), all.end(), int64_t(0));
  return all;
}

std::vector<float> shifted(data::Dataset d, const data::SiteShiftOptions& o, uint64_t site_seed) {
  data::shift_samples(d, all_samples(d), data::draw_site_shift(o, d.shape.channels, site_seed), d.range, site_seed);
  return d.images;
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// ---------- determinism and strength 0 ----------

TEST(SiteShift, SameSeedSameBytesOtherSeedOtherBytes) {
  const auto d = small_synthetic();
  const data::SiteShiftOptions strong{.strength = 1};
  const auto once = shifted(d.train, strong, 11), twice = shifted(d.train, strong, 11);
  EXPECT_TRUE(same_bytes(once, twice));
  EXPECT_FALSE(same_bytes(once, d.train.images));
  EXPECT_FALSE(same_bytes(once, shifted(d.train, strong, 12)));
}

TEST(SiteShift, StrengthZeroLeavesImagesByteIdentical) {
  const auto d = small_synthetic();
  EXPECT_EQ(data::draw_site_shift({.strength = 0}, 3, 11), SiteShift{});
  EXPECT_TRUE(same_bytes(shifted(d.train, {.strength = 0}, 11), d.train.images));
}

TEST(SiteShift, DrawsStayInTheirRangesAndEachEffectHasItsOwnStream) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const SiteShift s = data::draw_site_shift({.strength = 1}, 3, seed);
    EXPECT_GE(s.contrast, std::exp2(-0.5));
    EXPECT_LE(s.contrast, std::exp2(0.5));
    EXPECT_LE(std::abs(s.brightness), 0.15);
    EXPECT_GE(s.gamma, std::exp2(-0.6));
    EXPECT_LE(s.gamma, std::exp2(0.6));
    EXPECT_GE(s.blur_sigma, 0);
    EXPECT_LE(s.blur_sigma, 1);
    EXPECT_GE(s.noise_std, 0);
    EXPECT_LE(s.noise_std, 0.05);
    EXPECT_LE(std::abs(s.rotation_rad), 10 * M_PI / 180);
    EXPECT_GE(s.scale, std::exp2(-0.15));
    EXPECT_LE(s.scale, std::exp2(0.15));
    ASSERT_EQ(s.channel_gain.size(), 3u);
    // Half the strength halves every log-scale and linear parameter.
    const SiteShift half = data::draw_site_shift({.strength = 0.5}, 3, seed);
    EXPECT_NEAR(std::log2(half.contrast), std::log2(s.contrast) / 2, 1e-12);
    EXPECT_NEAR(half.rotation_rad, s.rotation_rad / 2, 1e-12);
  }
  // Grey images get no colour cast; switching gamma off changes nothing else.
  EXPECT_TRUE(data::draw_site_shift({.strength = 1}, 1, 5).channel_gain.empty());
  SiteShift all = data::draw_site_shift({.strength = 1}, 1, 5);
  const SiteShift no_gamma = data::draw_site_shift({.strength = 1, .gamma = false}, 1, 5);
  EXPECT_EQ(no_gamma.gamma, 1.0);
  all.gamma = 1;
  EXPECT_EQ(no_gamma, all);
}

// ---------- each effect on a hand-checkable image ----------

std::vector<float> apply(const SiteShift& s, const ImageShape& shape, PixelRange range, std::vector<float> image,
                         uint64_t noise_seed = 1) {
  data::apply_site_shift(s, shape, range, image.data(), noise_seed);
  return image;
}

TEST(SiteShift, ContrastAndBrightnessAreAUPlusBInUnitsOfTheRange) {
  // Range [-1, 3]: x = 0 is u = 0.25; 1.5 * 0.25 + 0.1 = 0.475, x = -1 + 4 * 0.475 = 0.9.
  SiteShift s;
  s.contrast = 1.5, s.brightness = 0.1;
  for (float x : apply(s, {1, 4, 4}, {-1, 3}, std::vector<float>(16, 0.0f))) EXPECT_NEAR(x, 0.9f, 1e-6);
  // u = 0.75 -> 1.225, clamped to the range's top.
  for (float x : apply(s, {1, 4, 4}, {-1, 3}, std::vector<float>(16, 2.0f))) EXPECT_EQ(x, 3.0f);
}

TEST(SiteShift, GammaRaisesUToItsPower) {
  SiteShift s;
  s.gamma = 2;
  const auto out = apply(s, {1, 1, 4}, {0, 1}, {0.0f, 0.25f, 0.5f, 1.0f});
  const float expected[] = {0.0f, 0.0625f, 0.25f, 1.0f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[size_t(i)], expected[i], 1e-6) << i;
}

TEST(SiteShift, ColourCastScalesEachChannel) {
  SiteShift s;
  s.channel_gain = {0.8, 1.0, 1.2};
  const auto out = apply(s, {3, 2, 2}, {0, 1}, std::vector<float>(12, 0.5f));
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[size_t(c * 4 + i)], 0.5 * s.channel_gain[size_t(c)], 1e-6);
}

TEST(SiteShift, BlurSpreadsADeltaIntoTheNormalisedGaussian) {
  // sigma 1, radius 3: centre weight 1 / (1 + 2 (e^-1/2 + e^-2 + e^-9/2)) per axis.
  SiteShift s;
  s.blur_sigma = 1;
  std::vector<float> delta(81, 0.0f);
  delta[4 * 9 + 4] = 1;
  const auto out = apply(s, {1, 9, 9}, {0, 1}, delta);
  const double k0 = 1 / (1 + 2 * (std::exp(-0.5) + std::exp(-2.0) + std::exp(-4.5)));
  EXPECT_NEAR(out[4 * 9 + 4], k0 * k0, 1e-6);
  EXPECT_NEAR(out[4 * 9 + 5], k0 * k0 * std::exp(-0.5), 1e-6);
  EXPECT_NEAR(std::accumulate(out.begin(), out.end(), 0.0), 1.0, 1e-5);
  // A constant image stays constant.
  for (float x : apply(s, {1, 9, 9}, {0, 1}, std::vector<float>(81, 0.3f))) EXPECT_NEAR(x, 0.3f, 1e-6);
}

TEST(SiteShift, NoiseHasTheDrawnStdAndIsFixedBySampleIndex) {
  SiteShift s;
  s.noise_std = 0.05;
  // Range [-2, 2]: std 0.05 of u is 0.2 in pixel units.
  const auto out = apply(s, {1, 64, 64}, {-2, 2}, std::vector<float>(4096, 0.0f), 9);
  double sum = 0, sum_sq = 0;
  for (float x : out) sum += x, sum_sq += double(x) * x;
  const double mean = sum / 4096, std = std::sqrt(sum_sq / 4096 - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(std, 0.2, 0.01);
  // Through shift_samples: a sample's noise depends on its index, not on the visiting order.
  data::Dataset d;
  d.shape = {1, 8, 8}, d.range = {0, 1}, d.images.assign(3 * 64, 0.5f), d.labels = {0, 0, 0};
  data::Dataset forwards = d, backwards = d;
  data::shift_samples(forwards, {0, 1, 2}, s, d.range, 4);
  data::shift_samples(backwards, {2, 1, 0}, s, d.range, 4);
  EXPECT_TRUE(same_bytes(forwards.images, backwards.images));
  EXPECT_FALSE(std::equal(forwards.images.begin(), forwards.images.begin() + 64, forwards.images.begin() + 64));
}

TEST(SiteShift, RotationAndScaleMoveADelta) {
  // 9x9, centre (4, 4); a delta 3 pixels right of it.
  std::vector<float> delta(81, 0.0f);
  delta[4 * 9 + 7] = 1;
  SiteShift quarter;
  quarter.rotation_rad = M_PI / 2;  // counter-clockwise as displayed: right of centre -> above it
  const auto turned = apply(quarter, {1, 9, 9}, {0, 1}, delta);
  EXPECT_NEAR(turned[1 * 9 + 4], 1.0f, 1e-6);
  EXPECT_NEAR(turned[4 * 9 + 7], 0.0f, 1e-6);
  EXPECT_NEAR(std::accumulate(turned.begin(), turned.end(), 0.0), 1.0, 1e-5);
  // Scale 1.5: 2 right of centre lands 3 right of it.
  std::vector<float> near(81, 0.0f);
  near[4 * 9 + 6] = 1;
  SiteShift larger;
  larger.scale = 1.5;
  const auto grown = apply(larger, {1, 9, 9}, {0, 1}, near);
  EXPECT_NEAR(grown[4 * 9 + 7], 1.0f, 1e-6);
  EXPECT_NEAR(grown[4 * 9 + 6], 1.0f / 3, 1e-6);  // samples 4/3 right of centre: a third of the delta
}

// ---------- where the engine applies it ----------

// World holds a mutex, so it is made on the heap and handed over whole.
std::unique_ptr<World> world_of(const std::string& sets_yaml, uint64_t seed = 5) {
  auto w = std::make_unique<World>();
  w->scenario = load_scenario_text("seed: " + std::to_string(seed) + R"(
platform: {hospitals: [{count: 3, tier: weak}]}
data:
  dataset: synthetic
  partition: {scheme: iid}
  server_share: 0.1
  synthetic: {train_samples: 1500, test_samples: 200, height: 12, width: 12}
)" + sets_yaml, "s.yaml");
  set_up_data(*w, 3, data::Pixels::Keep);
  return w;
}

TEST(SiteShift, OnlyTheHospitalsSamplesAreShifted) {
  const auto plain_world = world_of(""), strong_world = world_of("  site_shift: {strength: 1}\n");
  const World &plain = *plain_world, &strong = *strong_world;
  EXPECT_TRUE(same_bytes(plain.data.test.images, strong.data.test.images));  // the global test set
  const size_t pixels = size_t(plain.data.train.shape.pixels());
  auto image = [&](const World& w, int64_t i) {
    return std::vector<float>(w.data.train.images.begin() + i * int64_t(pixels),
                              w.data.train.images.begin() + (i + 1) * int64_t(pixels));
  };
  const auto& server = plain.server_split;
  ASSERT_FALSE(server.train.empty());
  for (const auto* part : {&server.train, &server.val, &server.test})
    for (int64_t i : *part) EXPECT_TRUE(same_bytes(image(plain, i), image(strong, i))) << "server sample " << i;
  for (size_t h = 0; h < 3; ++h)
    for (const auto* part : {&plain.splits[h].train, &plain.splits[h].val, &plain.splits[h].test})
      for (int64_t i : *part) EXPECT_FALSE(same_bytes(image(plain, i), image(strong, i))) << "hospital " << h;
}

// ---------- a classifier can tell the sites apart with shift, not without ----------

// Trains a one-hidden-layer MLP to name the hospital an image comes from, on 3/4 of each
// hospital's samples (iid partition, so labels say nothing of the site), and returns its
// accuracy on the rest.
double site_accuracy(const World& w) {
  const int64_t pixels = w.data.train.shape.pixels();
  std::vector<int64_t> fit_rows, held_rows;
  std::vector<int64_t> fit_sites, held_sites;
  for (size_t h = 0; h < w.splits.size(); ++h) {
    data::Indices mine = w.splits[h].train;
    for (const auto* part : {&w.splits[h].val, &w.splits[h].test}) mine.insert(mine.end(), part->begin(), part->end());
    for (size_t k = 0; k < mine.size(); ++k) {
      (k % 4 == 3 ? held_rows : fit_rows).push_back(mine[k]);
      (k % 4 == 3 ? held_sites : fit_sites).push_back(int64_t(h));
    }
  }
  const auto all = torch::from_blob(const_cast<float*>(w.data.train.images.data()), {w.data.train.size(), pixels});
  auto rows = [&](const std::vector<int64_t>& r) { return all.index_select(0, torch::tensor(r)); };
  const auto x_fit = rows(fit_rows), x_held = rows(held_rows);
  const auto y_fit = torch::tensor(fit_sites), y_held = torch::tensor(held_sites);

  torch::manual_seed(0);  // this test's own weights; no other thread draws meanwhile
  torch::nn::Sequential net(torch::nn::Linear(pixels, 32), torch::nn::ReLU(),
                            torch::nn::Linear(32, int64_t(w.splits.size())));
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-2));
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    torch::nn::functional::cross_entropy(net->forward(x_fit), y_fit).backward();
    opt.step();
  }
  torch::NoGradGuard no_grad;
  return net->forward(x_held).argmax(1).eq(y_held).to(torch::kFloat64).mean().item<double>();
}

// Seeds 1-8, not one chosen seed: three uniform draws sometimes put two sites close together
// (seed 4: both brightness +0.14, contrast ~1), which a classifier then half confuses, so the
// bound is on the mean, with a floor for every seed. Without shift the classifier can only use
// the partition's chance class imbalance between hospitals.
TEST(SiteShift, AClassifierTellsTheSitesApartOnlyWithShift) {
  double with_sum = 0, with_min = 1, without_max = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const double with_shift = site_accuracy(*world_of("  site_shift: {strength: 1}\n", seed));
    const double without = site_accuracy(*world_of("", seed));
    std::printf("seed %d: site accuracy (3 sites, chance 0.333) strength 1 %.3f, strength 0 %.3f\n", int(seed),
                with_shift, without);
    with_sum += with_shift, with_min = std::min(with_min, with_shift), without_max = std::max(without_max, without);
  }
  EXPECT_GT(with_sum / 8, 0.9);
  EXPECT_GT(with_min, 0.75);
  EXPECT_LT(without_max, 1.0 / 3 + 0.1);
}

// ---------- the keys, and whole runs ----------

const char* kRunFiles[] = {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"};

TEST(SiteShift, ARunWithSiteShiftIsReproducibleAndStrengthZeroIsNoShift) {
  const std::string yaml = test::tiny_scenario("site-shift");
  const auto strong = test::run_ok("shift-1", yaml, "--set data.site_shift.strength=1 --set stop.rounds=2");
  const auto again = test::run_ok("shift-2", yaml, "--set data.site_shift.strength=1 --set stop.rounds=2");
  for (const char* f : kRunFiles) EXPECT_EQ(test::read_file(strong + "/" + f), test::read_file(again + "/" + f)) << f;
  const auto off = test::run_ok("shift-off", yaml, "--set stop.rounds=2");
  const auto zero = test::run_ok("shift-0", yaml, "--set data.site_shift.strength=0 --set stop.rounds=2");
  for (const char* f : kRunFiles) EXPECT_EQ(test::read_file(off + "/" + f), test::read_file(zero + "/" + f)) << f;
  EXPECT_NE(test::read_file(strong + "/hospitals.csv"), test::read_file(off + "/hospitals.csv"));
}

TEST(SiteShift, TimingOnlyRunsAcceptItAndChargeTheSame) {
  const std::string yaml = test::tiny_scenario("site-shift-timing", "timing: {network: cm02}\n");
  const std::string timing = "--set training.mode=timing-only --set stop.rounds=2";
  const auto strong = test::run_ok("shift-timing-1", yaml, timing + " --set data.site_shift.strength=1");
  const auto off = test::run_ok("shift-timing-0", yaml, timing);
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv"})
    EXPECT_EQ(test::read_file(strong + "/" + f), test::read_file(off + "/" + f)) << f;
}

TEST(SiteShift, BadValuesNameTheFileLineAndKey) {
  const std::string dir = test::temp_dir("shift-bad");
  auto problem = [&](const std::string& site_shift) {
    std::string yaml = test::tiny_scenario("bad");
    yaml.replace(yaml.find("data:\n"), 6, "data:\n  site_shift: " + site_shift + "\n");
    test::write_file(dir + "/s.yaml", yaml);
    return test::run_fedgrid("validate " + dir + "/s.yaml");
  };
  const auto too_strong = problem("{strength: 1.5}");
  EXPECT_EQ(too_strong.exit_code, 2) << too_strong.output;
  EXPECT_NE(too_strong.output.find(dir + "/s.yaml:9: key 'data.site_shift.strength': must be <= 1, got 1.5"),
            std::string::npos)
      << too_strong.output;
  const auto negative = problem("{strength: -0.2}");
  EXPECT_EQ(negative.exit_code, 2) << negative.output;
  EXPECT_NE(negative.output.find("key 'data.site_shift.strength': must be >= 0"), std::string::npos) << negative.output;
  const auto not_bool = problem("{strength: 1, blur: sometimes}");
  EXPECT_EQ(not_bool.exit_code, 2) << not_bool.output;
  EXPECT_NE(not_bool.output.find("s.yaml:9: key 'data.site_shift.blur'"), std::string::npos) << not_bool.output;
  const auto misspelt = problem("{strenght: 1}");
  EXPECT_EQ(misspelt.exit_code, 2) << misspelt.output;
  EXPECT_NE(misspelt.output.find("did you mean 'data.site_shift.strength'"), std::string::npos) << misspelt.output;
}

}  // namespace
}  // namespace fedgrid
