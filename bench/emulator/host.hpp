#pragma once
// What one host's program works with: the emulated network as seen from this host, its
// inbox, and where it records. Sends are recorded by their receiver, which alone sees the
// last byte arrive.
#include <memory>
#include <string>
#include <vector>

#include "bench/emulator/inbox.hpp"
#include "bench/emulator/links.hpp"
#include "bench/emulator/options.hpp"
#include "bench/emulator/records.hpp"
#include "bench/emulator/topology.hpp"

namespace fedgrid::emulator {

struct Host {
  const Options& options;
  Topology topology;
  LinkTable links;
  int me;  // host id
  std::unique_ptr<Inbox> inbox;
  std::unique_ptr<PartWriter> parts;

  const std::string& name() const { return topology.host(me).name; }
  // Sends a model to host `to`, counted toward `round`, starting at `start_ns` (now if 0);
  // returns once its last byte is out.
  void send(int to, int round, const std::vector<float>& weights, int64_t samples = 0, double loss = 0,
            int64_t start_ns = 0);
  // Waits for the model host `from` sends for `round` and records the transfer.
  Message receive(int from, int round);
};

}  // namespace fedgrid::emulator
