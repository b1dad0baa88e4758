#pragma once
// A local job, as the algorithm that runs it defines it: what it does on the compute executor
// (real LibTorch work, run() on a worker thread) and what it costs in simulated time (cost()),
// written side by side. The engine hands every job the same inputs (the node's samples, the
// scenario's batch size and optimiser, a seed of its own), charges cost() on the node's host
// and waits for run(). Plain training (sim/jobs/training/plain_training.hpp) is the shared one; an
// algorithm with its own local step or loss brings its own next to it (algorithms/<name>/).
// Torch-free: implementations include torch in their own .cpp only.
//
// LibTorch is loaded only when a run trains for real (sim/jobs/torch_module.hpp): a timing-only
// run, `fedgrid validate` and `list` build these objects and charge cost() without it. So a
// work's vtable must hold no torch code: each virtual that trains (run(), a training hook) is
// an inline one-liner calling a non-virtual member named <virtual>_torch, defined in the work's
// torch .cpp; cost() and the rest live in a torch-free .cpp (<work>_cost.cpp), which emits the
// vtable. The dynamic linker binds each *_torch at its first call, by then LibTorch is loaded.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "models/model_spec.hpp"
#include "sim/core/augment_settings.hpp"
#include "sim/core/model.hpp"
#include "sim/jobs/compute.hpp"

namespace fedgrid {

// What the executor side of a job gets. Pointers stay valid until the job's result is taken.
struct JobInput {
  const Model* model = nullptr;               // the starting state (weights held)
  const data::Dataset* dataset = nullptr;     // the training pool
  const data::Indices* train = nullptr;       // the node's training samples
  const data::Indices* validation = nullptr;  // the node's validation samples (may be empty)
  int batch_size = 32;
  int64_t local_steps = 0;  // training.local_steps: > 0 sizes a job in mini-batches (works that allow it)
  OptimizerConfig optimizer;
  uint64_t seed = 0;  // the job's own stream: (scenario seed, hospital, round)
  ComputeDevice device = ComputeDevice::Cpu;
  Precision precision = Precision::Fp32;
  AugmentSettings augment;  // data.augment, applied by the epoch loop to every training batch
};

// What the cost side knows before (or, for charged_after_run works, after) the job runs.
struct JobShape {
  models::ModelSpec spec;
  int64_t samples = 0;             // training samples (a timing-only run has the count, no indices)
  int64_t validation_samples = 0;  // the node's validation samples
  int batch_size = 32;
  int64_t local_steps = 0;
};

// A job's work on one model, as steps: what timing.compute: profile charges from seconds
// measured per step (sim/jobs/calibration/compute_profile.hpp).
struct ModelSteps {
  models::ModelSpec spec;
  std::map<int64_t, int64_t> train_batches;  // batch size -> training steps of that size
  int64_t eval_samples = 0;                  // forward-only samples (validation, recalibration)
};

// The simulated charge of a job on its node's host, and the epochs hospitals.csv reports.
// `flops` is the FLOPs model's charge (timing.compute: flops); `steps` and `unprofiled_flops`
// are the same job for timing.compute: profile, where `unprofiled_flops` (work no profiled
// model step covers: grown branches, similarity maps) is charged as FLOPs at the host's speed.
struct Charge {
  double flops = 0;
  int epochs = 0;
  std::vector<ModelSteps> steps;
  double unprofiled_flops = 0;
};

// The training steps of `epochs` passes (or `local_steps` batches) over `samples` samples, as
// the epoch loop plans them (batch_plan).
ModelSteps training_steps(const models::ModelSpec& spec, int64_t samples, int64_t batch_size, int epochs,
                          int64_t local_steps, bool drop_single);

// What a job must say for a fused job (sim/jobs/fused/fused_training.hpp) to run it in its place:
// plain training for `epochs` (or training.local_steps batches), plus FedProx's proximal term
// (mu/2)||w - anchor||^2 over the parameters when proximal_mu > 0.
struct FusibleTerms {
  int epochs = 1;
  double proximal_mu = 0;
  const std::vector<float>* anchor = nullptr;  // null: the model the job starts from
};

class LocalWork {
 public:
  virtual ~LocalWork() = default;
  // On an executor worker thread: trains from job.model and returns the new state.
  virtual TrainOutcome run(const JobInput& job) = 0;
  // The job's charge. `done` is the finished job's outcome when charged_after_run() (real runs),
  // else null: the charge must follow from the shape alone.
  virtual Charge cost(const JobShape& shape, const TrainOutcome* done) const = 0;
  // True when the charge depends on the outcome (epochs decided while training): the
  // simulation then waits for the job before charging it.
  virtual bool charged_after_run() const { return false; }
  // Non-empty when the work cannot be simulated without real training: why (for the error).
  virtual std::string needs_real_training() const { return ""; }
  // Set when run() is exactly the training these terms describe, so that training.fuse may
  // train this job inside a batched model of many hospitals instead; unset: always alone.
  virtual std::optional<FusibleTerms> fusible() const { return std::nullopt; }
};

// Work the server does on the executor (distillation, scoring on its own data): run() on a
// worker, flops() charged on the server host while it runs.
class ServerWork {
 public:
  virtual ~ServerWork() = default;
  virtual void run(const data::Dataset& pool, ComputeDevice device) = 0;
  virtual double flops() const = 0;
};

}  // namespace fedgrid
