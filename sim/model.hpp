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
  // Salience-measuring and growth jobs: the conv sites grown (models::conv_sites indices, best
  // first) and each site's salience sum(grad * w) over the job's last epoch.
  std::vector<int> grown;
  std::vector<double> salience;
};

// Validation-based stopping for a training job: stop once the validation loss has not improved
// by more than `min_delta` for `patience` epochs, or after `max_epochs`; keep the best weights.
struct StoppingRule {
  int patience = 7, max_epochs = 50;
  double min_delta = 0.0;
};

// DynamicFL's growth job (algorithms/dynamicfl.cpp): grow the `expansions` KxK convs that
// `rank` scores highest (models::top_sites) into diverse-branch blocks (models/dbb.hpp),
// recalibrate their batch norms, train, fold back to the plain shape.
struct ReparamPlan {
  int expansions = 0;
  std::vector<double> rank;  // per conv site: S^g from the probe epoch, or last round's S^l
  int recal_batches = 20;    // mini-batches that recalibrate the new blocks' batch norms
  uint64_t seed = 0;         // the new branches' initial weights
};

// FedSKD's mutual-learning job (algorithms/fedskd.cpp): the hospital's own model (the DAM) and a
// received copy of another's (the KTM, its classifier frozen) train together on the hospital's
// data with CE(DAM) + gamma * L_SKD(DAM, KTM) + CE(KTM) (Eq. 2); the KTM is then discarded.
struct SkdPlan {
  double gamma = 1;  // 0: both cross-entropies, no distillation
  bool batch_level = true, pixel_level = true;
  std::vector<int> layers;  // tapped stages, models::feature_taps indices (ResNet: 0..3 = layer1..4)
};

}  // namespace fedgrid
