#include "algorithms/asynchronous.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "data/rng.hpp"

namespace fedgrid::algorithms {

const KeySet<AsyncSettings>& async_keys() {
  using S = AsyncSettings;
  static const auto keys =
      KeySet<S>()
          .add("concurrency", &S::concurrency, "0",
               "fedasync, fedbuff: most hospitals training at once (0: every hospital); the next is drawn "
               "uniformly among the idle ones",
               {.min = 0})
          .mode("staleness", &S::staleness, "polynomial",
                "fedasync, fedbuff: staleness function s(d): constant (1) | polynomial ((d+1)^-a) | hinge (1 if d <= "
                "b, else 1/(a(d-b)+1))")
          .add("staleness_a", &S::staleness_a, "0.5", "fedasync, fedbuff: a of the polynomial and hinge functions",
               {.min = 0})
          .add("staleness_b", &S::staleness_b, "4", "fedasync, fedbuff: b of the hinge function", {.min = 0});
  return keys;
}

std::string asynchronous_cannot_checkpoint(const Scenario&) {
  return "hospitals train on models of different versions at every instant, so there is no point with nothing "
         "under way to resume from";
}

double staleness_weight(StalenessFunction function, double d, double a, double b) {
  switch (function) {
    case StalenessFunction::Constant: return 1;
    case StalenessFunction::Polynomial: return std::pow(d + 1, -a);
    case StalenessFunction::Hinge: break;
  }
  return d <= b ? 1 : 1 / (a * (d - b) + 1);
}

AsyncScheduler::AsyncScheduler(Federation& fed, int concurrency) : fed_(fed) {
  const size_t n = fed.hospitals().size();
  concurrency_ = concurrency <= 0 ? n : std::min(size_t(concurrency), n);
}

std::vector<Hospital*> AsyncScheduler::first() {
  auto all = fed_.hospitals();
  if (concurrency_ == all.size()) return all;
  Rng(mix_seed(fed_.scenario().seed, kDispatchStream, draws_++)).shuffle(all);
  all.resize(concurrency_);
  std::sort(all.begin(), all.end(), [](auto* a, auto* b) { return a->id() < b->id(); });
  return all;
}

Hospital& AsyncScheduler::next(const std::vector<Hospital*>& idle) {
  if (idle.empty()) throw std::logic_error("AsyncScheduler::next: no idle hospital");
  return *idle[Rng(mix_seed(fed_.scenario().seed, kDispatchStream, draws_++)).below(idle.size())];
}

}  // namespace fedgrid::algorithms
