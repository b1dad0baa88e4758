// Synthetic class-conditional images: a smooth random prototype per class plus white noise.
// Smooth prototypes keep the task meaningful for convolutions (local structure) while the
// class separation stays far above the noise, so every model can learn it.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/rng.hpp"
#include "data/sources.hpp"

namespace fedgrid::data {
namespace {

constexpr int kBlobsPerChannel = 5;
constexpr double kBlobAmplitude = 2.0;
// Stream tags keep the per-split streams apart from the per-class prototype streams.
constexpr uint64_t kSplitTag = 0x5EED'DA7AULL;
enum : uint64_t { kTrainSplit = 1, kTestSplit = 2 };
enum : uint64_t { kOrderStream = 1, kNoiseStream = 2 };

void validate(const SyntheticOptions& o) {
  auto fail = [](const std::string& key, const std::string& why) {
    throw std::invalid_argument("synthetic." + key + " " + why);
  };
  if (o.train_samples < 1) fail("train_samples", "must be positive");
  if (o.test_samples < 1) fail("test_samples", "must be positive");
  if (o.num_classes < 2) fail("num_classes", "must be at least 2");
  if (o.shape.channels < 1 || o.shape.height < 1 || o.shape.width < 1)
    fail("shape", "must have positive channels, height and width");
  if (!(o.noise >= 0) || !std::isfinite(o.noise)) fail("noise", "must be finite and >= 0");
}

// Sum of Gaussian blobs of random position and sign; blob width scales with the image so the
// structure stays smooth at any resolution.
std::vector<float> make_prototype(const ImageShape& shape, uint64_t seed, int label) {
  Rng rng(mix_seed(seed, uint64_t(label)));
  const double sigma = std::max(1.0, std::min(shape.height, shape.width) / 8.0);
  std::vector<float> proto(size_t(shape.pixels()), 0.0f);
  for (int c = 0; c < shape.channels; ++c) {
    float* plane = proto.data() + size_t(c) * shape.height * shape.width;
    for (int b = 0; b < kBlobsPerChannel; ++b) {
      const double cy = rng.uniform() * shape.height, cx = rng.uniform() * shape.width;
      const double amp = (rng.uniform() < 0.5 ? -1.0 : 1.0) * kBlobAmplitude;
      for (int y = 0; y < shape.height; ++y)
        for (int x = 0; x < shape.width; ++x) {
          const double d2 = (y - cy) * (y - cy) + (x - cx) * (x - cx);
          plane[y * shape.width + x] += float(amp * std::exp(-d2 / (2 * sigma * sigma)));
        }
    }
  }
  return proto;
}

Dataset make_split(const SyntheticOptions& o, const std::vector<std::vector<float>>& prototypes,
                   int64_t count, uint64_t split) {
  Dataset ds;
  ds.name = "synthetic";
  ds.shape = o.shape;
  ds.num_classes = o.num_classes;
  ds.labels.resize(size_t(count));
  for (int64_t i = 0; i < count; ++i) ds.labels[size_t(i)] = i % o.num_classes;
  Rng order(mix_seed(o.seed, kSplitTag, split, kOrderStream));
  order.shuffle(ds.labels);

  Rng noise(mix_seed(o.seed, kSplitTag, split, kNoiseStream));
  const size_t pixels = size_t(o.shape.pixels());
  ds.images.resize(size_t(count) * pixels);
  for (int64_t i = 0; i < count; ++i) {
    const std::vector<float>& proto = prototypes[size_t(ds.labels[size_t(i)])];
    float* image = ds.images.data() + size_t(i) * pixels;
    for (size_t p = 0; p < pixels; ++p) image[p] = proto[p] + float(o.noise * noise.normal());
  }
  return ds;
}

}  // namespace

TrainTest make_synthetic(const SyntheticOptions& options) {
  validate(options);
  std::vector<std::vector<float>> prototypes;
  for (int label = 0; label < options.num_classes; ++label)
    prototypes.push_back(make_prototype(options.shape, options.seed, label));
  TrainTest out;
  out.train = make_split(options, prototypes, options.train_samples, kTrainSplit);
  out.test = make_split(options, prototypes, options.test_samples, kTestSplit);
  // Gaussian noise has no bounds, so the valid range is what was drawn (both splits).
  const auto [train_low, train_high] = std::minmax_element(out.train.images.begin(), out.train.images.end());
  const auto [test_low, test_high] = std::minmax_element(out.test.images.begin(), out.test.images.end());
  out.train.range = out.test.range = {std::min(*train_low, *test_low), std::max(*train_high, *test_high)};
  return out;
}

}  // namespace fedgrid::data
