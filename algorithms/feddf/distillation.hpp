#pragma once
// FedDF's server work (Lin et al. 2020, Algorithm 1 lines 9-13): the mean logits of the
// returned models on the server's unlabelled samples, and each architecture's model distilled
// toward them. Torch-free interface; both run on the executor (Federation::run_on_server).
#include <cstdint>
#include <vector>

#include "sim/core/model.hpp"
#include "sim/jobs/local_work.hpp"

namespace fedgrid::algorithms {

// Mean of the teachers' logits on `samples` (eval mode), samples x classes, row-major.
// Charged as a forward pass of every teacher over the samples.
class EnsembleLogits : public ServerWork {
 public:
  EnsembleLogits(std::vector<const Model*> teachers, const data::Indices& samples)
      : teachers_(std::move(teachers)), samples_(samples) {}
  // run()'s torch side is distillation.cpp, flops() distillation_cost.cpp (sim/jobs/local_work.hpp
  // says why).
  void run(const data::Dataset& pool, ComputeDevice device) override { run_torch(pool, device); }
  void run_torch(const data::Dataset& pool, ComputeDevice device);
  double flops() const override;
  const std::vector<float>& logits() const { return logits_; }  // empty in timing-only runs

 private:
  std::vector<const Model*> teachers_;
  const data::Indices& samples_;
  std::vector<float> logits_;
};

// Trains `student` on KL(softmax(teacher) || softmax(student)) over the samples (their labels
// are never read): Adam at `lr`, `epochs` passes in batches, shuffled from `seed`. Charged as
// `epochs` of training the student on the samples.
class Distillation : public ServerWork {
 public:
  struct Settings {
    int epochs = 1, batch_size = 32;
    double lr = 1e-3;
    uint64_t seed = 0;
  };
  Distillation(const Model& student, const data::Indices& samples, const std::vector<float>& teacher_logits,
               Settings settings)
      : student_(student), samples_(samples), teacher_logits_(teacher_logits), settings_(settings) {}
  void run(const data::Dataset& pool, ComputeDevice device) override { run_torch(pool, device); }
  void run_torch(const data::Dataset& pool, ComputeDevice device);
  double flops() const override;
  Model result() const;  // the distilled student (shape only in timing-only runs)

 private:
  const Model& student_;
  const data::Indices& samples_;
  const std::vector<float>& teacher_logits_;
  Settings settings_;
  std::vector<float> weights_;
};

}  // namespace fedgrid::algorithms
