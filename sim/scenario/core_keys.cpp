// The simulator's own scenario keys, each declared once and bound to the Scenario field it
// fills (key_set.hpp). Algorithms declare theirs next to their code; both join the key table.
#include "sim/scenario/core_keys.hpp"

#include <initializer_list>

#include "sim/scenario/key_set.hpp"

namespace fedgrid {
namespace {

// models::known_archs() without linking models/ (the scenario wing has no LibTorch).
const std::vector<std::string> kArchs = {"cnn",  "cnn_bn", "lenet5", "mlp",      "mlp4",     "vgg11",
                                         "vgg8", "vgg5",   "vgg7",   "vgg9",     "resnet18", "resnet10",
                                         "carpefl"};
// "cnn | cnn_bn | ...": the archs as model.arch's description lists them.
std::string arch_choices() {
  std::string out;
  for (const auto& a : kArchs) out += (out.empty() ? "" : " | ") + a;
  return out;
}
// Widest model.width_multiplier: a global model up to 4x the plain one (DynamicFL's baselines
// prune the strong tier's model, which costs what a plain model with grown convs costs).
constexpr double kMaxWidth = 4;
constexpr auto none = std::nullopt;

// A model choice (an arch name, or {arch, width_multiplier}) under `name` of `from`; fields
// not given keep `base`'s.
std::optional<ModelChoice> model_choice(const KeyValues& from, const std::string& name, ModelChoice base) {
  if (!from.given(name)) return std::nullopt;
  if (!from.is_mapping(name)) {
    base.arch = *from.value<std::string>(name);
    return base;
  }
  if (from.given(name + ".arch")) base.arch = *from.value<std::string>(name + ".arch");
  if (from.given(name + ".width_multiplier")) base.width_multiplier = *from.value<double>(name + ".width_multiplier");
  return base;
}

// A hospital group's own model: its arch or width left empty/0 mean "the global model's",
// filled in once model.* is read (core_keys' reader runs before the items are completed).
// platform.hospitals[].vary.<figure>: one distribution per figure, read whole from its `dist`.
void vary_keys(KeySet<HospitalGroup>& k) {
  using G = HospitalGroup;
  k.group("vary", "Figures each hospital of the group draws from a distribution, seeded by the scenario seed "
                  "(speed_flops, uplink_bps, downlink_bps, latency_s; samples with training.mode timing-only)");
  for (const std::string figure : {"speed_flops", "uplink_bps", "downlink_bps", "latency_s", "samples"}) {
    const std::string at = "vary." + figure;
    k.group(at, "Distribution of " + figure + " over this group's hospitals");
    k.custom(at + ".dist", KeyType::String, none,
             "lognormal (median, sigma), uniform (min, max) or empirical (file, column: values resampled)",
             {.allowed = {"lognormal", "uniform", "empirical"}, .required = true},
             [at, figure](G& g, const KeyValues& from) {
               if (!from.given(at + ".dist")) return;  // every reader runs; this figure is not drawn
               FigureDraw d;
               d.dist = *from.value<std::string>(at + ".dist");
               d.median = from.value<double>(at + ".median");
               d.sigma = from.value<double>(at + ".sigma");
               d.min = from.value<double>(at + ".min");
               d.max = from.value<double>(at + ".max");
               d.file = from.value<std::string>(at + ".file").value_or("");
               d.column = from.value<std::string>(at + ".column").value_or(figure);
               g.vary[figure] = d;
             });
    k.custom(at + ".median", KeyType::Float, none, "lognormal: the median (e^mu)", {.min = 0, .min_exclusive = true}, {});
    k.custom(at + ".sigma", KeyType::Float, none, "lognormal: the standard deviation of the logarithm", {.min = 0}, {});
    k.custom(at + ".min", KeyType::Float, none, "uniform: the lower end; lognormal, empirical: draws below are raised to it",
             {.min = 0}, {});
    k.custom(at + ".max", KeyType::Float, none, "uniform: the upper end; lognormal, empirical: draws above are lowered to it",
             {.min = 0}, {});
    k.custom(at + ".file", KeyType::String, none, "empirical: CSV of observed values (relative to the scenario file)", {}, {});
    k.custom(at + ".column", KeyType::String, none, "empirical: the column holding them (default: the figure's name)", {}, {});
  }
}

KeySet<HospitalGroup> hospital_group_keys() {
  using G = HospitalGroup;
  KeySet<G> k;
  k.add("count", &G::count, "1", "Number of hospitals in this group", {.min = 1})
      .add("tier", &G::tier, none, "Tier of this group (see `fedgrid list tiers`)", {.required = true})
      .add("name", &G::name, none, "Name prefix of this group's hospitals (default: the tier)")
      .bind<double>("speed_flops", [](G& g) -> auto& { return g.speed_flops; }, none,
                    "Override: effective training FLOP/s", {.min = 0, .min_exclusive = true})
      .bind<double>("uplink_bps", [](G& g) -> auto& { return g.uplink_bps; }, none, "Override: uplink bandwidth, bit/s",
                    {.min = 0, .min_exclusive = true})
      .bind<double>("downlink_bps", [](G& g) -> auto& { return g.downlink_bps; }, none,
                    "Override: downlink bandwidth, bit/s", {.min = 0, .min_exclusive = true})
      .bind<double>("latency_s", [](G& g) -> auto& { return g.latency_s; }, none,
                    "Override: one-way access-link latency, s", {.min = 0})
      .bind<std::string>("profile_device", [](G& g) -> auto& { return g.profile_device; }, none,
                         "timing.compute profile: the profiled device these hospitals run on (default: the tier's)")
      .bind<double>("speed_factor", [](G& g) -> auto& { return g.speed_factor; }, none,
                    "timing.compute profile: speed relative to that device, seconds = profiled / factor (default: the tier's, else 1)",
                    {.min = 0, .min_exclusive = true})
      .custom("model", KeyType::ModelChoice, none,
              "This group's own model where every hospital keeps one (local, fedskd): an arch, or {arch, width_multiplier}",
              {.allowed = kArchs},
              [](G& g, const KeyValues& from) { g.model = model_choice(from, "model", {"", 0}); })
      .custom("model.arch", KeyType::String, none, "Architecture of this group's model (default: model.arch)",
              {.allowed = kArchs}, {})
      .custom("model.width_multiplier", KeyType::Float, none,
              "Width of this group's model (default: model.width_multiplier)",
              {.min = 0, .max = kMaxWidth, .min_exclusive = true}, {});
  vary_keys(k);
  return k;
}

KeySet<XmlTierRule> xml_tier_keys() {
  using R = XmlTierRule;
  return KeySet<R>()
      .add("hosts", &R::hosts, none, "Host name or glob pattern (e.g. node-*.site)", {.required = true})
      .add("tier", &R::tier, none, "Tier of the hosts it matches (see `fedgrid list tiers`)", {.required = true});
}

KeySet<DataTask> data_task_keys() {
  using D = DataTask;
  return KeySet<D>()
      .add("dataset", &D::dataset, none, "This task's dataset (as data.dataset)", {.required = true})
      .add("classes", &D::classes, none,
           "Original labels kept, in order (default: all); they become labels offset.. of the unified space", {.min = 0})
      .add("train_samples", &D::train_samples, none,
           "Keep only the first N training samples of this task (after the class filter), as UniFed's code keeps 8,000",
           {.min = 1})
      .add("hospitals", &D::hospitals, none, "Number of hospitals holding this task", {.min = 1, .required = true});
}

KeySet<Scenario> build() {
  using S = Scenario;
  KeySet<S> k;
  k.add("name", &S::name, "scenario", "Run name, used in summary.json and the default output dir")
      .add("seed", &S::seed, "42", "Seed of every random choice (model init, partition, shuffles, sampling)", {.min = 0});

  k.group("platform", "The simulated machines and network")
      .bind<std::string>("platform.tiers", [](S& s) -> auto& { return s.platform.tiers_file; }, none,
                         "Tier catalog YAML (default: platforms/tiers.yaml)")
      .group("platform.server", "The aggregation server")
      .bind<std::string>("platform.server.tier", [](S& s) -> auto& { return s.platform.server_tier; }, "cloud",
                         "Tier of the server host (with platform.xml: when the host has no 'tier' property)")
      .bind<std::string>("platform.server.host", [](S& s) -> auto& { return s.platform.server_host; }, "server",
                         "With platform.xml: name of the server host in the XML")
      .bind<std::string>("platform.server.profile_device",
                         [](S& s) -> auto& { return s.platform.server_profile_device; }, none,
                         "timing.compute profile: the profiled device the server runs on (default: its tier's)")
      .bind<double>("platform.server.speed_factor", [](S& s) -> auto& { return s.platform.server_speed_factor; }, none,
                    "timing.compute profile: the server's speed relative to that device (default: its tier's, else 1)",
                    {.min = 0, .min_exclusive = true})
      .bind_list<HospitalGroup>("platform.hospitals", [](S& s) -> auto& { return s.platform.hospitals; },
                                "Hospital groups: {count, tier} plus optional overrides", hospital_group_keys())
      .bind<std::string>("platform.roster", [](S& s) -> auto& { return s.platform.roster; }, none,
                         "Roster CSV, one hospital per row (name,tier[,speed_flops,uplink_bps,downlink_bps,latency_s,profile_device,speed_factor,samples]); replaces hospitals")
      .bind<std::string>("platform.xml", [](S& s) -> auto& { return s.platform.xml; }, none,
                         "SimGrid XML platform, as SimGrid loads it; platform.server.host is the server, platform.xml_hospitals the hospitals")
      .bind<std::string>("platform.xml_hospitals", [](S& s) -> auto& { return s.platform.xml_hospitals; }, none,
                         "With platform.xml: the hospital hosts, names or glob patterns separated by commas (default: every host but the server)")
      .bind_list<XmlTierRule>("platform.xml_tiers", [](S& s) -> auto& { return s.platform.xml_tiers; },
                              "With platform.xml: tiers of hosts without a 'tier' property, [{hosts: PATTERN, tier: NAME}], the first match wins",
                              xml_tier_keys())
      .bind<std::string>("platform.tier_ratio", [](S& s) -> auto& { return s.platform.tier_ratio; }, none,
                         "weak:medium:strong hospital counts in this ratio (e.g. 7:2:1), with platform.hospital_count; replaces hospitals")
      .bind<int>("platform.hospital_count", [](S& s) -> auto& { return s.platform.hospital_count; }, none,
                 "With platform.tier_ratio: number of hospitals (a multiple of the ratio's sum)", {.min = 1})
      .group("platform.backbone", "The shared backbone every access link joins")
      .bind<double>("platform.backbone.bandwidth_bps", [](S& s) -> auto& { return s.platform.backbone_bandwidth_bps; },
                    "100e9", "Backbone bandwidth, bit/s", {.min = 0, .min_exclusive = true})
      .bind<double>("platform.backbone.latency_s", [](S& s) -> auto& { return s.platform.backbone_latency_s; }, "0",
                    "Backbone latency, s", {.min = 0});

  k.group("data", "Dataset, partition and splits")
      .bind<std::string>("data.dataset", [](S& s) -> auto& { return s.data.dataset; }, "fashion-mnist",
                         "synthetic | fashion-mnist | idx:<dir> | npz:<MedMNIST .npz file>")
      .group("data.partition", "How the training pool is dealt to hospitals")
      .bind<std::string>("data.partition.scheme", [](S& s) -> auto& { return s.data.partition_scheme; }, "iid",
                         "iid | dirichlet | shards | balanced (equal count of every class per hospital)",
                         {.allowed = {"iid", "dirichlet", "shards", "balanced"}})
      .bind<double>("data.partition.beta", [](S& s) -> auto& { return s.data.beta; }, "0.5",
                    "dirichlet: label-skew concentration (smaller = more skewed)", {.min = 0, .min_exclusive = true})
      .bind<int>("data.partition.classes_per_hospital", [](S& s) -> auto& { return s.data.classes_per_hospital; }, "2",
                 "shards: classes per hospital", {.min = 1})
      .bind<int64_t>("data.partition.min_samples", [](S& s) -> auto& { return s.data.min_samples; }, "10",
                     "dirichlet: redraw until every hospital holds this many", {.min = 0})
      .group("data.split", "Each hospital's stratified train/val/test split")
      .bind<double>("data.split.train", [](S& s) -> auto& { return s.data.split_train; }, "0.7",
                    "Share of a hospital's samples used for training", {.min = 0, .max = 1})
      .bind<double>("data.split.val", [](S& s) -> auto& { return s.data.split_val; }, "0.1", "Share kept for validation",
                    {.min = 0, .max = 1})
      .bind<double>("data.split.test", [](S& s) -> auto& { return s.data.split_test; }, "0.2",
                    "Share kept for the hospital's own test", {.min = 0, .max = 1})
      .bind<int>("data.split.folds", [](S& s) -> auto& { return s.data.split_folds; }, "0",
                 "K-fold cross-validation (0: off): each hospital's samples, class by class, are dealt into K folds "
                 "from the seed; fold data.split.fold is the test split, data.split.val's share of the rest "
                 "validation, the remainder training (data.split.train and .test may not be set then)",
                 {.min = 0, .max = 1000})
      .bind<int>("data.split.fold", [](S& s) -> auto& { return s.data.split_fold; }, "1",
                 "With data.split.folds: the fold held out as the test split, 1..folds (the folds are the same "
                 "for every value, so runs over all of them cover every sample once)",
                 {.min = 1})
      .bind_list<DataTask>("data.tasks", [](S& s) -> auto& { return s.data.tasks; },
                           "Several tasks, each a dataset for its own group of hospitals (in hospital order), with one unified label space",
                           data_task_keys())
      .bind<std::vector<int>>("data.label_map", [](S& s) -> auto& { return s.data.label_map; }, none,
                              "Merge data.dataset's classes: original class i becomes label_map[i], one entry per "
                              "class; the new classes 0..K-1 each receive one (e.g. [0, 1, 1, 1, 2]: five grades "
                              "into three). Not with data.tasks (their classes key selects instead)",
                              {.min = 0})
      .bind<int>("data.resize", [](S& s) -> auto& { return s.data.resize; }, none,
                 "Resize every image to this side (bilinear), e.g. 28 -> 32 for vgg11/resnet18", {.min = 4})
      .bind<double>("data.server_share", [](S& s) -> auto& { return s.data.server_share; }, "0",
                    "Stratified share of the training pool held at the server (split like a hospital's); UniFed trains on it",
                    {.min = 0, .max = 0.5})
      .group("data.site_shift",
             "Each hospital's own image transformation of its samples, drawn from the seed (scanners, protocols); "
             "the server's share and the global test set stay unshifted; no effect in timing-only runs")
      .bind<double>("data.site_shift.strength", [](S& s) -> auto& { return s.data.site_shift.strength; }, "0",
                    "0 = off (images untouched), 1 = strong; scales every effect's range (the ranges below are at 1)",
                    {.min = 0, .max = 1});
  // One switch per effect, all on by default: the strength alone decides whether anything changes.
  using Shift = Scenario::Data::SiteShift;
  struct Effect {
    const char* name;
    bool Shift::*on;
    const char* description;
  };
  for (const Effect& e : std::initializer_list<Effect>{
           {"intensity", &Shift::intensity,
            "Contrast and brightness, u -> a*u + b (u: the pixel range scaled to [0, 1]; a 0.71-1.41, b -0.15..0.15)"},
           {"gamma", &Shift::gamma, "Gamma, u -> u^g (g 0.66-1.52)"},
           {"blur", &Shift::blur, "Gaussian blur, sigma up to 1 px"},
           {"noise", &Shift::noise, "Additive Gaussian noise, fresh per sample, std up to 5% of the pixel range"},
           {"geometry", &Shift::geometry,
            "Rotation (up to 10 degrees) and scale (0.90-1.11x) about the centre, bilinear, edges replicated"},
           {"colour", &Shift::colour, "Colour cast of 3-channel images: a gain per channel (0.87-1.15)"}})
    k.bind<bool>(std::string("data.site_shift.") + e.name, [on = e.on](S& s) -> auto& { return s.data.site_shift.*on; },
                 "true", e.description);
  k.bind<int64_t>("data.samples_per_hospital", [](S& s) -> auto& { return s.data.samples_per_hospital; }, none,
                  "training.mode timing-only: every hospital holds this many training samples; no dataset is partitioned",
                  {.min = 1})
      .group("data.synthetic", "Options of the synthetic dataset")
      .bind<int64_t>("data.synthetic.train_samples", [](S& s) -> auto& { return s.data.synthetic_train; }, "2000",
                     "Training pool size", {.min = 1})
      .bind<int64_t>("data.synthetic.test_samples", [](S& s) -> auto& { return s.data.synthetic_test; }, "500",
                     "Global test set size", {.min = 1})
      .bind<int>("data.synthetic.classes", [](S& s) -> auto& { return s.data.synthetic_classes; }, "10",
                 "Number of classes", {.min = 2})
      .bind<int>("data.synthetic.channels", [](S& s) -> auto& { return s.data.synthetic_channels; }, "1",
                 "Image channels", {.min = 1})
      .bind<int>("data.synthetic.height", [](S& s) -> auto& { return s.data.synthetic_height; }, "28", "Image height",
                 {.min = 1})
      .bind<int>("data.synthetic.width", [](S& s) -> auto& { return s.data.synthetic_width; }, "28", "Image width",
                 {.min = 1})
      .bind<double>("data.synthetic.noise", [](S& s) -> auto& { return s.data.synthetic_noise; }, "1.0",
                    "Pixel noise std around the class prototypes", {.min = 0});

  k.group("model", "The network every hospital trains")
      .bind<std::string>("model.arch", [](S& s) -> auto& { return s.model.arch; }, "cnn",
                         arch_choices() + " (see `fedgrid list models`)",
                         {.allowed = kArchs})
      .bind<double>("model.width_multiplier", [](S& s) -> auto& { return s.model.width_multiplier; }, "1",
                    "Hidden channels/units scaled to ceil(m * base), 0 < m <= 4: below 1 HeteroFL's model rate; above 1 "
                    "a wider global model, as DynamicFL's baselines prune the strong tier's model",
                    {.min = 0, .max = kMaxWidth, .min_exclusive = true});
  for (const std::string tier : {"weak", "medium", "strong"}) {
    const std::string key = "model." + tier;
    k.custom(key, KeyType::ModelChoice, none,
             "Model of the " + tier + " tier's hospitals (heterofl, fedrolex, feddf): an arch, or {arch, width_multiplier}",
             {.allowed = kArchs},
             [key, tier](S& s, const KeyValues& from) {
               if (auto m = model_choice(from, key, {s.model.arch, s.model.width_multiplier})) s.model.tiers[tier] = *m;
             })
        .custom(key + ".arch", KeyType::String, none, "Architecture of the " + tier + " tier (default: model.arch)",
                {.allowed = kArchs}, {})
        .custom(key + ".width_multiplier", KeyType::Float, none,
                "Width of the " + tier + " tier's model (default: model.width_multiplier)",
                {.min = 0, .max = kMaxWidth, .min_exclusive = true}, {});
  }

  k.group("training", "Local training")
      .custom("training.mode", KeyType::String, "real",
              "real (LibTorch trains) | timing-only (protocol, transfers and compute charges; no tensors, no data)",
              {.allowed = {"real", "timing-only"}},
              [](S& s, const KeyValues& from) {
                s.training.timing_only = from.value<std::string>("training.mode") == "timing-only";
              })
      .bind<std::string>("training.surrogate", [](S& s) -> auto& { return s.training.surrogate; }, none,
                         "timing-only: CSV with round,accuracy columns (e.g. an earlier run's rounds.csv) giving accuracy by round")
      .bind<std::string>("training.optimizer", [](S& s) -> auto& { return s.training.optimizer; }, "sgd", "sgd | adam",
                         {.allowed = {"sgd", "adam"}})
      .bind<double>("training.lr", [](S& s) -> auto& { return s.training.lr; }, "0.01", "Learning rate",
                    {.min = 0, .min_exclusive = true})
      .bind<std::string>("training.lr_schedule", [](S& s) -> auto& { return s.training.lr_schedule; }, "constant",
                         "constant | cosine: round r's jobs train at lr_min + (lr - lr_min)(1 + cos(pi (r - 1) / "
                         "stop.rounds)) / 2, the per-round cosine decay of DynamicFL and CarPe-FL",
                         {.allowed = {"constant", "cosine"}})
      .bind<double>("training.lr_min", [](S& s) -> auto& { return s.training.lr_min; }, "0",
                    "cosine: the rate the decay approaches at stop.rounds", {.min = 0})
      .bind<double>("training.momentum", [](S& s) -> auto& { return s.training.momentum; }, "0.9", "SGD momentum",
                    {.min = 0})
      .bind<double>("training.weight_decay", [](S& s) -> auto& { return s.training.weight_decay; }, "0",
                    "L2 weight decay", {.min = 0})
      .bind<int>("training.batch_size", [](S& s) -> auto& { return s.training.batch_size; }, "32", "Mini-batch size",
                 {.min = 1})
      .bind<int>("training.local_epochs", [](S& s) -> auto& { return s.training.local_epochs; }, "1",
                 "Epochs per local training job", {.min = 1})
      .bind<int64_t>("training.local_steps", [](S& s) -> auto& { return s.training.local_steps; }, "0",
                     "Mini-batches per local training job, replacing local_epochs (0: use local_epochs); FedSKD's 'iterations'",
                     {.min = 0})
      .bind<std::string>("training.device", [](S& s) -> auto& { return s.training.device; }, "auto",
                         "auto | cpu | cuda (auto: cuda when present)", {.allowed = {"auto", "cpu", "cuda"}})
      .bind<std::string>("training.precision", [](S& s) -> auto& { return s.training.precision; }, "fp32",
                         "fp32 | bf16: bf16 runs training's convolutions and matrix products in bfloat16 (autocast, weights kept in fp32; CPUs with AVX-512 BF16); changes the arithmetic, never simulated time",
                         {.allowed = {"fp32", "bf16"}})
      .bind<bool>("training.deterministic", [](S& s) -> auto& { return s.training.deterministic; }, "true",
                  "On CUDA: deterministic kernels only, cuDNN without benchmark mode and cuBLAS's fixed workspace, so two runs on one GPU give the same bytes; false trades that for speed (the CPU is deterministic either way)")
      .bind<std::string>("training.fuse", [](S& s) -> auto& { return s.training.fuse; }, "off",
                         "Train a round's same-shape hospital jobs as one batched model: off, auto (on a GPU), or K (at most K hospitals per fused job); changes how fedgrid computes, never what the federation costs")
      .bind<int>("training.workers", [](S& s) -> auto& { return s.training.workers; }, "0",
                 "Compute executor worker threads (0: one per core); how fast, never what: outputs are the same for any count", {.min = 0})
      .bind<int>("training.threads_per_worker", [](S& s) -> auto& { return s.training.threads_per_worker; }, "1",
                 "Torch intra-op threads of each job; changes the arithmetic (reduction order), so it is never derived from the core count or training.workers, and summary.json records it",
                 {.min = 1});

  k.group("algorithm", "The federated algorithm and its own keys")
      .custom("algorithm.name", KeyType::String, "fedavg", "Algorithm (see `fedgrid list algorithms`)", {},
              [](S& s, const KeyValues& from) {
                s.algorithm.name = *from.value<std::string>("algorithm.name");
                s.algorithm.settings = from.section("algorithm");
              });

  k.group("stop", "When the run ends (whichever comes first)")
      .bind<int>("stop.rounds", [](S& s) -> auto& { return s.stop.rounds; }, "20", "Maximum number of rounds", {.min = 1})
      .bind<double>("stop.target_accuracy", [](S& s) -> auto& { return s.stop.target_accuracy; }, none,
                    "Stop once global accuracy reaches this (0..1)", {.min = 0, .max = 1})
      .bind<double>("stop.sim_time_budget_s", [](S& s) -> auto& { return s.stop.sim_time_budget_s; }, none,
                    "Simulated wall-clock budget, s: runs every round that ends within it; a round that would end later is discarded",
                    {.min = 0, .min_exclusive = true});

  k.group("timing", "How simulated time is charged")
      .bind<std::string>("timing.compute", [](S& s) -> auto& { return s.timing.compute; }, "flops",
                         "Compute cost model: flops (analytic FLOPs / host speed) | profile (seconds per step measured by `fedgrid calibrate`)",
                         {.allowed = {"flops", "profile"}})
      .bind<std::string>("timing.profile", [](S& s) -> auto& { return s.timing.profile; }, none,
                         "timing.compute profile: the profile CSV, or a folder of them (one per machine)")
      .bind<std::string>("timing.network", [](S& s) -> auto& { return s.timing.network; }, "default",
                         "default (SimGrid LV08) | cm02 (exact latency + size / bandwidth) | fluid (cm02's sharing of the star's server links, computed incrementally: 100,000 distinct hospitals; docs/performance.md, \"Timing-only runs and cohorts\")",
                         {.allowed = {"default", "cm02", "fluid"}})
      .bind<bool>("timing.cohorts", [](S& s) -> auto& { return s.timing.cohorts; }, "false",
                  "timing-only + cm02: identical hospitals (tier, overrides, samples) act as one representative whose flows count once per member on shared links");

  k.group("faults", "Faults in the simulated world: hospitals offline, crashes, degrading links, deadlines (docs/guide/faults.md)")
      .bind<double>("faults.offline_probability", [](S& s) -> auto& { return s.faults.offline_probability; }, "0",
                    "Probability that a hospital is offline for a whole round (drawn per hospital and round from the seed)",
                    {.min = 0, .max = 1, .max_exclusive = true})
      .bind<std::string>("faults.availability_trace", [](S& s) -> auto& { return s.faults.availability_trace; }, none,
                         "CSV hospital,online_from_s,online_until_s: a listed hospital (name or glob pattern) is online only inside its intervals")
      .bind<std::string>("faults.crash_trace", [](S& s) -> auto& { return s.faults.crash_trace; }, none,
                         "CSV hospital,crash_at_s[,recover_at_s]: the hospital's host goes down at crash_at_s (back at recover_at_s; empty: never)")
      .bind<double>("faults.crash_rate_per_hour", [](S& s) -> auto& { return s.faults.crash_rate_per_hour; }, "0",
                    "Crashes per hospital per simulated hour, at exponential intervals drawn from the seed (at most 3600)",
                    {.min = 0, .max = 3600})
      .bind<double>("faults.recovery_s", [](S& s) -> auto& { return s.faults.recovery_s; }, "0",
                    "Seconds a host stays down after a crash drawn from faults.crash_rate_per_hour (0: back at once, only the job is lost)",
                    {.min = 0})
      .bind<std::string>("faults.link_trace", [](S& s) -> auto& { return s.faults.link_trace; }, none,
                         "CSV hospital,time_s,bandwidth_factor[,latency_s]: from time_s on, the hospital's access links (<name>_up/_down) run at factor x their bandwidth")
      .bind<double>("faults.deadline_s", [](S& s) -> auto& { return s.faults.deadline_s; }, "0",
                    "An update not reported this many seconds after its round began is late and dropped (relays: the visits not done by then) (0: no deadline)",
                    {.min = 0})
      .bind<double>("faults.over_selection", [](S& s) -> auto& { return s.faults.over_selection; }, "0",
                    "Select (1 + this) x the hospitals a round wants and keep the first that report (Bonawitz et al. 2019)",
                    {.min = 0});

  k.group("output", "Where and what to write")
      .bind<std::string>("output.dir", [](S& s) -> auto& { return s.output.dir; }, none,
                         "Output directory (default: results/<name>)")
      .bind<bool>("output.trace", [](S& s) -> auto& { return s.output.trace; }, "true",
                  "Write trace.json (Chrome trace format)")
      .bind<bool>("output.global_test", [](S& s) -> auto& { return s.output.global_test; }, "true",
                  "Local models: also score each on every hospital's test split, weighted equally (FedSKD's 'global test'; N x N evaluations)")
      .bind<int>("output.eval_every", [](S& s) -> auto& { return s.output.eval_every; }, "1",
                 "Evaluate every k rounds (and the last)", {.min = 1})
      .bind<int>("output.checkpoint_every", [](S& s) -> auto& { return s.output.checkpoint_every; }, "0",
                 "Write checkpoint.bin every k rounds, for `fedgrid resume DIR` (0: never)", {.min = 0})
      .bind<bool>("output.site_metrics", [](S& s) -> auto& { return s.output.site_metrics; }, "false",
                  "Per-site figures (each hospital's model on its own test split): macro-F1, balanced accuracy and AUROC, "
                  "mean and worst site, as site_* columns of rounds.csv and final_site in summary.json; each "
                  "hospital's macro precision, recall, F1 and balanced accuracy in hospitals.csv");
  return k;
}

}  // namespace

const KeySet<Scenario>& core_keys() {
  static const KeySet<Scenario> keys = build();
  return keys;
}

std::vector<KeyDecl> core_key_declarations() { return core_keys().declarations(""); }

}  // namespace fedgrid
