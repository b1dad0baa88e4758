#pragma once
// The training section's modes (training.*), kept in sim/core because the compute side
// (sim/jobs) takes them and includes nothing of sim/scenario: LrSchedule, Optimizer, Precision,
// DeviceChoice, ExecutorMode and Fuse. The training section (sim/scenario/sections/training.hpp)
// includes this; the other sections declare their modes in their own headers.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/core/mode_names.hpp"

namespace fedgrid {

// training.lr_schedule: the same rate every round, or the per-round cosine decay
// (sim/jobs/training/lr_schedule.hpp).
enum class LrSchedule { Constant, Cosine };
inline constexpr ModeName<LrSchedule> kLrSchedules[] = {{LrSchedule::Constant, "constant"},
                                                        {LrSchedule::Cosine, "cosine"}};
constexpr std::span<const ModeName<LrSchedule>> modes_of(LrSchedule) { return kLrSchedules; }

// training.optimizer: SGD with momentum, Adam (weight decay as an L2 term in the gradient), or
// AdamW (weight decay decoupled from the gradient, Loshchilov and Hutter, ICLR 2019)
// (sim/jobs/training/optimizer.hpp, written once for plain and fused jobs).
enum class Optimizer { Sgd, Adam, AdamW };
inline constexpr ModeName<Optimizer> kOptimizers[] = {
    {Optimizer::Sgd, "sgd"}, {Optimizer::Adam, "adam"}, {Optimizer::AdamW, "adamw"}};
constexpr std::span<const ModeName<Optimizer>> modes_of(Optimizer) { return kOptimizers; }

// training.precision: fp32, or bf16 autocast (convolutions and matrix products in bfloat16,
// weights, optimiser and losses in fp32; sim/jobs/compute.hpp's in_precision).
enum class Precision { Fp32, Bf16 };
inline constexpr ModeName<Precision> kPrecisions[] = {{Precision::Fp32, "fp32"}, {Precision::Bf16, "bf16"}};
constexpr std::span<const ModeName<Precision>> modes_of(Precision) { return kPrecisions; }

// training.device: where LibTorch computes, as asked; auto is resolved against the machine
// at set-up (sim/jobs/compute.hpp's resolve_device).
enum class DeviceChoice { Auto, Cpu, Cuda };
inline constexpr ModeName<DeviceChoice> kDeviceChoices[] = {
    {DeviceChoice::Auto, "auto"}, {DeviceChoice::Cpu, "cpu"}, {DeviceChoice::Cuda, "cuda"}};
constexpr std::span<const ModeName<DeviceChoice>> modes_of(DeviceChoice) { return kDeviceChoices; }

// training.executor: where a run's training jobs compute: this process's executor threads, or
// spread over the ranks of an MPI launch, every rank simulating the same run
// (sim/jobs/mpi/job_exchange.hpp; docs/guide/mpi-executor.md).
enum class ExecutorMode { Local, Mpi };
inline constexpr ModeName<ExecutorMode> kExecutorModes[] = {{ExecutorMode::Local, "local"}, {ExecutorMode::Mpi, "mpi"}};
constexpr std::span<const ModeName<ExecutorMode>> modes_of(ExecutorMode) { return kExecutorModes; }

// training.fuse: a mode with a number. Off (every job alone), auto (the device's choice,
// sim/jobs/training_queue.hpp's fuse_auto_limit), or at most `count` hospitals per fused job.
enum class FuseMode { Off, Auto, Count };
struct Fuse {
  FuseMode mode = FuseMode::Off;
  int count = 0;  // FuseMode::Count's limit, 1..999999
  bool operator==(const Fuse&) const = default;
};
// "off", "auto" or a count of 1 to 6 digits with no leading zero, else nullopt; so every
// setting has one spelling, which fuse_name gives back.
inline std::optional<Fuse> fuse_named(std::string_view text) {
  if (text == "off") return Fuse{FuseMode::Off, 0};
  if (text == "auto") return Fuse{FuseMode::Auto, 0};
  if (text.empty() || text.size() > 6 || text[0] == '0') return std::nullopt;
  int count = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    count = count * 10 + (c - '0');
  }
  return Fuse{FuseMode::Count, count};
}
inline std::string fuse_name(Fuse fuse) {
  switch (fuse.mode) {
    case FuseMode::Off: return "off";
    case FuseMode::Auto: return "auto";
    case FuseMode::Count: break;
  }
  return std::to_string(fuse.count);
}

}  // namespace fedgrid
