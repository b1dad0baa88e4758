#pragma once
// A scenario: the typed, validated form of a scenario YAML file plus --set overrides.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/compression/codec_settings.hpp"
#include "sim/core/augment_settings.hpp"
#include "sim/core/modes.hpp"
#include "sim/network/tcp_settings.hpp"
#include "sim/scenario/key_values.hpp"

namespace fedgrid {

// A model choice: model.<tier> or platform.hospitals[].model.
struct ModelChoice {
  std::string arch;
  double width_multiplier = 1.0;
};

// platform.hospitals[].vary.<figure>: each hospital of the group draws the figure from this
// distribution (sim/engine/population.hpp): lognormal {median, sigma}, uniform {min, max}, or
// empirical {file, column} (values resampled); min/max also bound lognormal and empirical draws.
struct FigureDraw {
  FigureDist dist = FigureDist::Lognormal;
  std::optional<double> median, sigma, min, max;
  std::string file, column;
};

struct HospitalGroup {
  int count = 1;
  std::string tier;
  std::string name;  // prefix; empty = tier name
  std::optional<double> speed_flops, uplink_bps, downlink_bps, latency_s;
  std::optional<std::string> profile_device;  // timing.compute: profile
  std::optional<double> speed_factor;
  std::optional<ModelChoice> model;  // this group's own model (local, fedskd)
  // Figures drawn per hospital, by name: speed_flops, uplink_bps, downlink_bps, latency_s, samples.
  std::map<std::string, FigureDraw> vary;
  int line = 0;  // where it was declared, for later error messages
};

// One task of data.tasks: a dataset (optionally a subset of its classes) for a group of hospitals.
// platform.xml_tiers: the tier of the XML hosts matching `hosts` (a name or glob pattern).
struct XmlTierRule {
  std::string hosts, tier;
};

struct DataTask {
  std::string dataset;       // as data.dataset, paths resolved
  std::vector<int> classes;  // original labels kept, in order; empty = all
  int64_t train_samples = 0;  // 0 = all
  std::vector<int> class_counts;  // the first n_c training samples of each kept class; empty = all
  int hospitals = 1;
  int line = 0;
};

struct Scenario {
  std::string file;  // path it was read from, or "<built-in quickstart>"
  std::map<std::string, int> key_lines;  // dotted key -> line in `file`, 0 for --set overrides
  // An InputError pointing at where `key` was set (or at the file when it was defaulted).
  [[nodiscard]] class InputError error_at(const std::string& key, const std::string& message) const;
  std::string name;
  uint64_t seed = 42;

  struct Platform {
    std::string tiers_file;  // resolved path
    std::string server_tier;
    std::string server_host;
    std::optional<std::string> server_profile_device;  // timing.compute: profile
    std::optional<double> server_speed_factor;
    std::vector<HospitalGroup> hospitals;
    std::string tier_ratio;  // "weak:medium:strong"; expanded into `hospitals`
    std::optional<int> hospital_count;
    std::string roster;  // resolved path or empty
    std::string xml;     // resolved path or empty
    std::string xml_hospitals;           // hospital hosts: names or glob patterns, comma-separated
    std::vector<XmlTierRule> xml_tiers;  // first match wins, after a host's own "tier" property
    double backbone_bandwidth_bps = 100e9;
    double backbone_latency_s = 0;
  } platform;

  struct Data {
    std::string dataset;
    data::PartitionScheme partition_scheme = data::PartitionScheme::Iid;
    double beta = 0.5;
    int classes_per_hospital = 2;
    int64_t min_samples = 10;
    std::vector<std::vector<int>> partition_counts;  // counts: a row per hospital, a column per class
    double split_train = 0.7, split_val = 0.1, split_test = 0.2;
    int split_folds = 0, split_fold = 1;  // K-fold cross-validation: fold k of K is the test split
    int64_t synthetic_train = 2000, synthetic_test = 500;
    int synthetic_classes = 10, synthetic_channels = 1, synthetic_height = 28, synthetic_width = 28;
    double synthetic_noise = 1.0;
    std::optional<int64_t> samples_per_hospital;  // timing-only: instead of a partition
    double server_share = 0;                      // of the pool, held at the server
    std::vector<DataTask> tasks;                  // empty: data.dataset for everyone
    std::vector<int> label_map;                   // data.dataset's class i becomes label_map[i]; empty: as is
    std::optional<int> resize;
    struct SiteShift {  // data.site_shift: each hospital's own image transformation (data/site_shift.hpp)
      double strength = 0;  // 0: off
      bool intensity = true, gamma = true, blur = true, noise = true, geometry = true, colour = true;
    } site_shift;
    AugmentSettings augment;  // data.augment: random flips, rotations, shifts, zooms of training batches
  } data;

  // The model: section (fedgrid::Model is a model's state as the federation moves it).
  struct ModelSection {
    std::string arch;
    double width_multiplier = 1.0;
    std::map<std::string, ModelChoice> tiers;  // model.<tier>: per-tier models (heterofl, fedrolex, feddf)
  } model;

