#include "sim/engine/evaluation.hpp"

#include <chrono>
#include <future>

#include "sim/engine/world.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/metrics.hpp"

namespace fedgrid {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::optional<double> surrogate_accuracy(const World& world, int round) {
  return world.surrogate ? world.surrogate->at(round) : std::nullopt;
}

}  // namespace

Evaluator::Evaluator(World& world, std::vector<EvaluatedHospital> hospitals, std::vector<std::string> tiers)
    : world_(world), hospitals_(std::move(hospitals)), tiers_(std::move(tiers)) {}

bool Evaluator::scores_round(int round, double now) const {
  const auto& sc = world_.scenario;
  const bool last = round >= sc.stop.rounds || (sc.stop.sim_time_budget_s && now >= *sc.stop.sim_time_budget_s);
  return last || round % sc.output.eval_every == 0;
}

Scores Evaluator::empty() const {
  Scores sc;
  const size_t n = hospitals_.size();
  sc.accuracy_of.resize(n), sc.auc_of.resize(n), sc.global_accuracy_of.resize(n), sc.global_auc_of.resize(n);
  return sc;
}

Scores Evaluator::global(int round, double now, const Model& global, const std::map<std::string, Model>& tier_models) {
  Scores sc = empty();
  const size_t n = hospitals_.size();
  auto model_of = [&](const std::string& tier) -> const Model& {
    auto it = tier_models.find(tier);
    return it == tier_models.end() ? global : it->second;
  };
  if (world_.scenario.training.timing_only) {
    sc.accuracy = surrogate_accuracy(world_, round);
    for (const auto& t : tiers_) sc.tier_model_accuracy[t] = tier_models.count(t) ? std::nullopt : sc.accuracy;
  } else if (scores_round(round, now)) {
    const auto t0 = std::chrono::steady_clock::now();
    auto& ex = *world_.executor;
    auto on_test_set = [&](const Model& m) {
      return ex.submit([&] { return run_evaluation(m.spec, m.weights, world_.data.test, nullptr, world_.device); });
    };
    auto global_eval = on_test_set(global);
    // A tier holding the global model itself (HeteroFL's full-width tier) is scored once.
    auto is_global = [&](const Model& m) { return m.spec == global.spec && m.weights == global.weights; };
    std::map<std::string, std::future<EvalOutcome>> tier_evals;
    for (const auto& t : tiers_)
      if (tier_models.count(t) && !is_global(tier_models.at(t))) tier_evals.emplace(t, on_test_set(tier_models.at(t)));
    std::vector<std::future<EvalOutcome>> local;
    for (const auto& h : hospitals_)
      local.push_back(ex.submit([&, split = h.split, m = &model_of(h.tier)] {
        return run_evaluation(m->spec, m->weights, world_.data.train, &split->test, world_.device);
      }));
    EvalOutcome g = global_eval.get();
    sc.accuracy = g.accuracy, sc.loss = g.loss, sc.auc = g.auc;
    sc.confusion = std::move(g.confusion);
    for (const auto& t : tiers_)
      sc.tier_model_accuracy[t] = tier_evals.count(t) ? tier_evals.at(t).get().accuracy : g.accuracy;
    for (size_t i = 0; i < n; ++i) {
      EvalOutcome e = local[i].get();
      if (e.samples) sc.accuracy_of[i] = e.accuracy, sc.auc_of[i] = e.auc;
    }
    // The global test: each tier's model on every hospital's split, each weighted equally (one
    // global model: the mean over the splits, already scored).
    std::map<std::string, std::pair<std::vector<std::optional<double>>, std::vector<std::optional<double>>>> on_all;
    for (const auto& t : tiers_) {
      if (!world_.scenario.output.global_test && tier_models.count(t)) continue;
      auto& [acc, auc] = on_all[t];
      std::vector<std::future<EvalOutcome>> cross(n);
      const Model& m = model_of(t);
      for (size_t j = 0; j < n; ++j)
        if (&model_of(hospitals_[j].tier) != &m)
          cross[j] = ex.submit([&, split = hospitals_[j].split] {
            return run_evaluation(m.spec, m.weights, world_.data.train, &split->test, world_.device);
          });
      for (size_t j = 0; j < n; ++j) {
        if (!cross[j].valid()) {
          acc.push_back(sc.accuracy_of[j]), auc.push_back(sc.auc_of[j]);
          continue;
        }
        EvalOutcome e = cross[j].get();
        if (e.samples) acc.push_back(e.accuracy), auc.push_back(e.auc);
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (auto it = on_all.find(hospitals_[i].tier); it != on_all.end())
        sc.global_accuracy_of[i] = mean_present(it->second.first), sc.global_auc_of[i] = mean_present(it->second.second);
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
    std::vector<std::vector<std::future<EvalOutcome>>> jobs(n);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (cross || i == j)
          jobs[i].push_back(world_.executor->submit([&, i, j] {
            return run_evaluation(local_models[i].spec, local_models[i].weights, world_.data.train,
                                  &hospitals_[j].split->test, world_.device);
          }));
    std::vector<std::optional<double>> losses(n);
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::optional<double>> acc_on, auc_on;
      for (size_t k = 0; k < jobs[i].size(); ++k) {
        EvalOutcome e = jobs[i][k].get();
        if (!e.samples) continue;
        acc_on.push_back(e.accuracy), auc_on.push_back(e.auc);
        if (cross && k != i) continue;  // the rest is the global test
        if (sc.confusion.empty()) sc.confusion.assign(e.confusion.size(), 0);
        for (size_t c = 0; c < sc.confusion.size(); ++c) sc.confusion[c] += e.confusion[c];
        sc.accuracy_of[i] = e.accuracy, sc.auc_of[i] = e.auc, losses[i] = e.loss;
      }
      if (cross) sc.global_accuracy_of[i] = mean_present(acc_on), sc.global_auc_of[i] = mean_present(auc_on);
    }
    sc.accuracy = mean_present(sc.accuracy_of), sc.loss = mean_present(losses), sc.auc = mean_present(sc.auc_of);
    world_.perf.evaluation_s += seconds_since(t0);
  }
  return sc;
}

}  // namespace fedgrid
