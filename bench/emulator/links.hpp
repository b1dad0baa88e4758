#pragma once
// The emulated network's links and the flows crossing them, shared by every process of an
// emulation: a table in shared memory (a memfd the children inherit) under one
// process-shared mutex.
//
// Why one shared table: fedgrid's links are shared resources (SimGrid's flow model divides a
// link's bandwidth among the flows crossing it). The server's uplink is shared by the
// server's concurrent sends, which its own process could pace; but its downlink is shared by
// uploads coming from several hospital processes, and a receiver cannot pace TCP. So every
// sender registers its flow (the links of its path: its uplink, the backbone, the receiver's
// downlink) in one table, and before each chunk asks for its max-min fair share of the links
// given every flow registered at that moment, whichever process owns it: the fluid model
// SimGrid solves, applied chunk by chunk. As under fedgrid's timing.network: cm02 (SimGrid's
// CM02 with weight-S 0), each flow's sharing penalty is its route's latency: on a saturated
// link, rate x penalty is the same for every flow crossing it, so a flow of half the latency
// gets twice the rate (TCP's throughput falls with the round-trip time, the reason CM02 weights
// so). Flows of equal latency share equally.
#include <cstdint>
#include <vector>

namespace fedgrid::emulator {

class LinkTable {
 public:
  static constexpr int kMaxLinks = 1024, kMaxFlows = 1024, kMaxPathLinks = 4;

  // A new table in a fresh memfd.
  static LinkTable create(const std::vector<double>& bandwidth_bps);
  // The table behind an inherited memfd (a child process).
  static LinkTable attach(int fd);
  LinkTable(LinkTable&&) noexcept;
  LinkTable& operator=(LinkTable&&) = delete;
  LinkTable(const LinkTable&) = delete;
  ~LinkTable();

  int fd() const { return fd_; }
  int size() const;
  double bandwidth_bps(int link) const;

  // Registers a flow over `links` (at most kMaxPathLinks) with its sharing penalty (the route's
  // latency, seconds; > 0); returns its id for rate_bps and close_flow.
  int open_flow(const std::vector<int>& links, double penalty);
  void close_flow(int flow);
  // The flow's weighted max-min fair share (bit/s) of its links among all flows open now.
  double rate_bps(int flow);

 private:
  struct Shared;
  static Shared* map(int fd);
  LinkTable(int fd, Shared* shared) : fd_(fd), shared_(shared) {}
  int fd_ = -1;
  Shared* shared_ = nullptr;
};

}  // namespace fedgrid::emulator
