#pragma once
// A round's evaluation: the global model (and any tier's own model) on the global test set,
// and every hospital's model on its own test split ("local test") and, where models are
// local, on every hospital's split weighted equally ("global test", FedSKD's Sec. III-B).
// With stop.patience, the same models are scored on the hospitals' validation splits too (the
// global model on all of them pooled, local models each on its own), the figure early stopping
// watches. Evaluation jobs run on the executor, charged nothing in simulated time; in timing-only
// runs the surrogate curve gives accuracy.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data/partition.hpp"
#include "sim/core/model.hpp"
#include "sim/engine/scores.hpp"

namespace fedgrid {

struct World;

// A hospital as evaluation sees it: its tier and its test split.
struct EvaluatedHospital {
  std::string tier;
  const data::HospitalSplit* split = nullptr;  // its test split, and its validation split
};

class Evaluator {
 public:
  Evaluator(World& world, std::vector<EvaluatedHospital> hospitals, std::vector<std::string> tiers);
  // Whether `round` is scored (output.eval_every, and always the last round).
  bool scores_round(int round, double now) const;
  // One global model; `tier_models` holds the model a tier's hospitals keep instead (HeteroFL's
  // sub-models, FedDF's architectures); hospitals are scored with their tier's model.
  Scores global(int round, double now, const Model& global, const std::map<std::string, Model>& tier_models);
  // A model per hospital (index = hospital id).
  Scores local(int round, double now, const std::vector<Model>& local_models);

 private:
  Scores empty() const;

  World& world_;
  std::vector<EvaluatedHospital> hospitals_;
  std::vector<std::string> tiers_;
  bool validates_ = false;           // stop.patience: score the validation splits too
  data::Indices pooled_validation_;  // every hospital's validation split, in hospital order
};

}  // namespace fedgrid
