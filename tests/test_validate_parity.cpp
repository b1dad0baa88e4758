// `fedgrid validate` must refuse what `fedgrid run` refuses (issue "bring your own platform"):
// validate sets the run up as run does (tier catalog, XML platform through SimGrid or the star,
// roster, data files, compute profile, surrogate, fault traces, models' shapes, the Federation)
// and stops before the first simulated event. For every input error run can raise at set-up,
// both commands must exit 2 with the same "fedgrid: error:" line, naming the file and the key.
// That includes what the algorithm requires once the models' shapes are known
// (algorithms::AlgorithmInfo::check), which run() then trusts.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "algorithms/registry.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

// The "fedgrid: error:" lines of a command's output, in order.
std::string error_lines(const std::string& output) {
  std::string out;
  for (const auto& l : test::lines(output))
    if (l.rfind("fedgrid: error:", 0) == 0) out += l + "\n";
  return out;
}

// Every "$D" of `text` replaced by the case's folder.
std::string with_dir(std::string text, const std::string& dir) {
  for (size_t at = text.find("$D"); at != std::string::npos; at = text.find("$D", at + dir.size()))
    text.replace(at, 2, dir);
  return text;
}

const char* kStarPlatform = "platform:\n  hospitals: [{count: 2, tier: weak}, {count: 1, tier: strong}]\n";
const char* kTimingData = "data: {dataset: synthetic, samples_per_hospital: 50, synthetic: {train_samples: 100, "
                          "test_samples: 20, height: 12, width: 12}}\n";
const char* kTimingOnly = "training: {mode: timing-only}\n";

// A timing-only FedAvg of one round: `platform` and `data` blocks, then `extra` (training,
// timing, faults, model, algorithm).
std::string scenario(const std::string& platform = kStarPlatform, const std::string& extra = kTimingOnly,
                     const std::string& data = kTimingData, const std::string& model = "model: {arch: mlp}\n") {
  return "name: parity\nseed: 1\n" + platform + data + model + extra +
         "timing: {network: cm02}\nstop: {rounds: 1}\noutput: {trace: false}\n";
}

// The same with timing.compute: profile (a profile at $D/profile.csv).
std::string profiled(const std::string& platform) {
  return "name: parity\nseed: 1\n" + platform + kTimingData +
         "model: {arch: mlp}\ntraining: {mode: timing-only, batch_size: 32}\n"
         "timing: {network: cm02, compute: profile, profile: $D/profile.csv}\nstop: {rounds: 1}\n"
         "output: {trace: false}\n";
}

// The same scenario with a half-width mlp, which the profile below has no row of.
std::string half_width(std::string yaml) {
  return yaml.replace(yaml.find("arch: mlp"), 9, "arch: mlp, width_multiplier: 0.5");
}

const std::string kProfile =
    "device,arch,width_multiplier,input,classes,batch_size,threads,train_step_s,train_step_min_s,eval_sample_s,"
    "eval_sample_min_s,repeats,spread\n"
    "lab,mlp,1,1x12x12,10,32,1,0.010,0.0095,0.00005,0.00004,5,0.01\n";

// An explicit-route platform: a server and two clinics, each on a link of its own.
std::string xml(const std::string& hosts, const std::string& routes) {
  return "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n" +
         hosts +
         "<link id=\"a\" bandwidth=\"1MBps\" latency=\"10ms\"/>\n<link id=\"b\" bandwidth=\"2MBps\" latency=\"10ms\"/>\n" +
         routes + "</zone>\n</platform>\n";
}
const std::string kServer = "<host id=\"server\" speed=\"4Gf\"><prop id=\"tier\" value=\"cloud\"/></host>\n";
const std::string kClinics = "<host id=\"clinic-a\" speed=\"1Gf\"><prop id=\"tier\" value=\"weak\"/></host>\n"
                             "<host id=\"clinic-b\" speed=\"1Gf\"><prop id=\"tier\" value=\"weak\"/></host>\n";
const std::string kRoutes = "<route src=\"clinic-a\" dst=\"server\"><link_ctn id=\"a\"/></route>\n"
                            "<route src=\"clinic-b\" dst=\"server\"><link_ctn id=\"b\"/></route>\n";
const std::string kXml = xml(kServer + kClinics, kRoutes);
const char* kXmlPlatform = "platform: {xml: $D/p.xml}\n";

const char* kOwnTiers = "platform:\n  tiers: $D/tiers.yaml\n  hospitals: [{count: 2, tier: hosp}]\n";

