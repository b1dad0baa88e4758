#include "sim/cli/cpu_groups.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace fedgrid {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

bool has_token(const std::string& list, const std::string& token) {
  for (const auto& t : split(list, ',')) if (t == token) return true;
  return false;
}

// Writes `value` to a control file; "" on success, else why not.
std::string write_file(const std::string& path, const std::string& value) {
  std::ofstream f(path);
  if (f) f << value << std::flush;
  return f ? "" : path + ": " + std::strerror(errno);
}

// Whether a whitespace-separated list (cgroup.controllers) holds `word`.
bool has_word(const std::string& text, const std::string& word) {
  std::stringstream in(text);
  for (std::string w; in >> w;) if (w == word) return true;
  return false;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Mount {
  std::string point, root;
};

// The mount of a cgroup hierarchy from /proc/self/mountinfo: v1 with the "cpu" controller in
// its super options, or v2.
bool find_mount(int version, Mount& out) {
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const auto before = split(line.substr(0, dash), ' '), after = split(line.substr(dash + 3), ' ');
    if (before.size() < 5 || after.size() < 3) continue;
    const bool match = version == 1 ? after[0] == "cgroup" && has_token(after[2], "cpu") : after[0] == "cgroup2";
    if (match) {
      out = {before[4], before[3]};
      return true;
    }
  }
  return false;
}

// This process's group in that hierarchy, from /proc/self/cgroup, as a directory.
std::string own_directory(int version, const Mount& m) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (version == 1 ? !has_token(controllers, "cpu") : line.substr(0, first) != "0" || !controllers.empty()) continue;
    // A container's mount may show only part of the hierarchy: drop the part above its root.
    if (m.root != "/" && path.rfind(m.root, 0) == 0) path = path.substr(m.root.size());
    return m.point + (path == "/" ? "" : path);
  }
  return m.point;
}

// Groups of earlier runs whose launcher died (killed before it could clean up).
void remove_stale(const std::string& base, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(base, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.rfind(prefix, 0) != 0) continue;
    const std::string pid = name.substr(prefix.size());
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (kill(pid_t(std::stol(pid)), 0) == 0 || errno != ESRCH) continue;
    for (const auto& group : fs::directory_iterator(entry.path(), ec))
      if (group.is_directory()) rmdir(group.path().c_str());
    rmdir(entry.path().c_str());
  }
}

}  // namespace

CpuGroups::CpuGroups(int64_t period_us, const std::string& prefix, const std::string& who)
    : who_(who), period_us_(period_us) {
  std::string why;
  for (int version : {1, 2}) {
    Mount m;
    if (!find_mount(version, m)) {
      why += "cgroup v" + std::to_string(version) + (version == 1 ? " cpu controller" : "") + ": not mounted; ";
      continue;
    }
    const std::string base = own_directory(version, m);
    if (version == 2 && !has_word(read_file(base + "/cgroup.controllers"), "cpu")) {
      why += "cgroup v2: the cpu controller is not available in " + base + "; ";
      continue;
    }
    remove_stale(base, prefix);
    const std::string dir = base + "/" + prefix + std::to_string(getpid());
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      why += "cgroup v" + std::to_string(version) + ": cannot create " + dir + ": " + std::strerror(errno) + "; ";
      continue;
    }
    if (version == 2) {
      // The cpu controller must be enabled for the run's group and for the groups under it.
      std::string e = write_file(base + "/cgroup.subtree_control", "+cpu");
      if (e.empty()) e = write_file(dir + "/cgroup.subtree_control", "+cpu");
      if (!e.empty()) {
        rmdir(dir.c_str());
        why += "cgroup v2: cannot enable the cpu controller (" + e + "); ";
        continue;
      }
    }
    // The quotas cap each host at its share; the highest weight also lets the run's group
    // take those shares ahead of whatever else runs on the machine, so a busy machine delays
    // the other work rather than distorting the emulation. The caps keep the run from taking
    // more than the sum of its shares.
    const std::string weighted = version == 1 ? write_file(dir + "/cpu.shares", "262144")
                                              : write_file(dir + "/cpu.weight", "10000");
    if (!weighted.empty())
      std::cerr << who_ << ": warning: cannot raise the run's CPU weight (" << weighted
                << "): other work on this machine may take CPU from the quota'd processes\n";
    version_ = version, run_dir_ = dir;
    return;
  }
  throw CgroupsUnavailable("no writable cgroup cpu controller (" + why.substr(0, why.size() - 2) +
                           "); run as root on a machine whose cgroup v1 cpu hierarchy or v2 cpu controller is writable");
}

CpuGroups::~CpuGroups() { remove(); }

void CpuGroups::add(const std::string& name, double share) {
  const std::string dir = run_dir_ + "/" + name;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw CgroupsUnavailable("cannot create " + dir + ": " + std::strerror(errno));
  groups_.push_back(dir);
  // A whole CPU gets no quota: a host trains on one thread, so it cannot use more anyway, and
  // the CFS still throttled such a busy thread at quota = period (74 of 223 periods in one
  // measurement here, 10% of its compute time).
  const bool whole = share >= 1;
  const int64_t quota = std::llround(share * double(period_us_));
  std::string e;
  if (version_ == 1) {
    e = write_file(dir + "/cpu.cfs_period_us", std::to_string(period_us_));
    if (e.empty()) e = write_file(dir + "/cpu.cfs_quota_us", whole ? "-1" : std::to_string(quota));
  } else {
    e = write_file(dir + "/cpu.max", (whole ? "max" : std::to_string(quota)) + " " + std::to_string(period_us_));
  }
  if (!e.empty()) throw CgroupsUnavailable("cannot set the CPU quota: " + e);
}

void CpuGroups::move(const std::string& name, pid_t pid) {
  const std::string e = write_file(run_dir_ + "/" + name + "/cgroup.procs", std::to_string(pid));
  if (!e.empty()) throw std::runtime_error("cannot move process " + std::to_string(pid) + " into its cgroup: " + e);
}

std::map<std::string, double> CpuGroups::throttling(const std::string& name) const {
  std::map<std::string, double> out;
  std::stringstream in(read_file(run_dir_ + "/" + name + "/cpu.stat"));
  std::string key;
  for (double value; in >> key >> value;) {
    if (key == "nr_periods" || key == "nr_throttled") out[key] = value;
    if (key == "throttled_time") out["throttled_s"] = value / 1e9;   // v1: ns
    if (key == "throttled_usec") out["throttled_s"] = value / 1e6;   // v2
  }
  return out;
}

void CpuGroups::remove() {
  if (run_dir_.empty()) return;
  // A killed process leaves its group a moment after waitpid: retry briefly.
  auto remove_dir = [this](const std::string& dir) {
    for (int attempt = 0; attempt < 50; ++attempt) {
      if (rmdir(dir.c_str()) == 0 || errno == ENOENT) return true;
      if (errno != EBUSY) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::cerr << who_ << ": warning: could not remove cgroup " << dir << ": " << std::strerror(errno) << "\n";
    return false;
  };
  for (const auto& g : groups_) remove_dir(g);
  groups_.clear();
  remove_dir(run_dir_);
  run_dir_.clear();
}

}  // namespace fedgrid
