// data.*: its keys and its cross-key rules.
#include <cmath>
#include <initializer_list>

#include "sim/scenario/sections/parts.hpp"

namespace fedgrid::sections {
namespace {

KeySet<DataTask> data_task_keys() {
  using D = DataTask;
  return KeySet<D>()
      .add("dataset", &D::dataset, none, "This task's dataset (as data.dataset)", {.required = true})
      .add("classes", &D::classes, none,
           "Original labels kept, in order (default: all); they become labels offset.. of the unified space", {.min = 0})
      .add("train_samples", &D::train_samples, none,
           "Keep only the first N training samples of this task (after the class filter), as UniFed's code keeps 8,000",
           {.min = 1})
      .add("class_counts", &D::class_counts, none,
           "Keep only the first n_c training samples of each kept class, one count per class in the order of classes "
           "(of every class when classes is not given), e.g. Derm7pt's class sizes; not with train_samples",
           {.min = 0})
      .add("hospitals", &D::hospitals, none, "Number of hospitals holding this task", {.min = 1, .required = true});
}

// data.dataset, data.partition.*, data.split.*.
void pool_keys(Keys& k) {
  using S = Scenario;
  k.group("data", "Dataset, partition and splits")
      .bind<std::string>("data.dataset", [](S& s) -> auto& { return s.data.dataset; }, "fashion-mnist",
                         "synthetic | fashion-mnist | idx:<dir> | npz:<MedMNIST .npz file>")
      .group("data.partition", "How the training pool is dealt to hospitals");
  k.bind_mode<data::PartitionScheme>("data.partition.scheme", [](S& s) -> auto& { return s.data.partition_scheme; },
                                     "iid",
                                     "iid | dirichlet | shards | balanced (equal count of every class per hospital) | "
                                     "counts (each hospital's count of each class: data.partition.counts)")
      .bind<double>("data.partition.beta", [](S& s) -> auto& { return s.data.beta; }, "0.5",
                    "dirichlet: label-skew concentration (smaller = more skewed)", {.min = 0, .min_exclusive = true})
      .bind<int>("data.partition.classes_per_hospital", [](S& s) -> auto& { return s.data.classes_per_hospital; }, "2",
                 "shards: classes per hospital", {.min = 1})
      .bind<int64_t>("data.partition.min_samples", [](S& s) -> auto& { return s.data.min_samples; }, "10",
                     "dirichlet: redraw until every hospital holds this many", {.min = 0})
      .bind<std::vector<std::vector<int>>>(
          "data.partition.counts", [](S& s) -> auto& { return s.data.partition_counts; }, none,
          "counts: a row per hospital (in hospital order), a column per class (of the unified label space with "
          "data.tasks), e.g. [[76, 96], [128, 116]]: each class's samples are shuffled from the seed and dealt in "
          "these counts; samples beyond a class's total are dealt to no one",
          {.min = 0})
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
                 {.min = 1});
}

// data.tasks, data.label_map, data.resize, data.server_share.
void task_keys(Keys& k) {
  using S = Scenario;
  k.bind_list<DataTask>("data.tasks", [](S& s) -> auto& { return s.data.tasks; },
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
                    {.min = 0, .max = 0.5});
}

// data.site_shift.*: each hospital's own image transformation.
void site_shift_keys(Keys& k) {
  using S = Scenario;
  k.group("data.site_shift",
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
}

// data.augment.*: random augmentation of training batches (sim/jobs/training/augmentation.hpp). A map
// of one key per augmentation rather than a list of names: each strength is a number of its own
// with its own range, default and line in error messages, and writing a strength turns it on.
void augment_keys(Keys& k) {
  using S = Scenario;
  k.group("data.augment",
          "Random augmentation of every training batch, as FedSKD's experiments augment every method's data "
          "(flip, rotation, translation, scaling), e.g. data.augment: {flip: true, rotate_deg: 15, translate: 0.1, "
          "scale_min: 0.9, scale_max: 1.1}. One affine transform per sample and epoch (bilinear, zero outside the "
          "image), drawn from the seed, the hospital, the round, the epoch and the sample, so runs stay byte-identical "
          "for any workers or threads; validation and test samples are never augmented. Images only (refused for "
          "inputs with a side of 1); fused jobs augment each member's batches as its own job would; costs no "
          "simulated FLOPs; off when every key is at "
          "its default")
      .bind<bool>("data.augment.flip", [](S& s) -> auto& { return s.data.augment.flip; }, "false",
                  "Flip each image left-right with probability 1/2")
      .bind<double>("data.augment.rotate_deg", [](S& s) -> auto& { return s.data.augment.rotate_deg; }, "0",
                    "Rotate about the centre by an angle uniform in [-rotate_deg, rotate_deg] degrees",
                    {.min = 0, .max = 180})
      .bind<double>("data.augment.translate", [](S& s) -> auto& { return s.data.augment.translate; }, "0",
                    "Shift along each axis by a share of that side uniform in [-translate, translate]",
                    {.min = 0, .max = 1})
      .bind<double>("data.augment.scale_min", [](S& s) -> auto& { return s.data.augment.scale_min; }, "1",
                    "Zoom by a factor uniform in [scale_min, scale_max] (> 1 enlarges)", {.min = 0, .min_exclusive = true})
      .bind<double>("data.augment.scale_max", [](S& s) -> auto& { return s.data.augment.scale_max; }, "1",
                    "The zoom's upper end (at least scale_min)", {.min = 0, .min_exclusive = true});
}

// data.samples_per_hospital (timing-only) and data.synthetic.*.
void synthetic_keys(Keys& k) {
  using S = Scenario;
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
}

}  // namespace

void data_keys(Keys& k) {
  pool_keys(k);
  task_keys(k);
  site_shift_keys(k);
  augment_keys(k);
  synthetic_keys(k);
}

bool known_dataset(const std::string& ds) {
  return ds == "synthetic" || ds == "fashion-mnist" || ds.rfind("idx:", 0) == 0 || ds.rfind("npz:", 0) == 0;
}
std::string unknown_dataset(const std::string& ds) {
  return "unknown dataset '" + ds + "' (synthetic | fashion-mnist | idx:<dir> | npz:<file>)";
}

Rules data_split_rules() {
  using S = const Scenario&;
  return {
      // The folds decide the train and test shares; a share given too would be silently ignored.
      {{"data.split.train", "data.split.folds"},
       [](S s) { return s.data.split_folds > 0 && given(s, "data.split.train"); },
       says("not used with data.split.folds (the folds decide the train and test shares; data.split.val's share of "
            "the rest is validation)")},
      {{"data.split.test", "data.split.folds"},
       [](S s) { return s.data.split_folds > 0 && given(s, "data.split.test"); },
       says("not used with data.split.folds (the folds decide the train and test shares; data.split.val's share of "
            "the rest is validation)")},
      {{"data.split.folds"}, [](S s) { return s.data.split_folds == 1; },
       says("must be at least 2 (or 0: no cross-validation)")},
      {{"data.split.fold", "data.split.folds"},
       [](S s) { return s.data.split_folds >= 2 && s.data.split_fold > s.data.split_folds; },
       [](S s) {
         return "must be within 1.." + std::to_string(s.data.split_folds) + ", got " + std::to_string(s.data.split_fold);
       }},
      {{"data.split.val", "data.split.folds"}, [](S s) { return s.data.split_folds > 0 && s.data.split_val >= 1; },
       says("must be < 1 with data.split.folds")},
      {{"data.split", "data.split.train", "data.split.val", "data.split.test"},
       [](S s) {
         return s.data.split_folds == 0 && std::abs(s.data.split_train + s.data.split_val + s.data.split_test - 1.0) > 1e-6;
       },
       [](S s) {
         return "train + val + test must be 1, got " +
                std::to_string(s.data.split_train + s.data.split_val + s.data.split_test);
       }},
      {{"data.split.train"}, [](S s) { return s.data.split_train <= 0; }, says("must be > 0")},
  };
}

Rules data_pool_rules() {
  using S = const Scenario&;
  return {
      {{"data.dataset"}, [](S s) { return !known_dataset(s.data.dataset); },
       [](S s) { return unknown_dataset(s.data.dataset); }},
      {{"data.label_map", "data.tasks"}, [](S s) { return !s.data.label_map.empty() && !s.data.tasks.empty(); },
       says("relabels data.dataset; with data.tasks each task's classes key selects its labels")},
      // data.partition.counts is the counts scheme's whole input: one without the other would either
      // fail later for want of rows or be silently ignored.
      {{"data.partition.scheme", "data.partition.counts"},
       [](S s) { return s.data.partition_scheme == data::PartitionScheme::Counts && s.data.partition_counts.empty(); },
       says("counts needs data.partition.counts: a row per hospital, a column per class, e.g. [[76, 96], [128, 116]]")},
      {{"data.partition.counts", "data.partition.scheme"},
       [](S s) { return s.data.partition_scheme != data::PartitionScheme::Counts && !s.data.partition_counts.empty(); },
       says("used only with data.partition.scheme: counts")},
      {{"data.augment.scale_min", "data.augment.scale_max"},
       [](S s) { return s.data.augment.scale_min > s.data.augment.scale_max; },
       [](S s) {
         return "must not exceed data.augment.scale_max (" + std::to_string(s.data.augment.scale_max) +
                "): the zoom is drawn from [scale_min, scale_max]";
       }},
  };
}

Rules data_timing_only_rules() {
  using S = const Scenario&;
  return {
      {{"data.samples_per_hospital", "training.mode"},
       [](S s) { return s.data.samples_per_hospital.has_value() && !s.training.timing_only; }, says(kTimingOnly)},
  };
}

}  // namespace fedgrid::sections
