#pragma once
// The scenario's modes: keys whose value picks one of a few ways of doing something. Each is an
// enum read once, when the scenario is loaded (sim/scenario/keys/), so nothing downstream
// compares strings; its names are declared once, here: the key's allowed values (and so the
// "is not one of" message), the reader, and the name outputs print (summary.json).
// Shared vocabulary (sim/core): the compute side (sim/jobs) takes LrSchedule, Optimizer,
// Precision, DeviceChoice, Fuse and ExecutorMode, the partitioner (data/) its PartitionScheme.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "data/partition_scheme.hpp"

namespace fedgrid {

template <class Mode>
struct ModeName {
  Mode mode;
  std::string_view name;  // as a scenario writes it (a literal: data() ends in '\0')
};

// timing.network: SimGrid's LV08 model ("default"), CM02's exact latency + size / bandwidth,
// fluid (CM02's sharing of the star's server links, computed incrementally; sim/engine/star_fluid.hpp),
// or ns3 (packet-level TCP; sim/network/packet_network.hpp).
enum class NetworkModel { Lv08, Cm02, Fluid, Ns3 };
inline constexpr ModeName<NetworkModel> kNetworkModels[] = {{NetworkModel::Lv08, "default"},
                                                            {NetworkModel::Cm02, "cm02"},
                                                            {NetworkModel::Fluid, "fluid"},
                                                            {NetworkModel::Ns3, "ns3"}};
constexpr std::span<const ModeName<NetworkModel>> modes_of(NetworkModel) { return kNetworkModels; }

// timing.compute: a job costs its analytic FLOPs / the host's speed, or the seconds per step a
// profile measured (sim/jobs/calibration/compute_profile.hpp).
enum class ComputeModel { Flops, Profile };
inline constexpr ModeName<ComputeModel> kComputeModels[] = {{ComputeModel::Flops, "flops"},
                                                            {ComputeModel::Profile, "profile"}};
constexpr std::span<const ModeName<ComputeModel>> modes_of(ComputeModel) { return kComputeModels; }

// training.lr_schedule: the same rate every round, or the per-round cosine decay
// (sim/jobs/training/lr_schedule.hpp).
enum class LrSchedule { Constant, Cosine };
inline constexpr ModeName<LrSchedule> kLrSchedules[] = {{LrSchedule::Constant, "constant"},
                                                        {LrSchedule::Cosine, "cosine"}};
constexpr std::span<const ModeName<LrSchedule>> modes_of(LrSchedule) { return kLrSchedules; }

// training.optimizer: SGD with momentum, Adam (weight decay as an L2 term in the gradient), or
// AdamW (weight decay decoupled from the gradient, Loshchilov and Hutter, ICLR 2019)
// (sim/jobs/training/epoch_loop.hpp's make_optimizer).
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

// data.partition.scheme (data/partition.hpp).
inline constexpr ModeName<data::PartitionScheme> kPartitionSchemes[] = {{data::PartitionScheme::Iid, "iid"},
                                                                        {data::PartitionScheme::Dirichlet, "dirichlet"},
                                                                        {data::PartitionScheme::Shards, "shards"},
                                                                        {data::PartitionScheme::Balanced, "balanced"},
                                                                        {data::PartitionScheme::Counts, "counts"}};
constexpr std::span<const ModeName<data::PartitionScheme>> modes_of(data::PartitionScheme) { return kPartitionSchemes; }

// platform.hospitals[].vary.<figure>.dist: how a group's hospitals draw the figure
// (sim/engine/population.hpp).
enum class FigureDist { Lognormal, Uniform, Empirical };
inline constexpr ModeName<FigureDist> kFigureDists[] = {
    {FigureDist::Lognormal, "lognormal"}, {FigureDist::Uniform, "uniform"}, {FigureDist::Empirical, "empirical"}};
constexpr std::span<const ModeName<FigureDist>> modes_of(FigureDist) { return kFigureDists; }

// stop.monitor: the validation figure early stopping (stop.patience) watches, computed on the
// hospitals' validation splits (sim/engine/evaluation.hpp): its loss (lower is better) or its
// accuracy (higher is better).
enum class StopMonitor { ValLoss, ValAccuracy };
inline constexpr ModeName<StopMonitor> kStopMonitors[] = {{StopMonitor::ValLoss, "val_loss"},
                                                          {StopMonitor::ValAccuracy, "val_accuracy"}};
constexpr std::span<const ModeName<StopMonitor>> modes_of(StopMonitor) { return kStopMonitors; }

// The name of `mode`, as a scenario writes it.
template <class Mode>
constexpr std::string_view mode_name(Mode mode) {
  for (const auto& m : modes_of(mode))
    if (m.mode == mode) return m.name;
  return "?";  // not reached: every enumerator has its name
}

// The mode named `name`, or nullopt.
template <class Mode>
constexpr std::optional<Mode> mode_named(std::string_view name) {
  for (const auto& m : modes_of(Mode{}))
    if (m.name == name) return m.mode;
  return std::nullopt;
}

// Every name of the mode, in declaration order (the key's allowed values).
template <class Mode>
std::vector<std::string> mode_names() {
  std::vector<std::string> out;
  for (const auto& m : modes_of(Mode{})) out.emplace_back(m.name);
  return out;
}

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
