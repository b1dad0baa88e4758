#include "sim/cli/calibrate_under_load.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sim/cli/cpu_groups.hpp"

namespace fedgrid {
namespace {

using Clock = std::chrono::steady_clock;

// Each measurement's phase: a warm-up, the training window, the evaluation window, and slack
// for the last step of a slow copy to end before the next phase starts.
constexpr double kWarmS = 1.0, kSlackS = 0.5;
double eval_window_s(const LoadConditions& l) { return std::max(0.25, l.seconds / 4); }
double phase_s(const LoadConditions& l) { return kWarmS + l.seconds + eval_window_s(l) + kSlackS; }

struct Copy {
  pid_t pid = -1;
  int go = -1, results = -1;  // the parent's ends: start instant out, result lines in
  size_t slot = 0;            // index into the shares (0 without shares)
};

void write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += size_t(n);
  }
}

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  return out;
}

// A copy's life after fork: wait for the start instant, measure each phase, report a line per
// measurement ("ok" and the figures) or one "error" line, and leave without running the
// parent's destructors.
[[noreturn]] void run_copy(int go, int results, const std::vector<Measurement>& what, int threads,
                           const OptimizerConfig& optimizer, const LoadConditions& load) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  int64_t start_ns = 0;
  if (read(go, &start_ns, sizeof start_ns) != sizeof start_ns) _exit(1);
  std::string report;
  int code = 0;
  try {
    const ComputeDevice device = resolve_device(DeviceChoice::Auto);
    const Clock::time_point start{std::chrono::nanoseconds(start_ns)};
    auto at = [&](double s) { return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
    for (size_t m = 0; m < what.size(); ++m) {
      const double p = double(m) * phase_s(load);
      std::this_thread::sleep_until(at(p));
      StepWindow w;
      w.warm_until = at(p + kWarmS);
      w.train_until = at(p + kWarmS + load.seconds);
      w.eval_until = at(p + kWarmS + load.seconds + eval_window_s(load));
      const StepTiming t = time_steps_in_window(what[m].spec, what[m].batch, threads, optimizer, device, w);
      report += fmt::format("ok {:.9g} {:.9g} {:.9g} {:.9g} {}\n", t.train_step_s, t.train_step_min_s, t.eval_sample_s,
                            t.eval_sample_min_s, t.repeats);
    }
  } catch (const std::exception& e) {
    std::string why = e.what();
    std::replace(why.begin(), why.end(), '\n', ' ');
    report = "error " + why + "\n", code = 1;
  }
  write_all(results, report);
  _exit(code);
}

void stop_all(std::vector<Copy>& copies) {
  for (auto& c : copies)
    if (c.pid > 0) kill(c.pid, SIGKILL);
  for (auto& c : copies)
    if (c.pid > 0) waitpid(c.pid, nullptr, 0), c.pid = -1;
}

}  // namespace

std::string describe(const LoadConditions& l) {
  if (l.shares.empty() && l.copies == 1)
    return "one process, no CPU quota, the machine as found; figures: the median of repeats";
  std::string shares;
  for (double s : l.shares) shares += (shares.empty() ? "" : ", ") + fmt::format("{:g}", s);
  const size_t processes = size_t(l.copies) * std::max<size_t>(1, l.shares.size());
  return fmt::format("{} processes stepping at once{}; figures: means over a {:g} s training window per model "
                     "and batch size (evaluation {:g} s)",
                     processes,
                     l.shares.empty() ? ", no CPU quota"
                                      : fmt::format(" ({} per share), each in a cgroup limited to its share of one "
                                                    "CPU ({}; CFS quota, period {} us; 1: no quota)",
                                                    l.copies, shares, l.period_us),
                     l.seconds, eval_window_s(l));
}

std::vector<std::vector<StepTiming>> time_under_load(const std::vector<Measurement>& what, int threads,
                                                     const OptimizerConfig& optimizer, const LoadConditions& load) {
  std::unique_ptr<CpuGroups> groups;
  const size_t slots = std::max<size_t>(1, load.shares.size());
  if (!load.shares.empty()) {
    groups = std::make_unique<CpuGroups>(load.period_us, "fedgrid-calibrate-", "fedgrid calibrate");
  }
  std::vector<Copy> copies;
  std::fflush(nullptr);  // nothing buffered may be written twice
  for (size_t slot = 0; slot < slots; ++slot)
    for (int c = 0; c < load.copies; ++c) {
      int go[2], results[2];
      if (pipe(go) != 0 || pipe(results) != 0) {
        stop_all(copies);
        throw std::runtime_error("calibrate: cannot create a pipe for a copy");
      }
      const pid_t pid = fork();
      if (pid == 0) {
        close(go[1]), close(results[0]);
        for (const auto& other : copies) close(other.go), close(other.results);
        run_copy(go[0], results[1], what, threads, optimizer, load);
      }
      close(go[0]), close(results[1]);
      copies.push_back({pid, go[1], results[0], slot});
      if (pid < 0) {
        stop_all(copies);
        throw std::runtime_error("calibrate: cannot fork a copy");
      }
      if (groups) {
        const std::string name = fmt::format("copy-{}", copies.size());
        try {
          groups->add(name, load.shares[slot]);
          groups->move(name, pid);
        } catch (...) {
          stop_all(copies);
          throw;
        }
      }
    }
  // Every copy is in its group before any steps; the first phase starts a moment later.
  const int64_t start_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>((Clock::now() + std::chrono::milliseconds(200)).time_since_epoch())
          .count();
  for (auto& c : copies) {
    write_all(c.go, std::string(reinterpret_cast<const char*>(&start_ns), sizeof start_ns));
    close(c.go);
  }

  std::vector<std::vector<StepTiming>> sums(slots, std::vector<StepTiming>(what.size()));
  std::string failure;
  for (auto& c : copies) {
    std::istringstream lines(read_all(c.results));
    close(c.results);
    int status = 0;
    waitpid(c.pid, &status, 0);
    c.pid = -1;
    std::string word;
    for (size_t m = 0; m < what.size(); ++m) {
      StepTiming t;
      if (!(lines >> word) || word != "ok" ||
          !(lines >> t.train_step_s >> t.train_step_min_s >> t.eval_sample_s >> t.eval_sample_min_s >> t.repeats)) {
        std::string rest;
        std::getline(lines, rest);
        if (failure.empty())
          failure = word == "error" ? rest : fmt::format("a copy ended without its figures (status {})", status);
        break;
      }
      StepTiming& s = sums[c.slot][m];
      const bool first = s.repeats == 0;
      s.train_step_s += t.train_step_s / load.copies, s.eval_sample_s += t.eval_sample_s / load.copies;
      s.train_step_min_s = first ? t.train_step_min_s : std::min(s.train_step_min_s, t.train_step_min_s);
      s.eval_sample_min_s = first ? t.eval_sample_min_s : std::min(s.eval_sample_min_s, t.eval_sample_min_s);
      s.repeats += t.repeats;
    }
  }
  if (!failure.empty()) throw std::runtime_error("calibrate: a copy failed:" + failure);
  for (auto& slot : sums)
    for (auto& s : slot) s.spread = (s.train_step_s - s.train_step_min_s) / s.train_step_s;
  return sums;
}

}  // namespace fedgrid
