#pragma once
// A model as the federation moves it around: its architecture and one contiguous buffer
// holding its whole state (parameters then buffers, float32). No torch here: algorithms
// combine models with plain arithmetic; only training jobs turn them into torch modules.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid {

class DeferredTraining;  // sim/jobs/deferred_training.hpp

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
  // Set when the training itself waits for the server's fold (Hospital::train_later): `model`
  // then holds no weights yet, and the losses are not known; for_each_trained runs the job.
  std::shared_ptr<DeferredTraining> deferred;
};

}  // namespace fedgrid
