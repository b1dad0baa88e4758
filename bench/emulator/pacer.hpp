#pragma once
// The sender's side of an emulated transfer: the bytes leave at the rate their path allows.
#include <algorithm>
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
// (another flow starting or ending on a shared link) takes effect within one chunk. A chunk
// lasts about kChunkS at the flow's rate, between kMinChunkBytes and kChunkBytes: a fixed 16
// KiB lasted 65 ms at a 2 Mbit/s share, and a flow kept the old rate that long after another
// flow ended (uploads through a 5.4 Mbit/s server downlink took 10-15% longer than fedgrid's).
inline constexpr int64_t kChunkBytes = 16 * 1024, kMinChunkBytes = 1024;
inline constexpr double kChunkS = 0.002;
inline int64_t chunk_bytes(double rate_bps) {
  return std::clamp(int64_t(rate_bps * kChunkS / 8), kMinChunkBytes, kChunkBytes);
}

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
