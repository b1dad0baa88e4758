#pragma once
// fedgrid-emulate's command line: the federation to run for real, described as fedgrid's
// scenario would describe it (hosts with CPU share, samples, bandwidths and latency).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid::emulator {

// A command line that cannot be run: exit code 2, the message names the argument.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// --help: print usage() and exit 0.
struct HelpRequested {};

struct HostSpec {
  std::string name;
  double share = 1;        // of one CPU (cgroup quota / period)
  int64_t samples = 0;     // training samples (hospitals)
  double uplink_bps = 0, downlink_bps = 0, latency_s = 0;
};

struct Options {
  std::string schedule;  // fedavg | fedseq | fedcross | fedasync
  int rounds = 0;
  models::ModelSpec spec;
  int batch_size = 0, epochs = 0;
  double lr = 0;
  uint64_t seed = 42;
  bool has_server = false;  // fedcross needs none (and starts no server process)
  HostSpec server;
  std::vector<HostSpec> hospitals;
  double backbone_bps = 100e9, backbone_latency_s = 0;  // fedgrid's defaults
  // CFS bandwidth period. A process with share s runs s x period, then waits the rest of the
  // period: 10 ms bounds that stall at 7.5 ms for a 0.25 share (the kernel's 100 ms default
  // would stall it 75 ms, a visible bump on a transfer's start or a short aggregation), while
  // staying well above the 1 ms minimum quota and the scheduler's accounting slices.
  int64_t cfs_period_us = 10'000;
  double timeout_s = 3600;
  std::string out;
  // Set only in the processes the launcher starts: which role, and the descriptors it hands over.
  std::string role;  // "server" or "hospital:<index>"
  int listen_fd = -1, control_fd = -1, links_fd = -1;
  std::vector<int> ports;  // by host id
  std::vector<std::string> argv;  // the user's arguments, for the children's command line
};

// Throws UsageError naming the offending argument, HelpRequested for --help.
Options parse_options(int argc, char** argv);

std::string usage();

}  // namespace fedgrid::emulator
