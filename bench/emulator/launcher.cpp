#include "bench/emulator/launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "sim/cli/cpu_groups.hpp"
#include "bench/emulator/clock.hpp"
#include "bench/emulator/links.hpp"
#include "bench/emulator/net.hpp"
#include "bench/emulator/records.hpp"
#include "bench/emulator/topology.hpp"

namespace fedgrid::emulator {
namespace fs = std::filesystem;
namespace {

volatile sig_atomic_t g_signal = 0;
void on_signal(int sig) { g_signal = sig; }

struct Child {
  int host = 0;
  std::string role, group;
  pid_t pid = -1;
  int control = -1;
  std::string input;  // what it wrote on its control socket, not yet a whole line
  bool ready = false, exited = false;
};

std::string role_of(int host) { return host == 0 ? "server" : "hospital:" + std::to_string(host - 1); }

// Starts `argv` as a child that waits, before exec, until the parent has put it in its cgroup.
// Between fork and exec only async-signal-safe calls.
pid_t spawn(const std::vector<std::string>& args, const std::vector<int>& keep, CpuGroups& groups,
            const std::string& group) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int gate[2];
  if (pipe2(gate, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the launcher killed outright takes its children along
    if (getppid() != parent) _exit(1);
    for (int fd : keep) fcntl(fd, F_SETFD, 0);
    char go = 0;
    if (read(gate[0], &go, 1) != 1 || go != 'g') _exit(1);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(gate[0]);
  try {
    groups.move(group, pid);
  } catch (...) {
    close(gate[1]);  // the child reads end-of-file and exits
    waitpid(pid, nullptr, 0);
    throw;
  }
  const char go = 'g';
  const bool sent = write(gate[1], &go, 1) == 1;
  close(gate[1]);
  if (!sent) throw std::runtime_error("could not release a child process");
  return pid;
}

// Kills every child still running and reaps them.
void stop_all(std::vector<Child>& children) {
  for (auto& c : children)
    if (c.pid > 0 && !c.exited) kill(c.pid, SIGKILL);
  for (auto& c : children)
    if (c.pid > 0 && !c.exited) {
      waitpid(c.pid, nullptr, 0);
      c.exited = true;
    }
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

void write_summary(const Options& o, const CpuGroups& groups, const std::map<std::string, std::map<std::string, double>>& throttling,
                   const std::vector<std::pair<int, double>>& rounds, double wall_s) {
  const auto cost = models::model_cost(o.spec);
  nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
  auto host = [&](const HostSpec& h, const char* role) {
    hosts.push_back({{"name", h.name}, {"role", role}, {"share", h.share}, {"samples", h.samples},
                     {"uplink_bps", h.uplink_bps}, {"downlink_bps", h.downlink_bps}, {"latency_s", h.latency_s},
                     {"cgroup_cpu_stat", throttling.count(h.name) ? throttling.at(h.name) : std::map<std::string, double>{}}});
  };
  if (o.schedule != "fedcross") host(o.server, "server");
  for (const auto& h : o.hospitals) host(h, "hospital");
  nlohmann::ordered_json times = nlohmann::ordered_json::array();
  for (const auto& [round, t] : rounds) times.push_back(t);
  nlohmann::ordered_json j{
      {"schedule", o.schedule},
      {"rounds", o.rounds},
      {"model", {{"arch", o.spec.arch}, {"width_multiplier", o.spec.width_multiplier},
                 {"input", {o.spec.channels, o.spec.height, o.spec.width}}, {"classes", o.spec.num_classes},
                 {"values", cost.state_values}, {"payload_bytes", models::payload_bytes(cost)}}},
      {"training", {{"optimizer", "sgd"}, {"lr", o.lr}, {"momentum", 0.9}, {"batch_size", o.batch_size},
                    {"epochs", o.epochs}, {"seed", o.seed}, {"torch_intra_op_threads", 1}, {"torch_inter_op_threads", 1}}},
      {"hosts", hosts},
      {"backbone", {{"bandwidth_bps", o.backbone_bps}, {"latency_s", o.backbone_latency_s}}},
      {"cgroup", {{"version", groups.version()}, {"cfs_period_us", o.cfs_period_us}}},
      {"round_sim_time_s", times},
      {"sim_time_s", rounds.empty() ? 0.0 : rounds.back().second},
      {"wall_s", wall_s},
      {"command", o.argv}};
  std::ofstream(o.out + "/emulation.json") << j.dump(2) << "\n";
}

}  // namespace

int run_launcher(const Options& o, const char* argv0) {
  const int64_t wall0 = now_ns();
  const Topology topo(o);
  CpuGroups groups(o.cfs_period_us, "fedgrid-emulate-", "fedgrid-emulate");  // before anything else: without it nothing runs (77)
  std::vector<Child> children;
  for (int id = 0; id < topo.hosts(); ++id)
    if (topo.runs(id)) {
      Child c;
      c.host = id, c.role = role_of(id), c.group = std::to_string(id) + "-" + topo.host(id).name;
      groups.add(c.group, topo.host(id).share);
      children.push_back(c);
    }

  fs::create_directories(o.out);
  for (const char* stale : {"events.csv", "rounds.csv", "emulation.json", "parts"}) fs::remove_all(o.out + "/" + stale);
  fs::create_directories(o.out + "/parts");

  LinkTable links = LinkTable::create(topo.link_bandwidths());
  std::vector<int> listen_fd(size_t(topo.hosts()), -1), ports(size_t(topo.hosts()), 0);
  for (const auto& c : children) listen_fd[size_t(c.host)] = listen_loopback(ports[size_t(c.host)]);
  std::string port_list;
  for (int p : ports) port_list += (port_list.empty() ? "" : ",") + std::to_string(p);

  // One thread per process, whatever the libraries would pick (OpenMP reads these at start-up).
  for (const char* v : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"}) setenv(v, "1", 1);
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::string failure;
  int failure_code = 1;
  try {
    for (auto& c : children) {
      int control[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0)
        throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
      std::vector<std::string> args{argv0};
      args.insert(args.end(), o.argv.begin(), o.argv.end());
      const int lfd = listen_fd[size_t(c.host)];
      args.insert(args.end(), {"--role", c.role, "--role-fds",
                               std::to_string(lfd) + "," + std::to_string(control[1]) + "," + std::to_string(links.fd()),
                               "--ports", port_list});
      c.control = control[0];
      try {
        c.pid = spawn(args, {lfd, control[1], links.fd()}, groups, c.group);
      } catch (...) {
        close(control[1]);
        throw;
      }
      close(control[1]);
    }
    for (int fd : listen_fd)
      if (fd >= 0) close(fd);

    // Watches the children: their control lines and their exits, the signals, the time limit.
    const int64_t deadline = wall0 + seconds_to_ns(o.timeout_s);
    bool started = false;
    size_t exited_ok = 0;
    while (exited_ok < children.size()) {
      std::vector<pollfd> fds;
      for (auto& c : children) fds.push_back({c.control, POLLIN, 0});
      poll(fds.data(), fds.size(), 50);
      if (g_signal) {
        failure = std::string("interrupted by ") + strsignal(g_signal), failure_code = 128 + g_signal;
        break;
      }
      if (now_ns() > deadline) {
        std::ostringstream limit;
        limit << o.timeout_s;
        failure = "still running after --timeout-s " + limit.str() + " s";
        break;
      }
      for (size_t i = 0; i < children.size(); ++i) {
        auto& c = children[i];
        if (!(fds[i].revents & POLLIN) || c.ready) continue;
        char buf[64];
        const ssize_t n = read(c.control, buf, sizeof buf);
        if (n > 0) c.input.append(buf, size_t(n));
        if (c.input.find("ready\n") != std::string::npos) c.ready = true;
      }
      for (auto& c : children) {
        int status = 0;
        if (c.exited || waitpid(c.pid, &status, WNOHANG) != c.pid) continue;
        c.exited = true;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && started) {
          ++exited_ok;
          continue;
        }
        failure = topo.host(c.host).name + " (" + c.role + ") " + describe_status(status) +
                  (started ? "" : " before the start");
        break;
      }
      if (!failure.empty()) break;
      if (!started && std::all_of(children.begin(), children.end(), [](const Child& c) { return c.ready; })) {
        // Everyone is set up: start together a little ahead, so every child is waiting by then.
        const std::string go = "start " + std::to_string(now_ns() + 100'000'000) + "\n";
        for (auto& c : children) write_all(c.control, go.data(), go.size());
        started = true;
      }
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  stop_all(children);
  // How much the CFS throttled each host: a share behaves as 1/share slower only if its group
  // was throttled in most periods while it computed.
  std::map<std::string, std::map<std::string, double>> throttling;
  for (auto& c : children) {
    if (c.control >= 0) close(c.control);
    throttling[topo.host(c.host).name] = groups.throttling(c.group);
  }
  groups.remove();
  if (!failure.empty()) {
    std::cerr << "fedgrid-emulate: error: " << failure << "; stopped every process (partial measurements in "
              << o.out << "/parts)\n";
    return failure_code;
  }

  const auto rounds = merge_parts(o.out, o.schedule == "fedcross" ? "" : o.server.name);
  write_summary(o, groups, throttling, rounds, double(now_ns() - wall0) / 1e9);
  std::cout << "fedgrid-emulate: " << o.schedule << ", " << rounds.size() << " rounds ready at" << std::fixed
            << std::setprecision(3);
  for (const auto& [round, t] : rounds) std::cout << ' ' << t;
  std::cout << " s -> " << o.out << std::endl;
  return 0;
}

}  // namespace fedgrid::emulator