  struct Training {
    bool timing_only = false;  // training.mode: timing-only
    std::string surrogate;     // resolved path or empty
    Optimizer optimizer = Optimizer::Sgd;
    double lr = 0.01, momentum = 0.9, weight_decay = 0;
    LrSchedule lr_schedule = LrSchedule::Constant;  // per round over stop.rounds
    double lr_min = 0;                     // cosine: the last round's rate
    int batch_size = 32, local_epochs = 1;
    int64_t local_steps = 0;  // > 0: a local job is this many mini-batches instead of local_epochs
    DeviceChoice device = DeviceChoice::Auto;
    Precision precision = Precision::Fp32;  // bf16: autocast on CPUs with AVX-512 BF16
    bool deterministic = true;              // on CUDA: deterministic kernels only, no cuDNN benchmark mode
    Fuse fuse;                              // same-shape jobs of a round trained as one batched model
    std::string fuse_text = "off";          // training.fuse as written: the rule that refuses it quotes it
    int workers = 0, threads_per_worker = 1;
    ExecutorMode executor = ExecutorMode::Local;  // mpi: jobs spread over an MPI launch's ranks
  } training;

  struct Algorithm {
    std::string name;
    KeyValues settings;  // the algorithm's own keys (algorithm.*), each read through its declaration
  } algorithm;

  struct Stop {
    int rounds = 20;
    std::optional<double> target_accuracy;
    std::optional<double> sim_time_budget_s;
    int patience = 0;  // early stopping: scored rounds' validation figure, rounds without gain (0: off)
    StopMonitor monitor = StopMonitor::ValLoss;
    double min_delta = 0;  // the smallest change of the monitored figure that counts as a gain
  } stop;

  struct Timing {
    ComputeModel compute = ComputeModel::Flops;
    std::string profile;  // timing.compute: profile: the profile CSV or folder, resolved
    NetworkModel network = NetworkModel::Lv08;
    bool cohorts = false;
    network::TcpSettings tcp;  // timing.network: ns3
    // timing.network: default: SimGrid's LV08 factors (its own defaults; docs/guide/time-model.md,
    // "Which network model": the fit against ns3).
    struct Lv08 {
      double latency_factor = 13.01, bandwidth_factor = 0.97, weight_s = 20537;
      bool operator==(const Lv08&) const = default;
    } lv08;
  } timing;

  // Faults in the simulated world (sim/engine/faults.hpp): all off by default.
  struct Faults {
    double offline_probability = 0;  // each hospital offline for a whole round, drawn per (hospital, round)
    std::string availability_trace;  // CSV hospital,online_from_s,online_until_s (resolved path or empty)
    std::string crash_trace;         // CSV hospital,crash_at_s[,recover_at_s]
    double crash_rate_per_hour = 0;  // crashes per hospital per simulated hour (exponential gaps)
    double recovery_s = 0;           // downtime after a crash drawn from the rate
    std::string link_trace;          // CSV hospital,time_s,bandwidth_factor[,latency_s]
    double deadline_s = 0;           // parallel rounds: updates not in by then are late (0: none)
    double over_selection = 0;       // select (1 + this) x the wanted hospitals, keep the first to report
    bool any() const {
      return offline_probability > 0 || !availability_trace.empty() || !crash_trace.empty() ||
             crash_rate_per_hour > 0 || !link_trace.empty() || deadline_s > 0 || over_selection > 0;
    }
  } faults;

  // compression.uplink / compression.downlink (docs/guide/compression.md): the codec each
  // direction's model transfers go through; off (method: none) unless a method is given.
  // Uplink: hospital -> server and hospital -> hospital; downlink: server -> hospital.
  struct Compression {
    struct Link {
      bool on = false;
      compression::CodecSettings codec;
    };
    Link uplink, downlink;
    bool any() const { return uplink.on || downlink.on; }
  } compression;

  struct Output {
    std::string dir;
    bool trace = true;
    int eval_every = 1;
    bool global_test = true;  // local models: each also scored on every hospital's test split
    int checkpoint_every = 0;  // rounds between checkpoints (0: none)
    bool site_metrics = false;  // per-site macro-F1, balanced accuracy, AUROC: mean and worst site
  } output;
};

// Loads, applies "key.path=value" overrides, validates and resolves relative paths.
// Throws InputError listing every problem found (file, line, key, message).
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});
// The built-in quickstart (scenarios/quickstart.yaml compiled in) with overrides.
Scenario builtin_quickstart(const std::vector<std::string>& overrides = {});
Scenario load_scenario_text(const std::string& text, const std::string& label,
                            const std::vector<std::string>& overrides = {});

// "did you mean" helper: the declared key closest to `path` (edit distance), or "".
std::string closest_key(const std::string& path);

}  // namespace fedgrid
