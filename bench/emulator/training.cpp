#include "bench/emulator/training.hpp"

#include <ATen/Parallel.h>

#include "algorithms/aggregation.hpp"
#include "data/rng.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::emulator {
namespace {

JobInput job_input(const Options& o, const Model& model, const data::Dataset& d, const data::Indices& train,
                   const data::Indices& validation, uint64_t seed) {
  return {&model, &d, &train, &validation, o.batch_size, 0, {Optimizer::Sgd, o.lr, 0.9, 0}, seed, ComputeDevice::Cpu};
}

}  // namespace

void init_torch_threads() {
  init_torch_worker(1);
  try {
    at::set_num_interop_threads(1);
  } catch (const std::exception&) {
    // Only possible before the inter-op pool starts; nothing here uses it before this call.
  }
}

std::vector<float> initial_model(const Options& o) {
  return initial_weights(o.spec, mix_seed(o.seed, seed_streams::kModelInit));
}

std::vector<float> average(const Options& o, std::vector<std::vector<float>> models, const std::vector<int64_t>& samples) {
  std::vector<Update> updates;
  for (size_t i = 0; i < models.size(); ++i)
    updates.push_back({int(i), Model{o.spec, std::move(models[i])}, samples[i], o.epochs, 0.0, {}, {}});
  return algorithms::weighted_average(updates).weights;
}

double average_flops(const Options& o, size_t models) {
  const Model shape = shape_only_model(o.spec, models::model_cost(o.spec).state_values);
  return algorithms::weighted_average_flops(std::vector<Update>(models, Update{0, shape, 1, o.epochs, 0.0, {}, {}}));
}

LocalTrainer::LocalTrainer(const Options& o, int hospital) : o_(o), hospital_(hospital) {
  const auto& spec = o.spec;
  const int64_t n = o.hospitals[size_t(hospital)].samples;
  data_.name = "emulator-random";
  data_.shape = {spec.channels, spec.height, spec.width};
  data_.num_classes = spec.num_classes;
  Rng rng(mix_seed(o.seed, seed_streams::kSynthetic, uint64_t(hospital + 1)));
  data_.images.resize(size_t(n * data_.shape.pixels()));
  for (auto& v : data_.images) v = float(rng.normal());
  for (int64_t i = 0; i < n; ++i) data_.labels.push_back(int64_t(rng.below(uint64_t(spec.num_classes))));
  for (int64_t i = 0; i < n; ++i) all_.push_back(i);

  // The warm-up is one epoch over all the samples: it meets every batch shape (the first
  // batch of a shape sets up its kernels) and grows the heap to its steady size. Warming up
  // on two batches left round 1 ~20% slower than the rounds after it (measured).
  const Model start{spec, initial_model(o)};
  const data::Indices none;
  PlainTraining(1).run(job_input(o, start, data_, all_, none, 0));
}

TrainResult LocalTrainer::train(const std::vector<float>& weights, int round) {
  // The job's shuffling stream, as fedgrid derives it: (seed, train, hospital + 1, round).
  return run(weights, mix_seed(o_.seed, seed_streams::kTrain, uint64_t(hospital_ + 1), uint64_t(round)));
}

TrainResult LocalTrainer::train_job(const std::vector<float>& weights, uint64_t job) {
  return run(weights, mix_seed(o_.seed, seed_streams::kAsyncTrain, uint64_t(hospital_ + 1), job));
}

TrainResult LocalTrainer::run(const std::vector<float>& weights, uint64_t seed) {
  const Model model{o_.spec, weights};
  const data::Indices none;
  TrainOutcome out = PlainTraining(o_.epochs).run(job_input(o_, model, data_, all_, none, seed));
  return {std::move(out.weights), out.mean_loss, out.steps};
}

double LocalTrainer::flops() const {
  return PlainTraining(o_.epochs).cost({o_.spec, int64_t(all_.size()), 0, o_.batch_size, 0}, nullptr).flops;
}

int64_t LocalTrainer::steps() const {
  return int64_t(batch_plan(int64_t(all_.size()), o_.batch_size, o_.epochs, 0, models::batchnorm_on_1x1(o_.spec)).size());
}

}  // namespace fedgrid::emulator
