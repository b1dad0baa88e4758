#pragma once
// A compute profile: seconds per training step and per evaluation sample, measured on real
// machines by `fedgrid calibrate` (sim/cli/calibrate.cpp), one row per (device, model, batch
// size). `timing.compute: profile` charges every job from it instead of from FLOPs: a hospital
// names the device it runs on and a speed factor (seconds = profiled seconds / factor).
// Torch-free; the measuring side is sim/jobs/calibration/step_timer.hpp.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid {

// The machine a profile was measured on: the header of the file.
struct ProfileMachine {
  std::string cpu, libtorch, compute_device;
  int cores = 0;
  std::string conditions;  // what ran beside the measurement (processes, CPU quotas) and which statistic
};

struct ProfileRow {
  std::string device;  // the name hospitals use in profile_device
  models::ModelSpec spec;
  int64_t batch_size = 0;
  int threads = 1;
  double train_step_s = 0, train_step_min_s = 0;      // median and minimum of the repeats
  double eval_sample_s = 0, eval_sample_min_s = 0;    // forward only, eval mode, per sample
  int repeats = 0;
  double spread = 0;  // (median - min) / median of the training step
  std::string file;
  int line = 0;
};

// "1x28x28" for a spec's input shape, and back: false (spec untouched) unless `text` is CxHxW
// with positive sides.
std::string input_shape(const models::ModelSpec& spec);
bool parse_input_shape(const std::string& text, models::ModelSpec& spec);

// The CSV columns, in order (`fedgrid calibrate` writes them; the reader wants them all).
extern const char* const kProfileColumns[13];

// Writes the header (machine lines as '#' comments, then the column names) and the rows.
std::string profile_csv(const ProfileMachine& machine, const std::vector<ProfileRow>& rows);

class ComputeProfile {
 public:
  // A profile CSV, or a folder whose *.csv files are read in name order (one per machine, as a
  // user collects them). Throws InputError naming the file, line and column of a bad cell, and
  // `key` (the scenario key that named it) when the path does not exist or holds no rows.
  static ComputeProfile load(const std::string& path, const std::string& key);

  bool has_device(const std::string& device) const;
  std::string devices() const;  // "a, b" for messages
  // Whether some batch size of `spec` was measured on `device`.
  bool has_model(const std::string& device, const models::ModelSpec& spec) const;
  // Throws the InputError train_step_s would when `device` has no row of `spec`.
  void require_model(const std::string& device, const models::ModelSpec& spec) const { rows_of(device, spec); }

  // Seconds of one training step of `batch` samples. A measured batch size is charged as
  // measured; one between two measured sizes interpolates linearly; one outside them scales the
  // nearest measured size's time per sample. Throws InputError (the profile's path, `key`)
  // when `device` has no row of `spec`.
  double train_step_s(const std::string& device, const models::ModelSpec& spec, int64_t batch) const;
  // Seconds to evaluate `samples` samples (per-sample time of the largest measured batch size).
  double eval_s(const std::string& device, const models::ModelSpec& spec, int64_t samples) const;

  const std::string& path() const { return path_; }

 private:
  const std::map<int64_t, size_t>& rows_of(const std::string& device, const models::ModelSpec& spec) const;
  std::string path_, key_;
  std::vector<ProfileRow> rows_;
  // (device, model with its input) -> batch size -> index into rows_
  std::map<std::pair<std::string, std::string>, std::map<int64_t, size_t>> index_;
};

}  // namespace fedgrid
