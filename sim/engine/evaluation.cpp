#include "sim/engine/evaluation.hpp"

#include <chrono>
#include <cstdint>

#include "sim/core/input_error.hpp"
#include "sim/engine/world.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/evaluation/metrics.hpp"
#include "sim/jobs/evaluation/parallel_evaluation.hpp"

namespace fedgrid {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::optional<double> surrogate_accuracy(const World& world, int round) {
  return world.surrogate ? world.surrogate->at(round) : std::nullopt;
}

using TierModels = std::map<std::string, Model>;

// The model `tier`'s hospitals keep: their tier's own, else the global one.
const Model& model_of(const std::string& tier, const Model& global, const TierModels& tier_models) {
  auto it = tier_models.find(tier);
  return it == tier_models.end() ? global : it->second;
}

// The global test: each tier's model on every hospital's split, each weighted equally (one
// global model: the mean over the splits, already scored). jobs[t][j] = kOwn: hospital j's own
// score stands.
constexpr size_t kOwn = SIZE_MAX;
using GlobalTestJobs = std::map<std::string, std::vector<size_t>>;

GlobalTestJobs queue_global_test(ParallelEvaluation& ev, const World& world,
                                 const std::vector<EvaluatedHospital>& hospitals,
                                 const std::vector<std::string>& tiers, const Model& global,
                                 const TierModels& tier_models) {
  GlobalTestJobs cross;
  for (const auto& t : tiers) {
    if (!world.scenario.output.global_test && tier_models.count(t)) continue;
    auto& jobs = cross[t];
    const Model& m = model_of(t, global, tier_models);
    for (const auto& h : hospitals)
      jobs.push_back(&model_of(h.tier, global, tier_models) != &m
                         ? ev.add(m.spec, m.weights, world.data.train, &h.split->test)
                         : kOwn);
  }
  return cross;
}

// Each hospital's global-test figures: its tier's model, mean over every hospital's split.
void collect_global_test(ParallelEvaluation& ev, const GlobalTestJobs& cross,
                         const std::vector<EvaluatedHospital>& hospitals, Scores& sc) {
  const size_t n = hospitals.size();
  std::map<std::string, std::pair<std::vector<std::optional<double>>, std::vector<std::optional<double>>>> on_all;
  for (const auto& [t, jobs] : cross) {
    auto& [acc, auc] = on_all[t];
    for (size_t j = 0; j < n; ++j) {
      if (jobs[j] == kOwn) {
        acc.push_back(sc.accuracy_of[j]), auc.push_back(sc.auc_of[j]);
        continue;
      }
      EvalOutcome e = ev.get(jobs[j]);
      if (e.samples) acc.push_back(e.accuracy), auc.push_back(e.auc);
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (auto it = on_all.find(hospitals[i].tier); it != on_all.end())
      sc.global_accuracy_of[i] = mean_present(it->second.first), sc.global_auc_of[i] = mean_present(it->second.second);
}

}  // namespace

Evaluator::Evaluator(World& world, std::vector<EvaluatedHospital> hospitals, std::vector<std::string> tiers)
    : world_(world), hospitals_(std::move(hospitals)), tiers_(std::move(tiers)) {
  const auto& sc = world_.scenario;
  validates_ = sc.stop.patience > 0 && !sc.training.timing_only;
  if (!validates_) return;
  for (const auto& h : hospitals_) pooled_validation_.insert(pooled_validation_.end(), h.split->val.begin(), h.split->val.end());
  if (pooled_validation_.empty())
    throw sc.error_at("stop.patience", "no hospital has a validation sample to watch: raise data.split.val or the "
                                       "hospitals' data");
}

bool Evaluator::scores_round(int round, double now) const {
  const auto& sc = world_.scenario;
  const bool last = round >= sc.stop.rounds || (sc.stop.sim_time_budget_s && now >= *sc.stop.sim_time_budget_s);
  return last || round % sc.output.eval_every == 0;
}

Scores Evaluator::empty() const {
  Scores sc;
  const size_t n = hospitals_.size();
  sc.accuracy_of.resize(n), sc.auc_of.resize(n), sc.global_accuracy_of.resize(n), sc.global_auc_of.resize(n);
  sc.confusion_of.resize(n);
  return sc;
}

Scores Evaluator::global(int round, double now, const Model& global, const std::map<std::string, Model>& tier_models) {
  Scores sc = empty();
  const size_t n = hospitals_.size();
  if (world_.scenario.training.timing_only) {
    sc.accuracy = surrogate_accuracy(world_, round);
    for (const auto& t : tiers_) sc.tier_model_accuracy[t] = tier_models.count(t) ? std::nullopt : sc.accuracy;
  } else if (scores_round(round, now)) {
    const auto t0 = std::chrono::steady_clock::now();
    // Everything is queued before anything is awaited, so every worker has batches to score.
    ParallelEvaluation ev(*world_.executor, world_.device, world_.training->exchange());
    auto on_test_set = [&](const Model& m) { return ev.add(m.spec, m.weights, world_.data.test, nullptr); };
    const size_t global_eval = on_test_set(global);
    const size_t validation = validates_ ? ev.add(global.spec, global.weights, world_.data.train, &pooled_validation_) : 0;
    // A tier holding the global model itself (HeteroFL's full-width tier) is scored once.
    auto is_global = [&](const Model& m) { return m.spec == global.spec && m.weights == global.weights; };
    std::map<std::string, size_t> tier_evals;
    for (const auto& t : tiers_)
      if (tier_models.count(t) && !is_global(tier_models.at(t))) tier_evals.emplace(t, on_test_set(tier_models.at(t)));
    std::vector<size_t> local;
    for (const auto& h : hospitals_) {
      const Model& m = model_of(h.tier, global, tier_models);
      local.push_back(ev.add(m.spec, m.weights, world_.data.train, &h.split->test));
    }
    const GlobalTestJobs cross = queue_global_test(ev, world_, hospitals_, tiers_, global, tier_models);
    EvalOutcome g = ev.get(global_eval);
    sc.accuracy = g.accuracy, sc.loss = g.loss, sc.auc = g.auc;
    sc.confusion = std::move(g.confusion);
    if (validates_) {
      const EvalOutcome v = ev.get(validation);
      sc.val_accuracy = v.accuracy, sc.val_loss = v.loss;
    }
    for (const auto& t : tiers_)
      sc.tier_model_accuracy[t] = tier_evals.count(t) ? ev.get(tier_evals.at(t)).accuracy : g.accuracy;
    for (size_t i = 0; i < n; ++i) {
      EvalOutcome e = ev.get(local[i]);
      if (e.samples) sc.accuracy_of[i] = e.accuracy, sc.auc_of[i] = e.auc, sc.confusion_of[i] = std::move(e.confusion);
    }
    collect_global_test(ev, cross, hospitals_, sc);
    release_cached_blocks();
    world_.perf.evaluation_s += seconds_since(t0);
  }
  return sc;
}

Scores Evaluator::local(int round, double now, const std::vector<Model>& local_models) {
  Scores sc = empty();
  const size_t n = hospitals_.size();
  if (world_.scenario.training.timing_only) {
    sc.accuracy = surrogate_accuracy(world_, round);
  } else if (scores_round(round, now)) {
    const auto t0 = std::chrono::steady_clock::now();
    // jobs[i][j]: hospital i's model on hospital j's test split (only j = i without global_test).
    const bool cross = world_.scenario.output.global_test;
    ParallelEvaluation ev(*world_.executor, world_.device, world_.training->exchange());
    std::vector<std::vector<size_t>> jobs(n);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (cross || i == j)
          jobs[i].push_back(
              ev.add(local_models[i].spec, local_models[i].weights, world_.data.train, &hospitals_[j].split->test));
    // Early stopping: each model on its own validation split (none queued for an empty one).
    std::vector<std::optional<size_t>> validation(n);
    for (size_t i = 0; i < n && validates_; ++i)
      if (!hospitals_[i].split->val.empty())
        validation[i] = ev.add(local_models[i].spec, local_models[i].weights, world_.data.train, &hospitals_[i].split->val);
    std::vector<std::optional<double>> losses(n);
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::optional<double>> acc_on, auc_on;
      for (size_t k = 0; k < jobs[i].size(); ++k) {
        EvalOutcome e = ev.get(jobs[i][k]);
        if (!e.samples) continue;
        acc_on.push_back(e.accuracy), auc_on.push_back(e.auc);
        if (cross && k != i) continue;  // the rest is the global test
        if (sc.confusion.empty()) sc.confusion.assign(e.confusion.size(), 0);
        for (size_t c = 0; c < sc.confusion.size(); ++c) sc.confusion[c] += e.confusion[c];
        sc.accuracy_of[i] = e.accuracy, sc.auc_of[i] = e.auc, losses[i] = e.loss;
        sc.confusion_of[i] = e.confusion;
      }
      if (cross) sc.global_accuracy_of[i] = mean_present(acc_on), sc.global_auc_of[i] = mean_present(auc_on);
    }
    sc.accuracy = mean_present(sc.accuracy_of), sc.loss = mean_present(losses), sc.auc = mean_present(sc.auc_of);
    if (validates_) {
      std::vector<std::optional<double>> val_accuracy(n), val_loss(n);
      for (size_t i = 0; i < n; ++i)
        if (validation[i]) {
          const EvalOutcome v = ev.get(*validation[i]);
          val_accuracy[i] = v.accuracy, val_loss[i] = v.loss;
        }
      sc.val_accuracy = mean_present(val_accuracy), sc.val_loss = mean_present(val_loss);
    }
    release_cached_blocks();
    world_.perf.evaluation_s += seconds_since(t0);
  }
  return sc;
}

}  // namespace fedgrid
