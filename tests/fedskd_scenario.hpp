#pragma once
// The federation FedSKD's run tests share (tests/test_fedskd.cpp, tests/test_compression_runs.cpp):
// four hospitals of different tiers, the cnn on 16x16 synthetic images; with `widths`, FedSKD's
// widths 64/62/60/58 (as multipliers of the cnn's channels). `rest` gives the stop section and
// whatever else the test needs.
#include <string>

namespace fedgrid::test {

inline std::string fedskd_four(const std::string& algorithm, bool widths, const std::string& rest) {
  auto model = [&](const char* w) { return widths ? std::string(", model: {arch: cnn, width_multiplier: ") + w + "}" : std::string(); };
  return "name: skd\nseed: 11\nplatform:\n  hospitals:\n"
         "    - {count: 1, tier: strong, name: a" + model("1.0") + "}\n"
         "    - {count: 1, tier: medium, name: b" + model("0.96875") + "}\n"
         "    - {count: 1, tier: medium, name: c" + model("0.9375") + "}\n"
         "    - {count: 1, tier: weak, name: d" + model("0.90625") + "}\n" + R"(
data:
  dataset: synthetic
  partition: {scheme: dirichlet, beta: 1.0}
  synthetic: {train_samples: 800, test_samples: 200, height: 16, width: 16}
model: {arch: cnn}
training: {optimizer: adam, lr: 0.001, batch_size: 8, local_steps: 12, threads_per_worker: 1}
algorithm: {name: )" + algorithm + R"(}
timing: {network: cm02}
)" + rest;
}

}  // namespace fedgrid::test