// Timing-only data of 16x16 and 28x28 (the cnn's smallest input, the carpefl net's), and
// real-training data of 28x28.
const char* kTimingData16 = "data: {dataset: synthetic, samples_per_hospital: 50, synthetic: {train_samples: 100, "
                            "test_samples: 20, height: 16, width: 16}}\n";
const char* kTimingData28 = "data: {dataset: synthetic, samples_per_hospital: 50, synthetic: {train_samples: 100, "
                            "test_samples: 20, height: 28, width: 28}}\n";
const char* kTrainingData28 =
    "data: {dataset: synthetic, synthetic: {train_samples: 100, test_samples: 20, height: 28, width: 28}}\n";
// A catalog of a server tier and one hospital tier that no algorithm knows by name.
const std::string kTier = "{speed_flops: 1e9, cores: 1, memory_gb: 1, uplink_bps: 1e6, downlink_bps: 1e6, "
                          "latency_s: 0.01, power_idle_w: 1, power_max_w: 2}";
const std::string kHospTiers = "tiers:\n  cloud: " + kTier + "\n  hosp: " + kTier + "\n";
const char* kHospPlatform =
    "platform:\n  tiers: $D/tiers.yaml\n  server: {tier: cloud}\n  hospitals: [{count: 2, tier: hosp}]\n";

// `extra` after the timing-only mode.
std::string timing_only(const std::string& extra) { return kTimingOnly + extra; }

struct Case {
  std::string name;
  std::map<std::string, std::string> files;  // name in the case's folder -> text
  std::string yaml;                          // "$D" stands for the case's folder
  std::string expected;                      // in the error line ("$D" likewise)
};

