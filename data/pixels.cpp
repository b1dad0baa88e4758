#include "data/pixels.hpp"

#include <algorithm>
#include <cmath>

namespace fedgrid::data {

// A pixel has only 256 values, so statistics come from a histogram and the normalisation
// is a lookup table: exact, and far cheaper than per-pixel floating point.
std::array<float, 256> normalisation_table(const std::vector<uint8_t>& train_pixels) {
  std::array<uint64_t, 256> histogram{};
  for (uint8_t p : train_pixels) ++histogram[p];
  double sum = 0, sum_sq = 0;
  for (int v = 0; v < 256; ++v) {
    const double x = v / 255.0;
    sum += x * double(histogram[v]);
    sum_sq += x * x * double(histogram[v]);
  }
  const double n = double(train_pixels.size());
  const double mean = sum / n;
  const double var = std::max(0.0, sum_sq / n - mean * mean);
  const double stddev = var > 1e-24 ? std::sqrt(var) : 1.0;  // constant images: just centre
  std::array<float, 256> table{};
  for (int v = 0; v < 256; ++v) table[v] = float((v / 255.0 - mean) / stddev);
  return table;
}

Dataset to_dataset(const std::string& name, int num_classes, const RawImages& raw, std::vector<int64_t> labels,
                   const std::array<float, 256>& table) {
  Dataset ds;
  ds.name = name;
  ds.num_classes = num_classes;
  ds.shape = ImageShape{int(raw.channels), int(raw.rows), int(raw.cols)};
  ds.range = {table[0], table[255]};
  ds.images.resize(raw.pixels.size());
  for (size_t i = 0; i < raw.pixels.size(); ++i) ds.images[i] = table[raw.pixels[i]];
  ds.labels = std::move(labels);
  return ds;
}

TrainTest to_train_test(const std::string& name, int num_classes, const RawImages& train,
                        std::vector<int64_t> train_labels, const RawImages& test, std::vector<int64_t> test_labels) {
  if (train.pixels.empty()) {
    auto shape_only = [&](const RawImages& raw, std::vector<int64_t> labels) {
      Dataset ds;
      ds.name = name, ds.num_classes = num_classes, ds.labels = std::move(labels);
      ds.shape = ImageShape{int(raw.channels), int(raw.rows), int(raw.cols)};
      return ds;
    };
    return {shape_only(train, std::move(train_labels)), shape_only(test, std::move(test_labels))};
  }
  const auto table = normalisation_table(train.pixels);
  return {to_dataset(name, num_classes, train, std::move(train_labels), table),
          to_dataset(name, num_classes, test, std::move(test_labels), table)};
}

}  // namespace fedgrid::data
