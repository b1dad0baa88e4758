#pragma once
// The federation carpefl's run tests share: three hospitals (weak, medium, strong) on small
// synthetic 16x16 images, the carpefl network. `rest` gives the training, algorithm, stop and
// output sections.
#include <string>

namespace fedgrid::test {

inline std::string carpefl_three(const std::string& name, const std::string& rest) {
  return "name: " + name + R"(
seed: 5
platform:
  hospitals:
    - {count: 1, tier: weak}
    - {count: 1, tier: medium}
    - {count: 1, tier: strong}
data:
  dataset: synthetic
  partition: {scheme: dirichlet, beta: 0.5}
  synthetic: {train_samples: 600, test_samples: 150, height: 16, width: 16}
model: {arch: carpefl}
)" + rest;
}

}  // namespace fedgrid::test
