#include "bench/emulator/options.hpp"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace fedgrid::emulator {
namespace {

double number(const std::string& what, const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(what + ": '" + text + "' is not a number");
}

int64_t integer(const std::string& what, const std::string& text, int64_t min) {
  try {
    size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size() && v >= min) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(what + ": '" + text + "' is not an integer >= " + std::to_string(min));
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

// "share=0.25,samples=466,..." with the keys a host of this kind takes.
HostSpec host_spec(const std::string& option, const std::string& text, bool hospital, const std::string& default_name) {
  std::map<std::string, std::string> kv;
  for (const auto& item : split(text, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError(option + ": '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq);
    if (!kv.emplace(key, item.substr(eq + 1)).second) throw UsageError(option + ": key '" + key + "' given twice");
  }
  std::set<std::string> known{"name", "share", "uplink_bps", "downlink_bps", "latency_s"};
  if (hospital) known.insert("samples");
  for (const auto& [key, value] : kv)
    if (!known.count(key))
      throw UsageError(option + ": unknown key '" + key + "' (known: name, share" + (hospital ? ", samples" : "") +
                       ", uplink_bps, downlink_bps, latency_s)");
  auto need = [&](const std::string& key) -> const std::string& {
    auto it = kv.find(key);
    if (it == kv.end()) throw UsageError(option + ": missing key '" + key + "'");
    return it->second;
  };
  HostSpec h;
  h.name = kv.count("name") ? kv["name"] : default_name;
  if (h.name.empty() || h.name.find_first_of(",\"\n/ ") != std::string::npos)
    throw UsageError(option + ": name '" + h.name + "' must be non-empty, without commas, quotes, slashes or spaces");
  h.share = number(option + " share", need("share"));
  if (!(h.share > 0 && h.share <= 1))
    throw UsageError(option + " share: " + need("share") + " is not in (0, 1] (a share of one CPU; each process trains on one thread)");
  h.uplink_bps = number(option + " uplink_bps", need("uplink_bps"));
  h.downlink_bps = number(option + " downlink_bps", need("downlink_bps"));
  if (!(h.uplink_bps > 0)) throw UsageError(option + " uplink_bps: must be > 0");
  if (!(h.downlink_bps > 0)) throw UsageError(option + " downlink_bps: must be > 0");
  h.latency_s = number(option + " latency_s", need("latency_s"));
  if (h.latency_s < 0) throw UsageError(option + " latency_s: must be >= 0");
  if (hospital) h.samples = integer(option + " samples", need("samples"), 1);
  return h;
}

}  // namespace

std::string usage() {
  return R"(usage: fedgrid-emulate --schedule fedavg|fedseq|fedcross|fedasync --rounds R --arch ARCH
         [--width M] [--input CxHxW] [--classes K]
         --batch-size B --epochs E --lr LR [--seed S]
         --server "share=S,uplink_bps=U,downlink_bps=D,latency_s=L[,name=server]"   (all but fedcross)
         --hospital "name=N,share=S,samples=n,uplink_bps=U,downlink_bps=D,latency_s=L"  (repeated, in id order)
         [--backbone-bps 100e9] [--backbone-latency-s 0] [--cfs-period-us 10000] [--timeout-s 3600]
         --out DIR

Runs the federation for real on this machine: one process per hospital and one for the server,
each in a cgroup limited to its share of one CPU, training with LibTorch on one thread, sending
models as real bytes over loopback TCP paced to the emulated links. Writes DIR/events.csv,
DIR/rounds.csv and DIR/emulation.json. Exit codes: 0 done, 2 bad arguments, 77 no writable
cgroup cpu controller (nothing run), 1 a failure while running.
)";
}

Options parse_options(int argc, char** argv) {
  Options o;
  std::set<std::string> seen;
  std::string input = "1x28x28";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") throw HelpRequested{};
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'");
    if (i + 1 >= argc) throw UsageError(arg + ": missing value");
    const std::string value = argv[++i];
    const bool internal = arg == "--role" || arg == "--role-fds" || arg == "--ports";
    if (!internal) o.argv.insert(o.argv.end(), {arg, value});
    if (arg != "--hospital" && !seen.insert(arg).second) throw UsageError(arg + ": given twice");
    if (arg == "--schedule") {
      if (value != "fedavg" && value != "fedseq" && value != "fedcross" && value != "fedasync")
        throw UsageError("--schedule: '" + value + "' is not one of fedavg, fedseq, fedcross, fedasync");
      o.schedule = value;
    } else if (arg == "--rounds") {
      o.rounds = int(integer(arg, value, 1));
    } else if (arg == "--arch") {
      o.spec.arch = value;
    } else if (arg == "--width") {
      o.spec.width_multiplier = number(arg, value);
      if (!(o.spec.width_multiplier > 0)) throw UsageError("--width: must be > 0");
    } else if (arg == "--input") {
      input = value;
    } else if (arg == "--classes") {
      o.spec.num_classes = int(integer(arg, value, 2));
    } else if (arg == "--batch-size") {
      o.batch_size = int(integer(arg, value, 1));
    } else if (arg == "--epochs") {
      o.epochs = int(integer(arg, value, 1));
    } else if (arg == "--lr") {
      o.lr = number(arg, value);
      if (!(o.lr > 0)) throw UsageError("--lr: must be > 0");
    } else if (arg == "--seed") {
      o.seed = uint64_t(integer(arg, value, 0));
    } else if (arg == "--server") {
      o.server = host_spec(arg, value, false, "server"), o.has_server = true;
    } else if (arg == "--hospital") {
      o.hospitals.push_back(host_spec("--hospital #" + std::to_string(o.hospitals.size() + 1), value, true,
                                      "hospital-" + std::to_string(o.hospitals.size() + 1)));
    } else if (arg == "--backbone-bps") {
      o.backbone_bps = number(arg, value);
      if (!(o.backbone_bps > 0)) throw UsageError("--backbone-bps: must be > 0");
    } else if (arg == "--backbone-latency-s") {
      o.backbone_latency_s = number(arg, value);
      if (o.backbone_latency_s < 0) throw UsageError("--backbone-latency-s: must be >= 0");
    } else if (arg == "--cfs-period-us") {
      o.cfs_period_us = integer(arg, value, 1000);
      if (o.cfs_period_us > 1'000'000) throw UsageError("--cfs-period-us: at most 1000000 (the kernel's limit)");
    } else if (arg == "--timeout-s") {
      o.timeout_s = number(arg, value);
      if (!(o.timeout_s > 0)) throw UsageError("--timeout-s: must be > 0");
    } else if (arg == "--out") {
      o.out = value;
    } else if (arg == "--role") {
      o.role = value;
    } else if (arg == "--role-fds") {
      const auto fds = split(value, ',');
      if (fds.size() != 3) throw UsageError("--role-fds: expected LISTEN,CONTROL,LINKS");
      o.listen_fd = int(integer(arg, fds[0], -1)), o.control_fd = int(integer(arg, fds[1], 0));
      o.links_fd = int(integer(arg, fds[2], 0));
    } else if (arg == "--ports") {
      for (const auto& p : split(value, ',')) o.ports.push_back(int(integer(arg, p, 0)));
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (!o.role.empty() && (o.control_fd < 0 || o.links_fd < 0 || o.ports.empty()))
    throw UsageError("--role: internal, set by the launcher with --role-fds and --ports");
  for (const char* required : {"--schedule", "--rounds", "--arch", "--batch-size", "--epochs", "--lr", "--out"})
    if (!seen.count(required)) throw UsageError(std::string(required) + ": missing (required)");
  if (o.hospitals.empty()) throw UsageError("--hospital: missing (at least one is required)");
  if (o.hospitals.size() > 500) throw UsageError("--hospital: at most 500 hospitals");
  if (o.schedule != "fedcross" && !o.has_server) throw UsageError("--server: missing (required by " + o.schedule + ")");
  if (o.out.empty()) throw UsageError("--out: empty");

  const auto dims = split(input, 'x');
  if (dims.size() != 3) throw UsageError("--input: '" + input + "' is not CxHxW (e.g. 1x28x28)");
  o.spec.channels = int(integer("--input", dims[0], 1));
  o.spec.height = int(integer("--input", dims[1], 1));
  o.spec.width = int(integer("--input", dims[2], 1));
  try {
    models::model_cost(o.spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--arch/--input: " + std::string(e.what()));
  }

  std::set<std::string> names;
  if (o.has_server) names.insert(o.server.name);
  for (const auto& h : o.hospitals)
    if (!names.insert(h.name).second) throw UsageError("--hospital: name '" + h.name + "' used twice");
  // The kernel refuses a quota under 1 ms.
  auto check_quota = [&](const HostSpec& h) {
    if (h.share * double(o.cfs_period_us) < 1000)
      throw UsageError("share " + (std::ostringstream() << h.share).str() + " of '" + h.name + "' gives a CPU quota under the kernel's 1 ms " +
                       "minimum with --cfs-period-us " + std::to_string(o.cfs_period_us) + ": raise --cfs-period-us");
  };
  if (o.has_server) check_quota(o.server);
  for (const auto& h : o.hospitals) check_quota(h);
  return o;
}

}  // namespace fedgrid::emulator
