#pragma once
// FedSKD's mutual-learning job (SkdPlan): torch-free interface; sim/mutual_training.cpp runs it.
#include <cstdint>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/model.hpp"
#include "sim/trainer.hpp"

namespace fedgrid {

struct MutualJob {
  TrainJob dam;  // the hospital's own model, its samples, batches, optimiser settings and seed
  models::ModelSpec ktm_spec;
  const std::vector<float>* ktm_weights = nullptr;  // the received model; the caller keeps it alive
  SkdPlan plan;
};

// Trains both models for the DAM job's batches (steps or epochs) with one optimiser over the
// DAM's parameters and the KTM's parameters outside its classifier; returns the DAM (its mean
// cross-entropy as mean_loss). The KTM's updated state is dropped, as the paper's step 4 does.
TrainOutcome run_mutual_training(const MutualJob& job);

// FLOPs of the similarity matrices of one batch of `batch` samples: each tapped stage's Gram
// matrices at the planned levels (batch: b x b over c*h*w; pixel: hw x hw over b*c; at the DAM's
// map size), for both networks, forward and backward (3x, as training is charged).
double similarity_flops(const models::ModelSpec& dam, const models::ModelSpec& ktm, const SkdPlan& plan,
                        int64_t batch);

}  // namespace fedgrid
