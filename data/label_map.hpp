#pragma once
// data.label_map: merges a dataset's classes into fewer, as medical papers collapse grades
// (CarPe-FL maps RetinaMNIST's five retinopathy grades to normal / NPDR / PDR and DermaMNIST's
// seven diagnoses to benign / malignant).
#include <vector>

#include "data/dataset.hpp"

namespace fedgrid::data {

// Original class i of both splits becomes map[i]; num_classes becomes max(map) + 1. Throws
// std::invalid_argument when map's length is not the dataset's class count, an entry is
// negative, or a new class 0..max receives no original class.
void relabel(TrainTest& data, const std::vector<int>& map);

}  // namespace fedgrid::data
