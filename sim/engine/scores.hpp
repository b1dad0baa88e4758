#pragma once
// A round's scores, as the evaluator computes them (evaluation.hpp) and the metric table reads
// them (metric_table.cpp).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fedgrid {

// One round's scores.
struct Scores {
  std::optional<double> accuracy, loss, auc;
  std::vector<int64_t> confusion;
  std::vector<std::vector<int64_t>> confusion_of;  // by hospital: its model on its own test split
  std::vector<std::optional<double>> accuracy_of, auc_of, global_accuracy_of, global_auc_of;  // by hospital
  std::map<std::string, std::optional<double>> tier_model_accuracy;
  // Early stopping (stop.patience): the scored model on the hospitals' validation splits.
  std::optional<double> val_accuracy, val_loss;
};

}  // namespace fedgrid
