#pragma once
// Everything a run is made of, built once before the simulation starts: the scenario, the
// simulated platform, the dataset and its partition, the model, the compute executor.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/partition.hpp"
#include "data/sources.hpp"
#include "models/model_spec.hpp"
#include "platforms/tier_catalog.hpp"
#include "platforms/topology.hpp"
#include "sim/jobs/busy_clock.hpp"
#include "sim/jobs/executor.hpp"
#include "sim/jobs/training_queue.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/engine/surrogate.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/calibration/compute_profile.hpp"

namespace fedgrid {

// Wall-clock figures for perf.json (never part of the deterministic outputs).
struct PerfCounters {
  double setup_s = 0;          // data loading, partitioning, platform, model init
  double wait_training_s = 0;  // simulation blocked on training jobs
  double evaluation_s = 0;     // evaluation jobs
  double output_s = 0;         // writing output files
  int workers = 1, threads_per_worker = 1;
  double training_flops = 0;   // the charged FLOPs of every training job run for real
  int64_t jobs_run_at_aggregation = 0;  // train_later jobs: run as the server's average reached them
  BusyClock training_busy;     // wall time with at least one training job running
};

struct World {
  Scenario scenario;
  platforms::TierCatalog catalog;
  platforms::PlatformHosts platform;
  data::TrainTest data;
  std::vector<data::HospitalSplit> splits;  // by hospital id
  data::HospitalSplit server_split;         // data.server_share of the pool (empty at 0)
  models::ModelSpec spec;
  models::ModelCost cost;
  std::vector<float> initial_weights;  // empty in timing-only runs
  std::map<std::string, models::ModelSpec> tier_specs;  // model.<tier>, by tier
  // Every hospital's own model (Federation::hospital_spec), by hospital id.
  std::vector<models::ModelSpec> hospital_specs;
  // Initial weights of every other model in play (tier and hospital models), by spec_label.
  std::map<std::string, std::vector<float>> other_initial_weights;
  const std::vector<float>& initial_weights_of(const models::ModelSpec& s) const {
    return s == spec ? initial_weights : other_initial_weights.at(models::spec_label(s));
  }
  ComputeDevice device = ComputeDevice::Cpu;
  std::optional<AccuracyCurve> surrogate;  // timing-only: training.surrogate
  std::optional<ComputeProfile> profile;   // timing.compute: profile
  std::unique_ptr<Executor> executor;
  std::unique_ptr<TrainingQueue> training;  // training jobs go through it to the executor (training.fuse)
  PerfCounters perf;
  // Columns the algorithm adds to rounds.csv and hospitals.csv (RunOptions).
  std::vector<std::string> round_columns, hospital_columns;

  // Timing-only runs: each hospital's training samples as the scenario sets them (vary.samples,
  // the roster's samples column, data.samples_per_hospital); empty: the partition decides.
  std::vector<int64_t> sample_counts;
  // Hospital h's training samples: its count, or its split's.
  int64_t train_samples(size_t h) const {
    return sample_counts.empty() ? int64_t(splits[h].train.size()) : sample_counts[h];
  }
};

}  // namespace fedgrid
