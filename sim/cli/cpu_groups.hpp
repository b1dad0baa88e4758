#pragma once
// CPU shares through cgroups: one group per process, limited to its share of one CPU by the
// CFS bandwidth controller (quota per period), in one group for the run (with the highest CPU
// weight) under the caller's own group. Used by `fedgrid calibrate --cpu-share` (a profile
// measured under a quota) and by bench/emulator's fedgrid-emulate (one group per emulated host).
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedgrid {

// No cpu controller this process may write (fedgrid-emulate exits 77: skipped; calibrate 2).
struct CgroupsUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CpuGroups {
 public:
  // Finds a writable cpu controller, cgroup v1's cpu hierarchy first, then v2 with the cpu
  // controller; makes this run's group (<prefix><pid>, e.g. fedgrid-emulate-123) under the
  // caller's own group, first removing the groups of earlier runs (same prefix) whose process
  // is gone. Throws CgroupsUnavailable saying what was tried. `who` prefixes warnings.
  CpuGroups(int64_t period_us, const std::string& prefix, const std::string& who);
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
  std::string run_dir_, who_;
  int64_t period_us_;
  std::vector<std::string> groups_;
};

}  // namespace fedgrid
