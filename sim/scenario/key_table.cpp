#include "sim/scenario/key_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace fedgrid {
namespace {

using T = KeyType;
constexpr auto none = std::nullopt;

std::vector<KeyDecl> build() {
  return {
      {"name", T::String, "scenario", "Run name, used in summary.json and the default output dir"},
      {"seed", T::Int, "42", "Seed of every random choice (model init, partition, shuffles, sampling)", {}, 0},

      {"platform", T::Map, none, "The simulated machines and network"},
      {"platform.tiers", T::String, none, "Tier catalog YAML (default: platforms/tiers.yaml)"},
      {"platform.server", T::Map, none, "The aggregation server"},
      {"platform.server.tier", T::String, "cloud", "Tier of the server host"},
      {"platform.server.host", T::String, "server", "With platform.xml: name of the server host in the XML"},
      {"platform.hospitals", T::List, none, "Hospital groups: {count, tier} plus optional overrides"},
      {"platform.hospitals[].count", T::Int, "1", "Number of hospitals in this group", {}, 1},
      {"platform.hospitals[].tier", T::String, none, "Tier of this group (see `fedgrid list tiers`)", {}, {}, {}, false, true},
      {"platform.hospitals[].name", T::String, none, "Name prefix of this group's hospitals (default: the tier)"},
      {"platform.hospitals[].speed_flops", T::Float, none, "Override: effective training FLOP/s", {}, 0, {}, true},
      {"platform.hospitals[].uplink_bps", T::Float, none, "Override: uplink bandwidth, bit/s", {}, 0, {}, true},
      {"platform.hospitals[].downlink_bps", T::Float, none, "Override: downlink bandwidth, bit/s", {}, 0, {}, true},
      {"platform.hospitals[].latency_s", T::Float, none, "Override: one-way access-link latency, s", {}, 0},
      {"platform.hospitals[].model", T::ModelChoice, none, "This group's own model where every hospital keeps one (local, fedskd): an arch, or {arch, width_multiplier}", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},
      {"platform.hospitals[].model.arch", T::String, none, "Architecture of this group's model (default: model.arch)", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},
      {"platform.hospitals[].model.width_multiplier", T::Float, none, "Width of this group's model (default: model.width_multiplier)", {}, 0, 1, true},
      {"platform.roster", T::String, none, "Roster CSV, one hospital per row (name,tier[,speed_flops,uplink_bps,downlink_bps,latency_s]); replaces hospitals"},
      {"platform.xml", T::String, none, "SimGrid XML platform; every host but the server is a hospital and needs a 'tier' property"},
      {"platform.tier_ratio", T::String, none, "weak:medium:strong hospital counts in this ratio (e.g. 7:2:1), with platform.hospital_count; replaces hospitals"},
      {"platform.hospital_count", T::Int, none, "With platform.tier_ratio: number of hospitals (a multiple of the ratio's sum)", {}, 1},
      {"platform.backbone", T::Map, none, "The shared backbone every access link joins"},
      {"platform.backbone.bandwidth_bps", T::Float, "100e9", "Backbone bandwidth, bit/s", {}, 0, {}, true},
      {"platform.backbone.latency_s", T::Float, "0", "Backbone latency, s", {}, 0},

      {"data", T::Map, none, "Dataset, partition and splits"},
      {"data.dataset", T::String, "fashion-mnist", "synthetic | fashion-mnist | idx:<dir> | npz:<MedMNIST .npz file>"},
      {"data.partition", T::Map, none, "How the training pool is dealt to hospitals"},
      {"data.partition.scheme", T::String, "iid", "iid | dirichlet | shards | balanced (equal count of every class per hospital)", {"iid", "dirichlet", "shards", "balanced"}},
      {"data.partition.beta", T::Float, "0.5", "dirichlet: label-skew concentration (smaller = more skewed)", {}, 0, {}, true},
      {"data.partition.classes_per_hospital", T::Int, "2", "shards: classes per hospital", {}, 1},
      {"data.partition.min_samples", T::Int, "10", "dirichlet: redraw until every hospital holds this many", {}, 0},
      {"data.split", T::Map, none, "Each hospital's stratified train/val/test split"},
      {"data.split.train", T::Float, "0.7", "Share of a hospital's samples used for training", {}, 0, 1},
      {"data.split.val", T::Float, "0.1", "Share kept for validation", {}, 0, 1},
      {"data.split.test", T::Float, "0.2", "Share kept for the hospital's own test", {}, 0, 1},
      {"data.tasks", T::List, none, "Several tasks, each a dataset for its own group of hospitals (in hospital order), with one unified label space"},
      {"data.tasks[].dataset", T::String, none, "This task's dataset (as data.dataset)", {}, {}, {}, false, true},
      {"data.tasks[].classes", T::IntList, none, "Original labels kept, in order (default: all); they become labels offset.. of the unified space", {}, 0},
      {"data.tasks[].train_samples", T::Int, none, "Keep only the first N training samples of this task (after the class filter), as UniFed's code keeps 8,000", {}, 1},
      {"data.tasks[].hospitals", T::Int, none, "Number of hospitals holding this task", {}, 1, {}, false, true},
      {"data.resize", T::Int, none, "Resize every image to this side (bilinear), e.g. 28 -> 32 for vgg11/resnet18", {}, 4},
      {"data.server_share", T::Float, "0", "Stratified share of the training pool held at the server (split like a hospital's); UniFed trains on it", {}, 0, 0.5},
      {"data.samples_per_hospital", T::Int, none, "training.mode timing-only: every hospital holds this many training samples; no dataset is partitioned", {}, 1},
      {"data.synthetic", T::Map, none, "Options of the synthetic dataset"},
      {"data.synthetic.train_samples", T::Int, "2000", "Training pool size", {}, 1},
      {"data.synthetic.test_samples", T::Int, "500", "Global test set size", {}, 1},
      {"data.synthetic.classes", T::Int, "10", "Number of classes", {}, 2},
      {"data.synthetic.channels", T::Int, "1", "Image channels", {}, 1},
      {"data.synthetic.height", T::Int, "28", "Image height", {}, 1},
      {"data.synthetic.width", T::Int, "28", "Image width", {}, 1},
      {"data.synthetic.noise", T::Float, "1.0", "Pixel noise std around the class prototypes", {}, 0},

      {"model", T::Map, none, "The network every hospital trains"},
      {"model.arch", T::String, "cnn", "cnn | lenet5 | mlp | vgg11 | resnet18 | resnet10 (see `fedgrid list models`)", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},

      {"model.width_multiplier", T::Float, "1", "Hidden channels/units scaled to ceil(m * base), 0 < m <= 1 (HeteroFL's model rate)", {}, 0, 1, true},
      {"model.weak", T::ModelChoice, none, "Model of the weak tier's hospitals (heterofl, fedrolex, feddf): an arch, or {arch, width_multiplier}", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},
      {"model.weak.arch", T::String, none, "Architecture of the weak tier (default: model.arch)", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},
      {"model.weak.width_multiplier", T::Float, none, "Width of the weak tier's model (default: model.width_multiplier)", {}, 0, 1, true},
      {"model.medium", T::ModelChoice, none, "Model of the medium tier's hospitals (heterofl, fedrolex, feddf): an arch, or {arch, width_multiplier}", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},
      {"model.medium.arch", T::String, none, "Architecture of the medium tier (default: model.arch)", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},
      {"model.medium.width_multiplier", T::Float, none, "Width of the medium tier's model (default: model.width_multiplier)", {}, 0, 1, true},
      {"model.strong", T::ModelChoice, none, "Model of the strong tier's hospitals (heterofl, fedrolex, feddf): an arch, or {arch, width_multiplier}", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},
      {"model.strong.arch", T::String, none, "Architecture of the strong tier (default: model.arch)", {"cnn", "lenet5", "mlp", "vgg11", "resnet18", "resnet10"}},
      {"model.strong.width_multiplier", T::Float, none, "Width of the strong tier's model (default: model.width_multiplier)", {}, 0, 1, true},

      {"training", T::Map, none, "Local training"},
      {"training.mode", T::String, "real", "real (LibTorch trains) | timing-only (protocol, transfers and compute charges; no tensors, no data)", {"real", "timing-only"}},
      {"training.surrogate", T::String, none, "timing-only: CSV with round,accuracy columns (e.g. an earlier run's rounds.csv) giving accuracy by round"},
      {"training.optimizer", T::String, "sgd", "sgd | adam", {"sgd", "adam"}},
      {"training.lr", T::Float, "0.01", "Learning rate", {}, 0, {}, true},
      {"training.momentum", T::Float, "0.9", "SGD momentum", {}, 0},
      {"training.weight_decay", T::Float, "0", "L2 weight decay", {}, 0},
      {"training.batch_size", T::Int, "32", "Mini-batch size", {}, 1},
      {"training.local_epochs", T::Int, "1", "Epochs per local training job", {}, 1},
      {"training.local_steps", T::Int, "0", "Mini-batches per local training job, replacing local_epochs (0: use local_epochs); FedSKD's 'iterations'", {}, 0},
      {"training.device", T::String, "auto", "auto | cpu | cuda (auto: cuda when present)", {"auto", "cpu", "cuda"}},
      {"training.workers", T::Int, "0", "Compute executor worker threads (0: one per core)", {}, 0},
      {"training.threads_per_worker", T::Int, "0", "Torch intra-op threads per worker (0: cores / workers)", {}, 0},

      {"algorithm", T::Map, none, "The federated algorithm and its own keys"},
      {"algorithm.name", T::String, "fedavg", "Algorithm (see `fedgrid list algorithms`)"},

      {"stop", T::Map, none, "When the run ends (whichever comes first)"},
      {"stop.rounds", T::Int, "20", "Maximum number of rounds", {}, 1},
      {"stop.target_accuracy", T::Float, none, "Stop once global accuracy reaches this (0..1)", {}, 0, 1},
      {"stop.sim_time_budget_s", T::Float, none, "Simulated wall-clock budget, s: runs every round that ends within it; a round that would end later is discarded", {}, 0, {}, true},

      {"timing", T::Map, none, "How simulated time is charged"},
      {"timing.compute", T::String, "flops", "Compute cost model: flops (analytic FLOPs / host speed)", {"flops"}},
      {"timing.network", T::String, "default", "default (SimGrid LV08) | cm02 (exact latency + size / bandwidth)", {"default", "cm02"}},

      {"timing.cohorts", T::Bool, "false", "timing-only + cm02: identical hospitals (tier, overrides, samples) act as one representative whose flows count once per member on shared links"},

      {"output", T::Map, none, "Where and what to write"},
      {"output.dir", T::String, none, "Output directory (default: results/<name>)"},
      {"output.trace", T::Bool, "true", "Write trace.json (Chrome trace format)"},
      {"output.global_test", T::Bool, "true", "Local models: also score each on every hospital's test split, weighted equally (FedSKD's 'global test'; N x N evaluations)"},
      {"output.eval_every", T::Int, "1", "Evaluate every k rounds (and the last)", {}, 1},
  };
}

std::vector<KeyDecl>& table() {
  static std::vector<KeyDecl> keys = build();
  return keys;
}

bool same_declaration(const KeyDecl& a, const KeyDecl& b) {
  return a.type == b.type && a.default_value == b.default_value && a.allowed == b.allowed && a.min == b.min &&
         a.max == b.max && a.min_exclusive == b.min_exclusive && a.required == b.required;
}

}  // namespace

