#include "bench/emulator/role.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>

#include "bench/emulator/clock.hpp"
#include "bench/emulator/net.hpp"
#include "bench/emulator/schedules.hpp"
#include "sim/core/heap_policy.hpp"

namespace fedgrid::emulator {
namespace {

// "server" -> 0, "hospital:<i>" -> i + 1.
int host_of_role(const Options& o, const std::string& role) {
  if (role == "server" && o.has_server) return 0;
  if (role.rfind("hospital:", 0) == 0) {
    const int i = std::stoi(role.substr(9));
    if (i >= 0 && i < int(o.hospitals.size())) return hospital_host(i);
  }
  throw std::invalid_argument("unknown role '" + role + "'");
}

std::string read_line(int fd) {
  std::string line;
  char c;
  for (;;) {
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("the launcher went away");
    if (c == '\n') return line;
    line += c;
  }
}


}  // namespace

int run_role(const Options& o) {
  keep_training_buffers_in_heap();  // as fedgrid itself (sim/core/heap_policy.hpp)
  init_torch_threads();
  prctl(PR_SET_TIMERSLACK, 1UL);  // wake-ups to the microsecond: the pacer sleeps until each chunk is due
  const int me = host_of_role(o, o.role);
  Host host{o, Topology(o), LinkTable::attach(o.links_fd), me, std::make_unique<Inbox>(o.listen_fd), nullptr};
  // Everything slow happens before the start: samples, warm-up, the initial model.
  std::optional<LocalTrainer> trainer;
  if (me > 0) trainer.emplace(o, me - 1);
  std::vector<float> initial;
  if (me == 0 || (o.schedule == "fedcross" && me == 1)) initial = initial_model(o);
  if (me == 0 && o.schedule == "fedavg") {  // the first average grows the heap; later ones reuse it
    const size_t n = o.hospitals.size();
    average(o, std::vector<std::vector<float>>(n, initial), std::vector<int64_t>(n, 1));
  }
  if (me == 0 && o.schedule == "fedasync") warm_up_fedasync(initial);

  write_all(o.control_fd, "ready\n", 6);
  const std::string start = read_line(o.control_fd);
  if (start.rfind("start ", 0) != 0) throw std::runtime_error("unexpected word from the launcher: " + start);
  const int64_t t0 = std::stoll(start.substr(6));
  host.parts = std::make_unique<PartWriter>(o.out + "/parts/host" + std::to_string(me) + ".csv", t0);
  sleep_until_ns(t0);

  if (me == 0)
    run_server(host, std::move(initial));
  else
    run_hospital(host, *trainer, std::move(initial));
  host.inbox.reset();  // every message taken: stop accepting before the process ends
  return 0;
}

}  // namespace fedgrid::emulator
