#pragma once
// Ensemble distillation (FedDF): the mean logits of several models on unlabelled samples, and a
// student trained to match them. Torch-free interface; the work runs on the executor.
#include <cstdint>
#include <vector>

#include "data/dataset.hpp"
#include "models/model_spec.hpp"
#include "sim/model.hpp"
#include "sim/trainer.hpp"

namespace fedgrid {

// Mean of the models' logits on `indices` of `dataset` (eval mode), samples x classes, row-major.
std::vector<float> ensemble_logits(const std::vector<const Model*>& teachers, const data::Dataset& dataset,
                                   const data::Indices& indices, ComputeDevice device);

struct DistillJob {
  const Model* student = nullptr;
  const data::Dataset* dataset = nullptr;
  const data::Indices* indices = nullptr;  // the unlabelled samples (their labels are never read)
  const std::vector<float>* teacher_logits = nullptr;  // ensemble_logits on `indices`
  int epochs = 1, batch_size = 32;
  double lr = 1e-3;  // Adam, as FedDF
  uint64_t seed = 0;  // batch order
  ComputeDevice device = ComputeDevice::Cpu;
};

// Trains the student on KL(softmax(teacher) || softmax(student)) over the samples; returns its state.
std::vector<float> run_distillation(const DistillJob& job);

}  // namespace fedgrid
