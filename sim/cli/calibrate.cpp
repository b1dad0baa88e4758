#include "sim/cli/calibrate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "sim/cli/calibrate_under_load.hpp"
#include "sim/cli/cpu_groups.hpp"
#include "sim/core/whole_number.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/calibration/compute_profile.hpp"
#include "sim/jobs/calibration/step_timer.hpp"
#include "sim/jobs/torch_module.hpp"

namespace fedgrid {
namespace {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

int64_t positive_int(const std::string& text, const std::string& what) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < 1)
    throw UsageError("calibrate", fmt::format("{}: expected a positive integer, got '{}'", what, text));
  return v;
}

// The CPU as /proc/cpuinfo names it, with its family and model numbers (a virtual machine's
// name may be only the vendor's brand); commas would split the header's CSV-like line.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string name = "unknown", family, model;
  auto value = [](const std::string& line) {
    std::string v = line.substr(line.find(':') + 1);
    v.erase(0, v.find_first_not_of(' '));
    return v;
  };
  // The first processor's block (up to the first blank line) describes them all.
  for (std::string line; std::getline(in, line) && !line.empty();) {
    if (line.rfind("model name", 0) == 0) name = value(line);
    else if (line.rfind("cpu family", 0) == 0) family = value(line);
    else if (line.rfind("model\t", 0) == 0) model = value(line);
  }
  for (char& c : name)
    if (c == ',') c = ' ';
  return family.empty() ? name : name + " (family " + family + " model " + model + ")";
}

// --cpu-share's list: shares of one CPU in (0, 1], each once.
std::vector<double> parse_shares(const std::string& list) {
  std::vector<double> out;
  for (const auto& item : split(list)) {
    const double v = whole_number(item).value_or(0);
    if (!(v > 0 && v <= 1))
      throw UsageError("calibrate", fmt::format("--cpu-share: expected shares of one CPU in (0, 1], got '{}'", item));
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw UsageError("calibrate", fmt::format("--cpu-share: share {} is listed twice", item));
    out.push_back(v);
  }
  if (out.empty()) throw UsageError("calibrate", "--cpu-share names no share");
  return out;
}

LoadConditions parse_load(const Args& a) {
  LoadConditions load;
  load.copies = a.copies;
  if (a.cpu_shares) load.shares = parse_shares(*a.cpu_shares);
  if (a.cpu_period_us < 1000 || a.cpu_period_us > 1000000)
    throw UsageError("calibrate", fmt::format("--cpu-period-us: the CFS period must be 1000..1000000, got {}",
                                              a.cpu_period_us));
  load.period_us = a.cpu_period_us;
  if (a.seconds) {
    load.seconds = whole_number(*a.seconds).value_or(0);
    if (!(load.seconds > 0 && load.seconds <= 3600))
      throw UsageError("calibrate", fmt::format("--seconds: expected seconds in (0, 3600], got '{}'", *a.seconds));
  }
  return load;
}

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 && buf[0] ? std::string(buf) : "this-machine";
}

}  // namespace

models::ModelSpec parse_model_item(const std::string& item) {
  models::ModelSpec spec;
  auto bad = [&](const std::string& why) {
    return UsageError("calibrate", fmt::format("--models item '{}': {} (ARCH[@WIDTH][:CxHxW[:CLASSES]], e.g. "
                                               "resnet18@0.5:3x32x32:10)",
                                               item, why));
  };
  std::vector<std::string> parts;
  std::stringstream in(item);
  for (std::string p; std::getline(in, p, ':');) parts.push_back(p);
  if (parts.empty() || parts.size() > 3) throw bad("expected at most three ':'-separated parts");
  const std::string& head = parts[0];
  const size_t at = head.find('@');
  spec.arch = head.substr(0, at);
  if (at != std::string::npos) {
    spec.width_multiplier = whole_number(head.substr(at + 1)).value_or(0);
    if (!(spec.width_multiplier > 0 && spec.width_multiplier <= 4))
      throw bad("the width must be a number in (0, 4]");
  }
  if (parts.size() > 1 && !parse_input_shape(parts[1], spec)) throw bad("the input must be CxHxW");
  if (parts.size() > 2) spec.num_classes = int(positive_int(parts[2], "--models item '" + item + "' classes"));
  try {
    models::model_cost(spec);
  } catch (const std::invalid_argument& e) {
    throw bad(e.what());
  }
  return spec;
}