std::vector<Case> cases() {
  const std::string roster_head = "name,tier,speed_flops\n";
  const std::string surrogate = "training: {mode: timing-only, surrogate: $D/curve.csv}\n";
  return {
      // ---- scenario keys (load_scenario refuses them before either command loads anything)
      {"unknown-key", {}, scenario() + "timing_extra: 1\n", "key 'timing_extra': unknown key"},
      {"key-below-minimum", {}, scenario() + "faults: {crash_rate_per_hour: -1}\n",
       "key 'faults.crash_rate_per_hour'"},
      // Another algorithm's key would be ignored: refused, naming who declares it.
      {"another-algorithms-key", {}, scenario(kStarPlatform, timing_only("algorithm: {name: fedavg, alpha: 0.5}\n")),
       "key 'algorithm.alpha': not a key of algorithm 'fedavg': only fedasync and unifed declare it"},
      {"another-algorithms-key-near-its-own", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: fedasync, alpha_k: 0.5}\n")),
       "key 'algorithm.alpha_k': not a key of algorithm 'fedasync': only fedamp declares it (did you mean "
       "'algorithm.alpha'?)"},
      // An asynchronous schedule has no round for a per-round fault (the registry's `asynchronous`).
      {"asynchronous-offline-probability", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: fedbuff}\nfaults: {offline_probability: 0.1}\n")),
       "key 'faults.offline_probability': an asynchronous schedule has no synchronous round for it to act on"},

      // ---- the tier catalog
      {"tiers-missing", {}, scenario("platform:\n  tiers: $D/nosuch.yaml\n  hospitals: [{count: 2, tier: weak}]\n"),
       "$D/nosuch.yaml: key 'platform.tiers': tier catalog not found"},
      {"tiers-malformed", {{"tiers.yaml", "tiers:\n  hosp: {speed_flops: [1\n"}}, scenario(kOwnTiers),
       "$D/tiers.yaml:3: malformed YAML"},
      {"tiers-missing-figure", {{"tiers.yaml", "tiers:\n  hosp: {speed_flops: 1e9}\n"}}, scenario(kOwnTiers),
       "$D/tiers.yaml:2: key 'tiers.hosp.cores': missing"},
      {"tiers-not-a-number",
       {{"tiers.yaml", "tiers:\n  hosp: {speed_flops: fast, cores: 1, memory_gb: 1, uplink_bps: 1, downlink_bps: 1, "
                       "latency_s: 0, power_idle_w: 1, power_max_w: 1}\n"}},
       scenario(kOwnTiers), "$D/tiers.yaml:2: key 'tiers.hosp.speed_flops': expected a number"},
      {"group-unknown-tier", {}, scenario("platform:\n  hospitals: [{count: 1, tier: weak}, {count: 1, tier: huge}]\n"),
       "key 'platform.hospitals[1].tier': unknown tier 'huge'"},
      {"server-unknown-tier", {},
       scenario("platform:\n  server: {tier: huge}\n  hospitals: [{count: 2, tier: weak}]\n"),
       "key 'platform.server.tier': unknown tier 'huge'"},

      // ---- the roster
      {"roster-missing", {}, scenario("platform: {roster: $D/nosuch.csv}\n"),
       "$D/nosuch.csv: key 'platform.roster': roster file not found"},
      {"roster-no-tier-column", {{"r.csv", "name,speed_flops\na,1e9\n"}}, scenario("platform: {roster: $D/r.csv}\n"),
       "$D/r.csv:1: key 'tier': required column is missing"},
      {"roster-bad-number", {{"r.csv", roster_head + "a,weak,1e9\nb,weak,fast\n"}},
       scenario("platform: {roster: $D/r.csv}\n"), "$D/r.csv:3: key 'speed_flops': expected a number, got 'fast'"},
      {"roster-duplicate-name", {{"r.csv", roster_head + "a,weak,\na,strong,\n"}},
       scenario("platform: {roster: $D/r.csv}\n"), "$D/r.csv:3: key 'name': duplicate hospital name 'a'"},
      {"roster-unknown-tier", {{"r.csv", roster_head + "a,weak,\nb,huge,\n"}},
       scenario("platform: {roster: $D/r.csv}\n"), "$D/r.csv:3: key 'tier': unknown tier 'huge'"},
      {"roster-empty", {{"r.csv", roster_head}}, scenario("platform: {roster: $D/r.csv}\n"),
       "$D/r.csv: key 'platform.roster': roster has no hospitals"},

      // ---- the XML platform
      {"xml-missing", {}, scenario("platform: {xml: $D/nosuch.xml}\n"),
       "$D/nosuch.xml: key 'platform.xml': platform file not found"},
      {"xml-not-well-formed", {{"p.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\">\n"}},
       scenario(kXmlPlatform), "$D/p.xml:3: key 'platform.xml': not well-formed XML"},
      {"xml-unknown-link", {{"p.xml", xml(kServer + kClinics, kRoutes + "<route src=\"clinic-a\" dst=\"clinic-b\">"
                                                                         "<link_ctn id=\"nosuch\"/></route>\n")}},
       scenario(kXmlPlatform), "key 'id': <link_ctn id='nosuch'>: no link named 'nosuch'"},
      {"xml-simgrid-refuses", {{"p.xml", xml(kServer + kClinics + "<host id=\"odd\" speed=\"1Gx\"/>\n", kRoutes)}},
       scenario(kXmlPlatform), "$D/p.xml: key 'platform.xml': SimGrid cannot load it"},
      {"xml-server-host-missing", {{"p.xml", kXml}},
       scenario("platform: {xml: $D/p.xml, server: {host: hub}}\n"),
       "$D/p.xml: key 'platform.server.host': no host named 'hub' in the XML"},
      {"xml-hospitals-match-nothing", {{"p.xml", kXml}},
       scenario("platform: {xml: $D/p.xml, xml_hospitals: \"ward-*\"}\n"),
       "$D/p.xml: key 'platform.xml_hospitals': no host but the server matches 'ward-*'"},
      {"xml-host-without-tier",
       {{"p.xml", xml(kServer + kClinics + "<host id=\"clinic-c\" speed=\"1Gf\"/>\n",
                      kRoutes + "<route src=\"clinic-c\" dst=\"server\"><link_ctn id=\"a\"/></route>\n")}},
       scenario(kXmlPlatform),
       "$D/p.xml: key 'platform.xml_tiers': host 'clinic-c' has no 'tier' property and no platform.xml_tiers entry"},
      {"xml-tiers-unknown-tier",
       {{"p.xml", xml(kServer + "<host id=\"clinic-a\" speed=\"1Gf\"/>\n<host id=\"clinic-b\" speed=\"1Gf\"/>\n",
                      kRoutes)}},
       scenario("platform: {xml: $D/p.xml, xml_tiers: [{hosts: \"clinic-*\", tier: huge}]}\n"),
       "$D/p.xml: key 'tier': host 'clinic-a': unknown tier 'huge'"},
      {"xml-no-route", {{"p.xml", xml(kServer + kClinics, "<route src=\"clinic-a\" dst=\"server\"><link_ctn id=\"a\"/></route>\n")}},
       scenario(kXmlPlatform), "$D/p.xml: key 'platform.xml': no route from 'clinic-b' to 'server'"},
      {"xml-bad-speed-factor",
       {{"p.xml", xml(kServer + "<host id=\"clinic-a\" speed=\"1Gf\"><prop id=\"tier\" value=\"weak\"/>"
                                "<prop id=\"speed_factor\" value=\"fast\"/></host>\n"
                                "<host id=\"clinic-b\" speed=\"1Gf\"><prop id=\"tier\" value=\"weak\"/></host>\n",
                      kRoutes)}},
       scenario(kXmlPlatform), "$D/p.xml: key 'speed_factor': host 'clinic-a': expected a positive number, got 'fast'"},
      {"xml-no-hospitals", {{"p.xml", xml(kServer, "")}}, scenario(kXmlPlatform),
       "$D/p.xml: key 'platform.xml': the platform has no hospital hosts"},

      // ---- data files, partition, tasks
      {"idx-dir-missing", {}, scenario(kStarPlatform, kTimingOnly, "data: {dataset: \"idx:$D/nosuch\"}\n"),
       "key 'data.dataset': $D/nosuch/train-images-idx3-ubyte.gz: file is missing"},
      {"idx-bad-magic",
       {{"idx/train-images-idx3-ubyte", "not an idx file"}, {"idx/train-labels-idx1-ubyte", "x"},
        {"idx/t10k-images-idx3-ubyte", "x"}, {"idx/t10k-labels-idx1-ubyte", "x"}},
       scenario(kStarPlatform, kTimingOnly, "data: {dataset: \"idx:$D/idx\"}\n"),
       "key 'data.dataset': $D/idx/train-images-idx3-ubyte: bad magic number"},
      {"npz-missing", {}, scenario(kStarPlatform, kTimingOnly, "data: {dataset: \"npz:$D/nosuch.npz\"}\n"),
       "key 'data.dataset': $D/nosuch.npz: file not found"},
      {"npz-not-a-zip", {{"d.npz", "not a zip archive"}},
       scenario(kStarPlatform, kTimingOnly, "data: {dataset: \"npz:$D/d.npz\"}\n"),
       "key 'data.dataset': $D/d.npz: not a readable .npz (zip) archive"},
      {"partition-too-few-samples", {},
       scenario(kStarPlatform, kTimingOnly,
                "data: {dataset: synthetic, synthetic: {train_samples: 2, test_samples: 2, height: 12, width: 12}}\n"),
       "key 'data.partition': hospitals: 3 hospitals but the pool holds only 2 samples"},
      {"tasks-hospital-count", {},
       scenario(kStarPlatform, kTimingOnly,
                "data:\n  synthetic: {train_samples: 100, test_samples: 20, height: 12, width: 12}\n"
                "  tasks: [{dataset: synthetic, hospitals: 2}]\n"),
       "key 'data.tasks': the tasks are given to 2 hospitals, the platform has 3"},
      {"tasks-unknown-class", {},
       scenario(kStarPlatform, kTimingOnly,
                "data:\n  synthetic: {train_samples: 100, test_samples: 20, height: 12, width: 12}\n"
                "  tasks: [{dataset: synthetic, hospitals: 3, classes: [11]}]\n"),
       "key 'data.tasks[0].classes': task 0: class 11 is not in"},

      // ---- the surrogate accuracy curve
      {"surrogate-missing", {}, scenario(kStarPlatform, surrogate),
       "$D/curve.csv: key 'training.surrogate': surrogate curve not found"},
      {"surrogate-no-accuracy-column", {{"curve.csv", "round,loss\n1,0.5\n"}}, scenario(kStarPlatform, surrogate),
       "$D/curve.csv:1: key 'accuracy': required column is missing"},
      {"surrogate-accuracy-out-of-range", {{"curve.csv", "round,accuracy\n1,0.5\n2,1.5\n"}},
       scenario(kStarPlatform, surrogate), "$D/curve.csv:3: key 'accuracy': must be within 0..1, got 1.5"},

      // ---- the compute profile
      {"profile-missing", {}, profiled("platform:\n  hospitals: [{count: 2, tier: weak, profile_device: lab}]\n"),
       "$D/profile.csv: key 'timing.profile': compute profile not found"},
      {"profile-no-rows", {{"profile.csv", kProfile.substr(0, kProfile.find('\n') + 1)}},
       profiled("platform:\n  hospitals: [{count: 2, tier: weak, profile_device: lab}]\n"),
       "$D/profile.csv: key 'timing.profile': the compute profile has no rows"},
      {"profile-bad-row", {{"profile.csv", kProfile + "lab,mlp,1,12x12,10,4,1,0.01,0.01,0.001,0.001,5,0\n"}},
       profiled("platform:\n  hospitals: [{count: 2, tier: weak, profile_device: lab}]\n"),
       "$D/profile.csv:3: key 'input': expected CxHxW"},
      {"profile-no-device", {{"profile.csv", kProfile}},
       profiled("platform:\n  hospitals: [{count: 1, tier: weak, profile_device: lab}, {count: 1, tier: medium}]\n"),
       "key 'timing.compute': 'medium-1' (tier medium) names no profile device"},
      {"profile-device-missing", {{"profile.csv", kProfile}},
       profiled("platform:\n  hospitals: [{count: 2, tier: weak, profile_device: gpu}]\n"),
       "key 'timing.profile': 'weak-1' runs on profile device 'gpu'"},
      {"profile-no-row-for-model", {{"profile.csv", kProfile}},
       half_width(profiled("platform:\n  hospitals: [{count: 2, tier: weak, profile_device: lab}]\n")),
       "key 'timing.profile': no row of mlp width 0.5"},

      // ---- fault traces (star, then XML: there the Federation reads them)
      {"crash-trace-missing", {}, scenario(kStarPlatform, kTimingOnly + std::string("faults: {crash_trace: $D/c.csv}\n")),
       "$D/c.csv: key 'faults.crash_trace': trace file not found"},
      {"crash-trace-bad-row", {{"c.csv", "hospital,crash_at_s\nweak-1,1\nweak-2,soon\n"}},
       scenario(kStarPlatform, kTimingOnly + std::string("faults: {crash_trace: $D/c.csv}\n")),
       "$D/c.csv:3: key 'crash_at_s': expected a number, got 'soon'"},
      {"availability-trace-bad-interval", {{"a.csv", "hospital,online_from_s,online_until_s\nweak-*,3,2\n"}},
       scenario(kStarPlatform, kTimingOnly + std::string("faults: {availability_trace: $D/a.csv}\n")),
       "$D/a.csv:2: key 'online_until_s': must be after online_from_s"},
      {"over-selection-of-everyone", {},
       scenario(kStarPlatform, kTimingOnly + std::string("faults: {over_selection: 0.5}\n")),
       "key 'faults.over_selection': the round already selects every hospital"},
      {"link-trace-unknown-hospital", {{"l.csv", "hospital,time_s,bandwidth_factor\nnobody,1,0.5\n"}},
       scenario(kStarPlatform, kTimingOnly + std::string("faults: {link_trace: $D/l.csv}\n")),
       "$D/l.csv:2: key 'hospital': no hospital is named 'nobody'"},
      {"xml-crash-trace-unknown-hospital", {{"p.xml", kXml}, {"c.csv", "hospital,crash_at_s\nnobody,1\n"}},
       scenario(kXmlPlatform, kTimingOnly + std::string("faults: {crash_trace: $D/c.csv}\n")),
       "$D/c.csv:2: key 'hospital': no hospital is named 'nobody'"},
      {"xml-link-trace-without-access-link", {{"p.xml", kXml}, {"l.csv", "hospital,time_s,bandwidth_factor\nclinic-a,1,0.5\n"}},
       scenario(kXmlPlatform, kTimingOnly + std::string("faults: {link_trace: $D/l.csv}\n")),
       "key 'faults.link_trace': hospital clinic-a has no access link named clinic-a_up"},

      // ---- models' shapes, the algorithm, the device
      {"model-too-large", {}, scenario(kStarPlatform, kTimingOnly, kTimingData, "model: {arch: vgg11}\n"),
       "key 'model.arch': input 1x12x12 is too small for model arch 'vgg11'"},
      {"tier-model-too-large", {},
       scenario(kStarPlatform, kTimingOnly, kTimingData, "model: {arch: mlp, weak: vgg11}\n") +
           "algorithm: {name: heterofl}\n",
       "key 'model.weak': input 1x12x12 is too small for model arch 'vgg11'"},
      {"group-model-too-large", {},
       scenario("platform:\n  hospitals: [{count: 2, tier: weak, model: vgg11}]\n", kTimingOnly) +
           "algorithm: {name: local}\n",
       "key 'platform.hospitals[0].model': input 1x12x12 is too small for model arch 'vgg11'"},
      {"tier-model-with-fedavg", {}, scenario(kStarPlatform, kTimingOnly, kTimingData, "model: {arch: mlp, weak: cnn}\n"),
       "key 'model.weak': algorithm 'fedavg' trains one model for every hospital"},

      // ---- algorithms' own requirements (AlgorithmInfo::check, once the models' shapes are known)
      {"carpefl-other-model", {}, scenario(kStarPlatform, "algorithm: {name: carpefl}\n", kTrainingData28),
       "key 'model.arch': algorithm 'carpefl' trains its own network: set model.arch: carpefl (got 'mlp')"},
      {"carpefl-timing-only", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: fedcsl_inspired}\n"), kTimingData28,
                "model: {arch: carpefl}\n"),
       "key 'training.mode': algorithm 'fedcsl_inspired' fits graphs to real latent statistics: it needs real training"},
      {"carpefl-more-clusters-than-hospitals", {},
       scenario(kStarPlatform, "algorithm: {name: carpefl, clusters: 4}\n", kTrainingData28, "model: {arch: carpefl}\n"),
       "key 'algorithm.clusters': more clusters than hospitals"},
      // fedasync's own alpha excludes 0 (unifed's, the same name, allows it).
      {"fedasync-alpha-0", {}, scenario(kStarPlatform, timing_only("algorithm: {name: fedasync, alpha: 0}\n")),
       "key 'algorithm.alpha': must be > 0, got 0"},
      {"fedskd-stage-counts-differ", {},
       scenario("platform:\n  hospitals: [{count: 2, tier: weak}, {count: 1, tier: strong, model: resnet10}]\n",
                timing_only("algorithm: {name: fedskd}\n"), kTimingData16, "model: {arch: cnn}\n"),
       "key 'model': fedskd distils stage by stage, so every hospital's model needs as many stages: weak-1's has 2, "
       "strong-1's resnet10 has 4"},
      {"fedskd-no-such-stage", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: fedskd, skd_layers: [1, 3]}\n"), kTimingData16,
                "model: {arch: cnn}\n"),
       "key 'algorithm.skd_layers': stage 3 does not exist: the models have 2 stages (1..2)"},
      {"fedskd-no-similarity-level", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: fedskd, skd_batch: false, skd_pixel: false}\n"),
                kTimingData16, "model: {arch: cnn}\n"),
       "key 'algorithm.skd_batch': fedskd needs a similarity level"},
      {"fedskd-persistent-adam-without-adam", {},
       scenario(kStarPlatform, "training: {mode: timing-only, optimizer: sgd}\nalgorithm: {name: fedskd, persistent_adam: true}\n",
                kTimingData16, "model: {arch: cnn}\n"),
       "key 'algorithm.persistent_adam': keeps Adam's state, so it needs training.optimizer: adam, got 'sgd'"},
      {"fedskd-pipelined-under-faults", {},
       scenario(kStarPlatform,
                timing_only("algorithm: {name: fedskd, schedule: pipelined}\nfaults: {offline_probability: 0.2}\n"),
                kTimingData16, "model: {arch: cnn}\n"),
       "key 'algorithm.schedule': the pipelined schedule cannot run under faults.*"},
      {"feddf-no-server-share", {}, scenario(kStarPlatform, timing_only("algorithm: {name: feddf}\n")),
       "key 'data.server_share': feddf distils at the server"},
      // unifed needs real training (its visits stop on a validation loss).
      {"unifed-no-server-share", {}, scenario(kStarPlatform, "algorithm: {name: unifed}\n", kTrainingData28),
       "key 'data.server_share': algorithm 'unifed' trains at the server"},
      {"unifed-server-only-no-server-share", {},
       scenario(kStarPlatform, "algorithm: {name: unifed_server_only}\n", kTrainingData28),
       "key 'data.server_share': algorithm 'unifed' trains at the server"},
      {"unifed-authors-code-without-sgd", {},
       scenario(kStarPlatform, "training: {optimizer: adam}\nalgorithm: {name: unifed, variant: authors_code}\n",
                kTrainingData28),
       "key 'training.optimizer': unifed's variant authors_code keeps SGD's momentum buffers"},
      {"dynamicfl-tier-without-budget", {{"tiers.yaml", kHospTiers}},
       scenario(kHospPlatform, timing_only("algorithm: {name: dynamicfl}\n")),
       "key 'algorithm.expansions': no budget for tier 'hosp' (dynamicfl knows weak, medium, strong)"},
      {"dynamicfl-budget-beyond-the-model", {}, scenario(kStarPlatform, timing_only("algorithm: {name: dynamicfl}\n")),
       "key 'algorithm.expansions.strong': 2 grown convs asked, but model 'mlp' has 0 KxK convs"},
      {"dynamicfl-budget-change-beyond-the-model", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: dynamicfl, expansions: {strong: 0}, budget_changes: "
                                           "[{round: 2, tier: weak, expansions: 1}]}\n")),
       "key 'algorithm.budget_changes[0].expansions': more grown convs than model 'mlp' has (0)"},
      {"inclusivefl-not-vgg", {}, scenario(kStarPlatform, timing_only("algorithm: {name: inclusivefl}\n")),
       "key 'model.weak': inclusivefl: model arch 'mlp' is not VGG-style"},
      {"inclusivefl-not-one-family", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: inclusivefl}\n"), kTimingData28,
                "model: {arch: vgg5, weak: vgg8}\n"),
       "key 'model': inclusivefl: "},
      {"heterofl-tier-model-wider", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: heterofl}\n"), kTimingData,
                "model: {arch: mlp, width_multiplier: 0.5, strong: {width_multiplier: 1}}\n"),
       "key 'model.strong': 'mlp' is not a sub-model of 'mlp x0.5': it is wider"},
      {"fedrolex-tier-model-of-another-arch", {},
       scenario(kStarPlatform, timing_only("algorithm: {name: fedrolex}\n"), kTimingData, "model: {arch: mlp, weak: mlp4}\n"),
       "key 'model.weak': 'mlp4' is not a sub-model of 'mlp': a sub-model needs the same architecture"},

      {"cuda-without-cuda", {},
       scenario(kStarPlatform, "training: {device: cuda}\n",
                "data: {dataset: synthetic, synthetic: {train_samples: 100, test_samples: 20, height: 12, width: 12}}\n"),
       "key 'training.device': no CUDA device visible"},
  };
}

