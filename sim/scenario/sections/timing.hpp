#pragma once
// timing.*: how simulated time is charged (compute and network models).
#include <span>
#include <string>

#include "sim/core/mode_names.hpp"
#include "sim/network/tcp_settings.hpp"

namespace fedgrid {

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

struct TimingSection {
  ComputeModel compute = ComputeModel::Flops;
  std::string profile;  // timing.compute: profile: the profile CSV or folder, resolved
  NetworkModel network = NetworkModel::Lv08;
  bool cohorts = false;
  network::TcpSettings tcp;  // timing.network: ns3
  // timing.network: default: SimGrid's LV08 factors (its own defaults; docs/guide/time-model.md,
  // "Which network model": the fit against ns3).
  struct Lv08 {
    double latency_factor = 13.01, bandwidth_factor = 0.97, weight_s = 20537;
    bool operator==(const Lv08&) const = default;
  } lv08;
};

}  // namespace fedgrid
