#pragma once
// A model as the federation moves it around: its architecture and one contiguous buffer
// holding its whole state (parameters then buffers, float32). No torch here: algorithms
// combine models with plain arithmetic; only training jobs turn them into torch modules.
#include <cstdint>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid {

struct Model {
  models::ModelSpec spec;
  std::vector<float> weights;  // the whole state; empty in a timing-only run (shape only)
  int64_t shape_values = 0;    // the state's size when `weights` is not held
  int64_t values() const { return weights.empty() ? shape_values : int64_t(weights.size()); }
  bool holds_state() const { return !weights.empty(); }
  // Exact bytes on the wire: every value as float32 plus the fixed message header.
  int64_t payload_bytes() const { return values() * 4 + models::kPayloadHeaderBytes; }
};

// A model of `values` state values that holds none (training.mode: timing-only).
inline Model shape_only_model(const models::ModelSpec& spec, int64_t values) { return Model{spec, {}, values}; }

// What a hospital returns from local training.
struct Update {
  int hospital = -1;
  Model model;
  int64_t samples = 0;     // training samples seen per epoch (the averaging weight)
  int epochs = 0;
  double train_loss = 0;   // mean loss over the job's mini-batches
  std::vector<double> batch_losses;  // every mini-batch's loss, in order (empty in timing-only runs)
  // A ReparamPlan job: the conv sites it grew (models::conv_sites indices, best first) and each
  // site's local salience over its last epoch.
  std::vector<int> grown;
  std::vector<double> salience;
};

// Validation-based stopping for a training job: stop once the validation loss has not improved
// by more than `min_delta` for `patience` epochs, or after `max_epochs`; keep the best weights.
struct StoppingRule {
  int patience = 7, max_epochs = 50;
  double min_delta = 0.0;
};

// DynamicFL's local work (algorithms/dynamicfl.cpp): grow `expansions` KxK convs of the plain
// model into diverse-branch blocks (models/dbb.hpp), train, fold back to the plain shape.
struct ReparamPlan {
  int expansions = 0;
  // Normal path: the first of the job's epochs trains the plain model and measures each conv's
  // global salience S^g = sum(grad * w), which picks the convs to grow; the rest train the grown
  // model. Budget-decrease path (false): `rank` (last round's local salience S^l) picks them and
  // every epoch trains the grown model.
  bool probe = true;
  std::vector<double> rank;
  int recal_batches = 20;  // mini-batches that recalibrate the new blocks' batch norms
  uint64_t seed = 0;       // the new branches' initial weights
};

}  // namespace fedgrid