TEST(ValidateParity, ValidateRefusesWhatRunRefusesAtSetUp) {
  const auto all = cases();
  // Each case's folder and files first (test::temp_dir is not thread-safe), then both commands
  // of every case on a few threads: each command starts LibTorch, about half a second.
  std::vector<std::string> dirs;
  for (const auto& c : all) {
    const std::string dir = test::temp_dir("parity-" + c.name);
    for (const auto& [name, text] : c.files) {
      const auto slash = name.rfind('/');
      if (slash != std::string::npos) std::filesystem::create_directories(dir + "/" + name.substr(0, slash));
      test::write_file(dir + "/" + name, with_dir(text, dir));
    }
    test::write_file(dir + "/s.yaml", with_dir(c.yaml, dir));
    dirs.push_back(dir);
  }
  // Validate: one command for every case (each file in a child of its own, so LibTorch starts
  // once), its output cut at each file's closing `FILE: ok` / `FILE: refused (exit N)` line.
  // Run: one command per case, on a few threads (each starts LibTorch, about half a second).
  std::string files;
  for (const auto& dir : dirs) files += " " + dir + "/s.yaml";
  std::vector<test::CommandResult> ran(all.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < all.size();) ran[i] = test::run_fedgrid("run " + dirs[i] + "/s.yaml --out " + dirs[i] + "/out");
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::clamp(std::thread::hardware_concurrency(), 2u, 8u); ++t) threads.emplace_back(work);
  const auto together = test::run_fedgrid("validate" + files);
  for (auto& t : threads) t.join();
  std::vector<test::CommandResult> validated(all.size());
  size_t at = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string file = dirs[i] + "/s.yaml";
    const auto ok = together.output.find(file + ": ok\n", at), refused = together.output.find(file + ": refused (exit ", at);
    const auto end = std::min(ok, refused);
    ASSERT_NE(end, std::string::npos) << "validate said nothing of " << file << ":\n" << together.output;
    validated[i].output = together.output.substr(at, end - at);
    validated[i].exit_code = end == ok ? 0 : std::stoi(together.output.substr(end + file.size() + 16));
    at = together.output.find('\n', end) + 1;
  }

  for (size_t i = 0; i < all.size(); ++i) {
    const auto& c = all[i];
    const auto &validate = validated[i], &run = ran[i];
    SCOPED_TRACE(c.name);
    if (c.name == "cuda-without-cuda" && validate.exit_code == 0 && run.exit_code == 0)
      continue;  // a LibTorch build that sees a GPU: nothing to refuse
    EXPECT_EQ(validate.exit_code, 2) << "validate:\n" << validate.output;
    EXPECT_EQ(run.exit_code, 2) << "run:\n" << run.output;
    const std::string v = error_lines(validate.output), r = error_lines(run.output);
    EXPECT_FALSE(r.empty()) << "run:\n" << run.output;
    EXPECT_EQ(v, r) << "validate and run disagree";
    const std::string expected = with_dir(c.expected, dirs[i]);
    EXPECT_NE(r.find(expected), std::string::npos) << "run: missing '" << expected << "' in\n" << run.output;
    EXPECT_NE(v.find(expected), std::string::npos) << "validate: missing '" << expected << "' in\n" << validate.output;
  }
}

