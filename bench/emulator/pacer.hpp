#pragma once
// The sender's side of an emulated transfer: the bytes leave at the rate their path allows.
#include <cstdint>
#include <vector>

#include "bench/emulator/links.hpp"

namespace fedgrid::emulator {

// A path through the emulated network: the links it crosses and its one-way latency.
struct Route {
  std::vector<int> links;
  double latency_s = 0;
};

// The pacing's unit: a flow's rate is looked up again before each chunk, so a rate change
// (another flow starting or ending on a shared link) takes effect within one chunk. 16 KiB
// takes 6.6 ms at 20 Mbit/s and 0.13 ms at 1 Gbit/s.
inline constexpr int64_t kChunkBytes = 16 * 1024;

// A sender woken late (sleep overshoot, a throttled process) may send what it owes for up to
// this long at once instead of losing it, as a real sender's kernel drains its socket buffer
// meanwhile. Longer stalls lose the excess, as an idle TCP sender would.
inline constexpr int64_t kCatchUpNs = 20'000'000;

// Bytes to send, possibly in several pieces (a message's header and its weights, sent
// without copying them together).
struct Segment {
  const void* data;
  int64_t size;
};

// Writes the segments' bytes, in order, to the connected socket `fd`: nothing before start_ns + the route's
// latency (as in SimGrid, a flow takes no bandwidth until its latency has passed), then chunk
// by chunk at the flow's current max-min share of the route's links (LinkTable), each chunk
// written once it has had time to cross them. On an idle path the last byte arrives at
// start + latency + size * 8 / bandwidth. Throws std::runtime_error on a socket error.
void send_paced(int fd, const std::vector<Segment>& segments, const Route& route, LinkTable& links, int64_t start_ns);
inline void send_paced(int fd, const void* data, int64_t size, const Route& route, LinkTable& links, int64_t start_ns) {
  send_paced(fd, {{data, size}}, route, links, start_ns);
}

}  // namespace fedgrid::emulator
