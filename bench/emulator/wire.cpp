#include "bench/emulator/wire.hpp"

#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "bench/emulator/clock.hpp"
#include "bench/emulator/net.hpp"

namespace fedgrid::emulator {

void send_message(int port, const WireHeader& header, const std::vector<float>& weights, const Route& route,
                  LinkTable& links) {
  if (int64_t(weights.size()) != header.values) throw std::logic_error("send_message: header and weights disagree");
  // Header and weights paced as one stream, without copying them together (a throttled
  // server should spend its CPU on the federation's work, not on the emulator's).
  const std::vector<Segment> bytes{{&header, int64_t(sizeof header)},
                                   {weights.data(), int64_t(weights.size() * sizeof(float))}};
  const int fd = connect_loopback(port);
  try {
    send_paced(fd, bytes, route, links, header.start_ns);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
}

bool receive_message(int fd, Message& out) {
  if (!read_all(fd, &out.header, sizeof out.header)) return false;
  const WireHeader expected;
  if (std::memcmp(out.header.magic, expected.magic, sizeof expected.magic) != 0)
    throw std::runtime_error("received a message without the emulator's header");
  if (out.header.values < 0 || out.header.values > (int64_t(1) << 34))
    throw std::runtime_error("received a message of " + std::to_string(out.header.values) + " values");
  out.weights.resize(size_t(out.header.values));
  if (out.header.values > 0 && !read_all(fd, out.weights.data(), out.weights.size() * sizeof(float)))
    throw std::runtime_error("connection closed after the message header");
  out.end_ns = now_ns();
  return true;
}

}  // namespace fedgrid::emulator