// What a command said of a scenario: exit code 0 (ok), 2 (its input errors, as printed) or 1
// (any other failure: an internal error, with its message).
struct Verdict {
  int code = 0;
  std::string said;
};

// Runs `body` in a child forked from this test process (SimGrid starts once per process; a
// fork does not start LibTorch again) and reports what it said. The parent computes nothing
// with LibTorch, so no thread pool is copied half-way.
pid_t start_child(const std::function<void()>& body, int& read_end) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe");
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    spdlog::set_level(spdlog::level::warn);
    Verdict v;
    try {
      body();
    } catch (const InputError& e) {
      v = {2, e.what()};
    } catch (const std::exception& e) {
      v = {1, std::string("internal error: ") + e.what()};
    }
    const std::string text = std::to_string(v.code) + "\n" + v.said;
    for (size_t at = 0; at < text.size();) {
      const ssize_t n = write(fds[1], text.data() + at, text.size() - at);
      if (n <= 0) break;
      at += size_t(n);
    }
    std::_Exit(0);
  }
  close(fds[1]);
  read_end = fds[0];
  return child;
}

Verdict finish_child(pid_t child, int read_end) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(read_end, buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  close(read_end);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || text.empty()) return {1, "the child died (status " + std::to_string(status) + ")"};
  const auto eol = text.find('\n');
  return {std::stoi(text.substr(0, eol)), text.substr(eol + 1)};
}

