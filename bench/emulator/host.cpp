#include "bench/emulator/host.hpp"

#include <stdexcept>

#include "bench/emulator/clock.hpp"

namespace fedgrid::emulator {

void Host::send(int to, int round, const std::vector<float>& weights, int64_t samples, double loss,
                int64_t start_ns) {
  WireHeader h;
  h.from = me, h.to = to, h.round = round;
  h.values = int64_t(weights.size()), h.samples = samples, h.train_loss = loss;
  h.start_ns = start_ns ? start_ns : now_ns();
  send_message(options.ports.at(size_t(to)), h, weights, topology.route(me, to), links);
}

Message Host::receive(int from, int round) {
  Message m = inbox->take(from, round);
  if (m.header.to != me) throw std::runtime_error("received a message meant for host " + std::to_string(m.header.to));
  parts->event(m.header.start_ns, m.end_ns, topology.host(from).name, "send", name(), m.bytes(), 0, round);
  return m;
}

}  // namespace fedgrid::emulator
