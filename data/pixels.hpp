#pragma once
// Raw uint8 images as the file readers (IDX, npz) produce them, and their conversion into a
// Dataset: scaled to [0,1], then normalised with the train split's mean and std.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.hpp"

namespace fedgrid::data {

struct RawImages {
  std::vector<uint8_t> pixels;  // count x channels x rows x cols; empty when read without them
  uint32_t count = 0, channels = 1, rows = 0, cols = 0;
};

// Lookup table pixel value -> normalised float, from the train split's pixel statistics
// (one mean and std over every channel).
std::array<float, 256> normalisation_table(const std::vector<uint8_t>& train_pixels);

Dataset to_dataset(const std::string& name, int num_classes, const RawImages& raw, std::vector<int64_t> labels,
                   const std::array<float, 256>& table);

// Both splits, normalised with the train split's statistics; read without their pixels
// (Pixels::Check, Pixels::Skip), the shapes and labels alone.
TrainTest to_train_test(const std::string& name, int num_classes, const RawImages& train,
                        std::vector<int64_t> train_labels, const RawImages& test, std::vector<int64_t> test_labels);

}  // namespace fedgrid::data
