#pragma once
// A labelled image dataset held once in memory. Hospitals and splits refer to it by index
// lists, never by copies. Knows nothing of simulation or of torch.
#include <cstdint>
#include <string>
#include <vector>

namespace fedgrid::data {

struct ImageShape {
  int channels = 1;
  int height = 28;
  int width = 28;
  int64_t pixels() const { return int64_t(channels) * height * width; }
};

// The values a pixel may take once normalised: what black and white (raw 0 and 255) became
// for the file datasets; the extremes drawn for the synthetic one, which has no bounds.
struct PixelRange {
  float low = 0, high = 1;
};

struct Dataset {
  std::string name;
  ImageShape shape;
  int num_classes = 0;
  std::vector<float> images;    // N x C x H x W, normalised
  PixelRange range;             // every value of `images` lies in [range.low, range.high]
  std::vector<int64_t> labels;  // N, in [0, num_classes)
  int64_t size() const { return int64_t(labels.size()); }
};

// The pair every dataset source yields: the pool hospitals are cut from, and the official
// held-out split that serves as the global test set.
struct TrainTest {
  Dataset train;
  Dataset test;
};

using Indices = std::vector<int64_t>;

}  // namespace fedgrid::data