int calibrate(const Args& a) {
  load_torch();  // before any fork: every copy finds LibTorch loaded, none initialised
  std::vector<models::ModelSpec> specs;
  for (const auto& item : split(a.models.value_or("cnn,lenet5,mlp"))) specs.push_back(parse_model_item(item));
  std::vector<int64_t> batches;
  for (const auto& item : split(a.batch_sizes.value_or("32"))) batches.push_back(positive_int(item, "--batch-sizes"));
  if (specs.empty()) throw UsageError("calibrate", "--models names no model");
  if (batches.empty()) throw UsageError("calibrate", "--batch-sizes names no batch size");
  const std::string device = a.device_name.value_or(host_name());
  if (device.empty() || device.find_first_of(",\"\n") != std::string::npos)
    throw UsageError("calibrate", "--device-name must be non-empty, without commas or quotes");

  // The optimiser of a scenario left at its defaults (training.*): SGD, momentum 0.9.
  const OptimizerConfig optimizer;
  const LoadConditions load = parse_load(a);
  const bool under_load = load.copies > 1 || !load.shares.empty();
  std::vector<Measurement> what;
  for (const auto& spec : specs)
    for (int64_t batch : batches) what.push_back({spec, batch});
  std::vector<std::vector<StepTiming>> timings;  // [share][measurement]
  if (under_load) {
    try {
      timings = time_under_load(what, a.threads, optimizer, load);
    } catch (const CgroupsUnavailable& e) {
      throw UsageError("calibrate", std::string("--cpu-share needs a writable cgroup cpu controller: ") + e.what());
    }
  } else {
    // Forked copies must not inherit an initialised torch, so the device is resolved here only.
    const ComputeDevice compute = resolve_device(DeviceChoice::Auto);
    timings.emplace_back();
    for (const auto& m : what) timings[0].push_back(time_steps(m.spec, m.batch, a.threads, optimizer, compute));
  }
  std::vector<ProfileRow> rows;
  for (size_t slot = 0; slot < timings.size(); ++slot)
    for (size_t m = 0; m < what.size(); ++m) {
      const StepTiming& t = timings[slot][m];
      const auto& [spec, batch] = what[m];
      ProfileRow r;
      r.device = load.shares.empty() ? device : fmt::format("{}@{:g}", device, load.shares[slot]);
      r.spec = spec, r.batch_size = batch, r.threads = a.threads;
      r.train_step_s = t.train_step_s, r.train_step_min_s = t.train_step_min_s;
      r.eval_sample_s = t.eval_sample_s, r.eval_sample_min_s = t.eval_sample_min_s;
      r.repeats = t.repeats, r.spread = t.spread;
      fmt::print(stderr, "{}: {} x{} on {}, batch {}: {:.6f} s/step (min {:.6f}, {} blocks, spread {:.1f}%), {:.3g} s/eval sample\n",
                 r.device, spec.arch, spec.width_multiplier, input_shape(spec), batch, t.train_step_s,
                 t.train_step_min_s, t.repeats, 100 * t.spread, t.eval_sample_s);
      rows.push_back(r);
    }
  const bool cuda = resolve_device(DeviceChoice::Auto) == ComputeDevice::Cuda;  // after the copies: they have ended
  const ProfileMachine machine{cpu_model(), torch_version(), cuda ? "cuda" : "cpu",
                               int(std::max(1u, std::thread::hardware_concurrency())), describe(load)};
  const std::string csv = profile_csv(machine, rows);
  if (!a.out) {
    fmt::print("{}", csv);
    return 0;
  }
  std::ofstream out(*a.out);
  if (!(out << csv)) throw UsageError("calibrate", "cannot write --out file '" + *a.out + "'");
  fmt::print("{}: {} rows (device '{}'{})\n", *a.out, rows.size(), device, load.shares.empty() ? "" : "@SHARE");
  return 0;
}

}  // namespace fedgrid
