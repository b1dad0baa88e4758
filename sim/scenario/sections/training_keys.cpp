// training.*: its keys and its cross-key rules.
#include "sim/scenario/sections/parts.hpp"

namespace fedgrid::sections {
namespace {

// training.mode, surrogate, optimiser, learning rate and its schedule, job size.
void optimisation_keys(Keys& k) {
  using S = Scenario;
  k.group("training", "Local training")
      .custom("training.mode", KeyType::String, "real",
              "real (LibTorch trains) | timing-only (protocol, transfers and compute charges; no tensors, no data)",
              {.allowed = {"real", "timing-only"}},
              [](S& s, const KeyValues& from) {
                s.training.timing_only = from.value<std::string>("training.mode") == "timing-only";
              })
      .bind<std::string>("training.surrogate", [](S& s) -> auto& { return s.training.surrogate; }, none,
                         "timing-only: CSV with round,accuracy columns (e.g. an earlier run's rounds.csv) giving accuracy by round");
  k.bind_mode<Optimizer>("training.optimizer", [](S& s) -> auto& { return s.training.optimizer; }, "sgd",
                         "sgd | adam | adamw (AdamW: weight decay decoupled from the gradient)")
      .bind<double>("training.lr", [](S& s) -> auto& { return s.training.lr; }, "0.01", "Learning rate",
                    {.min = 0, .min_exclusive = true});
  k.bind_mode<LrSchedule>("training.lr_schedule", [](S& s) -> auto& { return s.training.lr_schedule; }, "constant",
                          "constant | cosine: round r's jobs train at lr_min + (lr - lr_min)(1 + cos(pi (r - 1) / "
                          "stop.rounds)) / 2, the per-round cosine decay of DynamicFL and CarPe-FL")
      .bind<double>("training.lr_min", [](S& s) -> auto& { return s.training.lr_min; }, "0",
                    "cosine: the rate the decay approaches at stop.rounds", {.min = 0})
      .bind<double>("training.momentum", [](S& s) -> auto& { return s.training.momentum; }, "0.9", "SGD momentum",
                    {.min = 0})
      .bind<double>("training.weight_decay", [](S& s) -> auto& { return s.training.weight_decay; }, "0",
                    "L2 weight decay", {.min = 0})
      .bind<int>("training.batch_size", [](S& s) -> auto& { return s.training.batch_size; }, "32", "Mini-batch size",
                 {.min = 1})
      .bind<int>("training.local_epochs", [](S& s) -> auto& { return s.training.local_epochs; }, "1",
                 "Epochs per local training job", {.min = 1})
      .bind<int64_t>("training.local_steps", [](S& s) -> auto& { return s.training.local_steps; }, "0",
                     "Mini-batches per local training job, replacing local_epochs (0: use local_epochs); FedSKD's 'iterations'",
                     {.min = 0});
}

// training.device, precision, deterministic, fuse, workers, threads_per_worker, executor.
void arithmetic_keys(Keys& k) {
  using S = Scenario;
  // training.device's and training.fuse's "auto" is resolved against the machine at set-up
  // (sim/jobs/compute.hpp's resolve_device, training_queue.hpp's fuse_limit_of).
  k.bind_mode<DeviceChoice>("training.device", [](S& s) -> auto& { return s.training.device; }, "auto",
                            "auto | cpu | cuda (auto: cuda when present)");
  k.bind_mode<Precision>("training.precision", [](S& s) -> auto& { return s.training.precision; }, "fp32",
                         "fp32 | bf16: bf16 runs training's convolutions and matrix products in bfloat16 (autocast, weights kept in fp32; CPUs with AVX-512 BF16); changes the arithmetic, never simulated time")
      .bind<bool>("training.deterministic", [](S& s) -> auto& { return s.training.deterministic; }, "true",
                  "On CUDA: deterministic kernels only, cuDNN without benchmark mode and cuBLAS's fixed workspace, so two runs on one GPU give the same bytes; false trades that for speed (the CPU is deterministic either way)")
      .custom("training.fuse", KeyType::String, "off",
              "Train a round's same-shape hospital jobs as one batched model: off, auto (on a GPU), or K (at most K hospitals per fused job); changes how fedgrid computes, never what the federation costs",
              {},
              [](S& s, const KeyValues& from) {
                // Text that names no setting is kept for the rule that refuses it (below).
                if (auto v = from.value<std::string>("training.fuse")) {
                  s.training.fuse_text = *v;
                  if (auto fuse = fuse_named(*v)) s.training.fuse = *fuse;
                }
              })
      .bind<int>("training.workers", [](S& s) -> auto& { return s.training.workers; }, "0",
                 "Compute executor worker threads (0: one per core); how fast, never what: outputs are the same for any count", {.min = 0})
      .bind<int>("training.threads_per_worker", [](S& s) -> auto& { return s.training.threads_per_worker; }, "1",
                 "Torch intra-op threads of each job; changes the arithmetic (reduction order), so it is never derived from the core count or training.workers, and summary.json records it",
                 {.min = 1});
  k.bind_mode<ExecutorMode>("training.executor", [](S& s) -> auto& { return s.training.executor; }, "local",
                            "local | mpi: mpi spreads the training jobs of one run over the ranks of `mpirun -np N fedgrid run` (or srun), every rank simulating the same run; outputs are the same bytes as local (docs/guide/mpi-executor.md)");
}

}  // namespace

void training_keys(Keys& k) {
  optimisation_keys(k);
  arithmetic_keys(k);
}

Rules training_setting_rules() {
  using S = const Scenario&;
  return {
      {{"training.lr_min", "training.lr", "training.lr_schedule"},
       [](S s) { return s.training.lr_schedule == LrSchedule::Cosine && s.training.lr_min > s.training.lr; },
       [](S s) {
         return "must not exceed training.lr (" + std::to_string(s.training.lr) +
                "): the cosine schedule decays from lr to lr_min";
       }},
      {{"training.fuse"}, [](S s) { return !fuse_named(s.training.fuse_text); },
       [](S s) {
         return "expected off, auto or a positive number of hospitals per fused job (e.g. 16), got '" +
                s.training.fuse_text + "'";
       }},
  };
}

Rules training_use_rules() {
  using S = const Scenario&;
  return {
      {{"training.surrogate", "training.mode"},
       [](S s) { return !s.training.surrogate.empty() && !s.training.timing_only; }, says(kTimingOnly)},
  };
}

}  // namespace fedgrid::sections
