#pragma once
// CPU shares through cgroups: one group per emulated host, limited to its share of one CPU by
// the CFS bandwidth controller (quota per period), in one group for the run (with the highest
// CPU weight) under the launcher's own group.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedgrid::emulator {

// No cpu controller this process may write (exit code 77: the emulation is skipped).
struct CgroupsUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CpuGroups {
 public:
  // Finds a writable cpu controller, cgroup v1's cpu hierarchy first, then v2 with the cpu
  // controller; makes this run's group (fedgrid-emulate-<pid>) under the caller's own group,
  // first removing the groups of earlier runs whose launcher is gone. Throws
  // CgroupsUnavailable saying what was tried.
  explicit CpuGroups(int64_t period_us);
  ~CpuGroups();
  CpuGroups(const CpuGroups&) = delete;
  CpuGroups& operator=(const CpuGroups&) = delete;

  // A group `name` limited to `share` of one CPU: quota = share x period.
  void add(const std::string& name, double share);
  // Moves process `pid` (all its threads) into group `name`.
  void move(const std::string& name, pid_t pid);
  // The group's throttling figures so far, from cpu.stat: periods, periods throttled, and
  // the time throttled in seconds (names as in cgroup v1: nr_periods, nr_throttled,
  // throttled_s). Empty when unreadable.
  std::map<std::string, double> throttling(const std::string& name) const;
  // Removes every group; their processes must be gone. Best effort: what cannot be removed is
  // reported on stderr.
  void remove();

  int version() const { return version_; }
  const std::string& directory() const { return run_dir_; }

 private:
  int version_ = 0;
  std::string run_dir_;
  int64_t period_us_;
  std::vector<std::string> groups_;
};

}  // namespace fedgrid::emulator
