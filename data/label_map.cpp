#include "data/label_map.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace fedgrid::data {

void relabel(TrainTest& data, const std::vector<int>& map) {
  const int original = data.train.num_classes;
  if (int(map.size()) != original)
    throw std::invalid_argument("has " + std::to_string(map.size()) + " entries; " + data.train.name + " has " +
                                std::to_string(original) + " classes (one entry per original class, 0.." +
                                std::to_string(original - 1) + ")");
  const int merged = *std::max_element(map.begin(), map.end()) + 1;
  std::vector<bool> received(size_t(std::max(merged, 0)), false);
  for (size_t i = 0; i < map.size(); ++i) {
    if (map[i] < 0)
      throw std::invalid_argument("entry " + std::to_string(i) + " is " + std::to_string(map[i]) +
                                  "; new classes are 0 or more");
    received[size_t(map[i])] = true;
  }
  for (int c = 0; c < merged; ++c)
    if (!received[size_t(c)])
      throw std::invalid_argument("new class " + std::to_string(c) + " receives no original class (the new classes " +
                                  "must be 0.." + std::to_string(merged - 1) + ", each used)");
  for (Dataset* d : {&data.train, &data.test}) {
    for (auto& label : d->labels) label = map[size_t(label)];
    d->num_classes = merged;
  }
}

}  // namespace fedgrid::data
