#include "bench/emulator/pacer.hpp"

#include <algorithm>

#include "bench/emulator/clock.hpp"
#include "bench/emulator/net.hpp"

namespace fedgrid::emulator {
namespace {

// The flow's registration for as long as it sends (closed on an error too).
class OpenFlow {
 public:
  OpenFlow(LinkTable& links, const Route& route)
      : links_(links), id_(links.open_flow(route.links, std::max(route.latency_s, 1e-9))) {}
  ~OpenFlow() { links_.close_flow(id_); }
  double rate_bps() { return std::max(1.0, links_.rate_bps(id_)); }

 private:
  LinkTable& links_;
  int id_;
};

// Writes the next `count` bytes of the segments, from segment `seg` at offset `off`.
void write_next(int fd, const std::vector<Segment>& segments, size_t& seg, int64_t& off, int64_t count) {
  while (count > 0) {
    const int64_t n = std::min(count, segments[seg].size - off);
    write_all(fd, static_cast<const char*>(segments[seg].data) + off, size_t(n));
    count -= n, off += n;
    if (off == segments[seg].size) ++seg, off = 0;
  }
}

}  // namespace

void send_paced(int fd, const std::vector<Segment>& segments, const Route& route, LinkTable& links, int64_t start_ns) {
  int64_t size = 0;
  for (const auto& s : segments) size += s.size;
  int64_t delivered = start_ns + seconds_to_ns(route.latency_s);
  sleep_until_ns(delivered);
  OpenFlow flow(links, route);
  size_t seg = 0;
  int64_t off = 0;
  for (int64_t sent = 0; sent < size;) {
    const double rate = flow.rate_bps();
    const int64_t chunk = std::min(chunk_bytes(rate), size - sent);
    // Go on from where the previous chunk was delivered, unless that lies further back than
    // the catch-up allowance.
    delivered = std::max(delivered, now_ns() - kCatchUpNs) + seconds_to_ns(double(chunk) * 8 / rate);
    sleep_until_ns(delivered);
    write_next(fd, segments, seg, off, chunk);
    sent += chunk;
  }
}

}  // namespace fedgrid::emulator
