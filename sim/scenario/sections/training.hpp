#pragma once
// training.*: how a local job trains (optimiser, learning rate, job size) and how fedgrid
// computes it (device, precision, fusing, threads), which never changes what it costs. Its
// modes are sim/core/modes.hpp's, since the compute side (sim/jobs) takes them without the
// scenario.
#include <cstdint>
#include <string>

#include "sim/core/modes.hpp"

namespace fedgrid {

struct TrainingSection {
  bool timing_only = false;  // training.mode: timing-only
  std::string surrogate;     // resolved path or empty
  Optimizer optimizer = Optimizer::Sgd;
  double lr = 0.01, momentum = 0.9, weight_decay = 0;
  LrSchedule lr_schedule = LrSchedule::Constant;  // per round over stop.rounds
  double lr_min = 0;                     // cosine: the last round's rate
  int batch_size = 32, local_epochs = 1;
  int64_t local_steps = 0;  // > 0: a local job is this many mini-batches instead of local_epochs
  DeviceChoice device = DeviceChoice::Auto;
  Precision precision = Precision::Fp32;  // bf16: autocast on CPUs with AVX-512 BF16
  bool deterministic = true;              // on CUDA: deterministic kernels only, no cuDNN benchmark mode
  Fuse fuse;                              // same-shape jobs of a round trained as one batched model
  std::string fuse_text = "off";          // training.fuse as written: the rule that refuses it quotes it
  int workers = 0, threads_per_worker = 1;
  ExecutorMode executor = ExecutorMode::Local;  // mpi: jobs spread over an MPI launch's ranks
};

}  // namespace fedgrid