// validate == run by construction (issue "one training core, validate == run"): every
// algorithm, on the smallest scenario its entry declares, in every timing mode (real and
// timing-only training; LV08, cm02, fluid and ns3; cohorts of two hospitals a tier), is
// validated and run (two rounds, no outputs). Both must give the same verdict: a scenario
// validate accepts runs to its end, and one it refuses is refused by run with the same
// message. No combination may end in an internal error (an engine backstop: an algorithm's
// registry entry that does not declare a trait of its schedule, AlgorithmInfo::Traits).
TEST(ValidateParity, EveryAlgorithmInEveryModeGetsOneVerdict) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> modes{
      {"real cm02", {"timing.network=cm02"}},
      {"real fluid", {"timing.network=fluid"}},
      {"timing-only default", {"training.mode=timing-only", "timing.network=default"}},
      {"timing-only cm02", {"training.mode=timing-only", "timing.network=cm02"}},
      {"timing-only fluid", {"training.mode=timing-only", "timing.network=fluid"}},
      {"timing-only ns3", {"training.mode=timing-only", "timing.network=ns3"}},
      {"timing-only cohorts",
       {"training.mode=timing-only", "timing.network=cm02", "timing.cohorts=true",
        "platform.hospitals=[{count: 2, tier: weak}, {count: 2, tier: medium}, {count: 2, tier: strong}]"}},
  };
  struct Case {
    std::string name;
    std::string yaml;
    std::vector<std::string> sets;
  };
  std::vector<Case> all;
  for (const auto& info : algorithms::registry())
    for (const auto& [mode, sets] : modes) all.push_back({info.name + " / " + mode, algorithms::smallest_scenario(info), sets});

  // Each case validated in one child and run in another, two cases at a time.
  std::vector<Verdict> validated(all.size()), ran(all.size());
  auto load = [](const Case& c) {
    auto sets = c.sets;
    sets.push_back("output.trace=false");
    return load_scenario_text(c.yaml, "smallest.yaml", sets);
  };
  for (size_t i = 0; i < all.size(); i += 2) {
    std::vector<std::tuple<pid_t, int, Verdict*>> children;
    for (size_t j = i; j < std::min(all.size(), i + 2); ++j) {
      int fd = -1;
      pid_t p = start_child([&, j] { algorithms::validate_algorithm(load(all[j])); }, fd);
      children.emplace_back(p, fd, &validated[j]);
      p = start_child(
          [&, j] {
            RunOptions options;
            options.write_outputs = false;
            algorithms::run_algorithm(load(all[j]), options);
          },
          fd);
      children.emplace_back(p, fd, &ran[j]);
    }
    for (auto& [p, fd, out] : children) *out = finish_child(p, fd);
  }

  size_t accepted = 0;
  std::set<std::string> refused_modes;
  for (size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(all[i].name);
    EXPECT_NE(validated[i].code, 1) << "validate: " << validated[i].said;
    EXPECT_NE(ran[i].code, 1) << "run: " << ran[i].said;
    EXPECT_EQ(validated[i].code, ran[i].code) << "validate: " << validated[i].said << "\nrun: " << ran[i].said;
    EXPECT_EQ(validated[i].said, ran[i].said);
    if (validated[i].code == 0) ++accepted;
    else refused_modes.insert(all[i].name.substr(all[i].name.find(" / ") + 3));
  }
  // Both verdicts occur: most combinations run, and the modes that some schedules cannot take
  // (timing-only, fluid, cohorts) refuse some.
  EXPECT_GT(accepted, all.size() / 2);
  EXPECT_TRUE(refused_modes.count("timing-only cm02") && refused_modes.count("real fluid") &&
              refused_modes.count("timing-only cohorts"));
}

}  // namespace
}  // namespace fedgrid