const std::vector<KeyDecl>& scenario_keys() { return table(); }

void install_keys(const std::vector<KeyDecl>& keys) {
  auto& all = table();
  for (const auto& k : keys) {
    auto same = std::find_if(all.begin(), all.end(), [&](const KeyDecl& d) { return d.path == k.path; });
    if (same != all.end()) {
      if (!same_declaration(*same, k))
        throw std::logic_error("scenario key '" + k.path + "' is declared twice, differently");
      continue;
    }
    // After the last algorithm.* key, so `fedgrid list keys` keeps them together.
    auto at = all.end();
    for (auto it = all.begin(); it != all.end(); ++it)
      if (it->path == "algorithm" || it->path.rfind("algorithm.", 0) == 0) at = it + 1;
    all.insert(at, k);
  }
}

const KeyDecl* find_key(const std::string& path) {
  for (const auto& k : scenario_keys())
    if (k.path == path) return &k;
  return nullptr;
}

std::string type_name(KeyType t) {
  switch (t) {
    case KeyType::Int: return "integer";
    case KeyType::Float: return "number";
    case KeyType::String: return "string";
    case KeyType::Bool: return "boolean";
    case KeyType::Map: return "mapping";
    case KeyType::List: return "list";
    case KeyType::IntList: return "integers";
    case KeyType::ModelChoice: return "an arch name or a mapping";
  }
  return "?";
}

}  // namespace fedgrid
