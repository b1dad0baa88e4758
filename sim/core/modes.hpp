#pragma once
// The scenario's modes: keys whose value picks one of a few ways of doing something. Each is an
// enum read once, when the scenario is loaded (sim/scenario/keys/), so nothing downstream
// compares strings; its names are declared once, here: the key's allowed values (and so the
// "is not one of" message), the reader, and the name outputs print (summary.json).
// Shared vocabulary (sim/core): the compute side (sim/jobs) takes LrSchedule.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fedgrid {

template <class Mode>
struct ModeName {
  Mode mode;
  std::string_view name;  // as a scenario writes it (a literal: data() ends in '\0')
};

// timing.network: SimGrid's LV08 model ("default"), CM02's exact latency + size / bandwidth, or
// fluid (CM02's sharing of the star's server links, computed incrementally; sim/engine/star_fluid.hpp).
enum class NetworkModel { Lv08, Cm02, Fluid };
inline constexpr ModeName<NetworkModel> kNetworkModels[] = {
    {NetworkModel::Lv08, "default"}, {NetworkModel::Cm02, "cm02"}, {NetworkModel::Fluid, "fluid"}};
constexpr std::span<const ModeName<NetworkModel>> modes_of(NetworkModel) { return kNetworkModels; }

// timing.compute: a job costs its analytic FLOPs / the host's speed, or the seconds per step a
// profile measured (sim/jobs/compute_profile.hpp).
enum class ComputeModel { Flops, Profile };
inline constexpr ModeName<ComputeModel> kComputeModels[] = {{ComputeModel::Flops, "flops"},
                                                            {ComputeModel::Profile, "profile"}};
constexpr std::span<const ModeName<ComputeModel>> modes_of(ComputeModel) { return kComputeModels; }

// training.lr_schedule: the same rate every round, or the per-round cosine decay
// (sim/jobs/lr_schedule.hpp).
enum class LrSchedule { Constant, Cosine };
inline constexpr ModeName<LrSchedule> kLrSchedules[] = {{LrSchedule::Constant, "constant"},
                                                        {LrSchedule::Cosine, "cosine"}};
constexpr std::span<const ModeName<LrSchedule>> modes_of(LrSchedule) { return kLrSchedules; }

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

}  // namespace fedgrid
