// FedAsync. C. Xie, S. Koyejo, I. Gupta, "Asynchronous Federated Optimization", 2019
// (arXiv:1903.03934), Algorithm 1.
//
// No rounds: the scheduler triggers hospitals, each downloads the latest model x_t with its
// time stamp t, trains, and pushes (x_new, tau = t) back; the updater mixes every push the
// moment it arrives:
//
//   alpha_t = alpha s(t - tau)                      (s: constant, polynomial or hinge)
//   x_t     = (1 - alpha_t) x_{t-1} + alpha_t x_new
//
// Decisions where Algorithm 1 leaves room:
//  1. A round of fedgrid is one updater epoch: each mix makes x_t and is reported by end_round
//     with the simulated time it was made. Every activity counts toward the round in which it
//     ends; hospitals.csv's staleness is the push's, in the round it was mixed.
//  2. Staleness: t - tau as the paper writes it, t being the epoch the mix makes, so a push
//     from the latest model (tau = t - 1) has t - tau = 1. hospitals.csv's `staleness` counts
//     the versions made between the one trained on and the one mixed into: t - tau - 1.
//  3. The scheduler (asynchronous.hpp): algorithm.concurrency hospitals train at once (0, the
//     default: all); whenever the updater has mixed a push, the next hospital is drawn
//     uniformly among the idle ones, so with every hospital at once each starts again at once.
//  4. Pushes that arrive at the same simulated instant are mixed in hospital-id order (the
//     engine's Arrivals); one at a time, each after the server's mixing work of the previous.
//  5. The worker's regularised objective f(z) + (rho/2)||z - x_tau||^2 is FedProx's proximal
//     term (fedprox.cpp) with mu = rho (algorithm.rho, default 0: plain local training). Its
//     H local iterations are training.local_epochs (or training.local_steps) with the
//     scenario's optimiser.
//  6. The mix is element-wise over the whole state (batch-norm statistics included), in double,
//     stored as float32; the server is charged 3 FLOPs per value (two multiplies, one add).
//  7. alpha must be > 0 (alpha 0 never moves the model): its own key's bound (unifed's alpha,
//     another key of the same name, allows 0).
//  8. When the run stops (stop.rounds, target accuracy, time budget) the jobs under way are
//     dropped: the run's figures are those of the last mix reported.
//  9. Faults (faults.*): a job cut by a crash or the end of its hospital's availability brings
//     nothing; the scheduler starts another (a job on a hospital that is down waits until it
//     is back; one that will never be back is not chosen). Per-round draws, deadlines and
//     over-selection have no round to act on here and are refused.
#include <memory>
#include <stdexcept>
#include <vector>

#include "algorithms/asynchronous.hpp"
#include "algorithms/registry.hpp"
#include "sim/core/input_error.hpp"
#include "algorithms/proximal.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {

// One mix of the updater on plain values: (1 - alpha_t) x + alpha_t x_new, in double (free, out
// of the anonymous namespace, so that tests/test_async.cpp can check it by hand).
std::vector<float> fedasync_mix(const std::vector<float>& x, const std::vector<float>& x_new, double alpha_t) {
  if (x.size() != x_new.size()) throw std::logic_error("fedasync_mix: the models differ in size");
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = float((1 - alpha_t) * double(x[i]) + alpha_t * double(x_new[i]));
  return out;
}

namespace {

struct FedAsyncSettings {
  double alpha = 0.7, rho = 0;
};
const KeySet<FedAsyncSettings>& fedasync_keys() {
  static const auto keys =
      KeySet<FedAsyncSettings>()
          // Its own alpha, not unifed's (which may be 0): alpha 0 would never mix anything in.
          .add("alpha", &FedAsyncSettings::alpha, "0.7", "fedasync: alpha of alpha_t = alpha s(t - tau)",
               {.min = 0, .max = 1, .min_exclusive = true})
          .add("rho", &FedAsyncSettings::rho, "0",
               "fedasync: weight of the worker's proximal term (rho/2)||z - x_tau||^2 (0: plain local training)",
               {.min = 0});
  return keys;
}

// What a worker pushes: its model and the time stamp of the model it started from.
struct Push {
  Model model;
  int tau = 0;
};

class FedAsync : public Algorithm {
 public:
  void run(Federation& fed) override {
    const FedAsyncSettings s = fedasync_keys().read(fed.scenario());
    const AsyncSettings a = async_keys().read(fed.scenario());
    const int epochs = fed.scenario().training.local_epochs;
    if (fed.done(1)) return;

    Model x = fed.init_model();  // x_t
    int t = 0;
    Arrivals<Push> arrivals(fed.job_site());
    AsyncScheduler scheduler(fed, a.concurrency);
    // Scheduler: trigger a worker with the latest model and its time stamp.
    auto trigger = [&](Hospital& h) {
      arrivals.start(h, [&fed, &h, &s, epochs, model = x, tau = t] {
        const Model& got = fed.send(fed.server(), h, model);
        Update u = s.rho > 0 ? h.train(got, ProximalTraining(epochs, s.rho)) : h.train(got, PlainTraining(epochs));
        u.model = fed.send(h, fed.server(), u.model);
        return Push{std::move(u.model), tau};
      });
    };
    for (Hospital* h : scheduler.first()) trigger(*h);

    // Updater: one mix per push, in order of arrival.
    while (auto push = arrivals.next()) {
      if (!push->result) {  // faults cut the job: nothing to mix, another hospital starts
        if (auto idle = arrivals.idle(); !idle.empty()) trigger(scheduler.next(idle));
        continue;
      }
      const Push& p = *push->result;
      const int stale = (t + 1) - p.tau;  // t - tau of the epoch being made
      const double alpha_t = s.alpha * staleness_weight(a.staleness, stale, a.staleness_a, a.staleness_b);
      x = fed.on_server(3.0 * double(x.values()), [&] {
        Model next = x;
        if (x.holds_state()) next.weights = fedasync_mix(x.weights, p.model.weights, alpha_t);
        return next;
      });
      ++t;
      fed.note_staleness(*push->hospital, stale - 1);
      fed.end_round(t, x);
      if (fed.done(t + 1)) break;
      if (auto idle = arrivals.idle(); !idle.empty()) trigger(scheduler.next(idle));
    }
    arrivals.stop();
  }
};

}  // namespace

std::vector<AlgorithmInfo> fedasync_algorithms() {
  auto keys = fedasync_keys().declarations();
  for (auto& k : async_keys().declarations()) keys.push_back(k);
  return {{.name = "fedasync",
           .description = "FedAsync (Xie et al. 2019): every hospital's model mixed in as it arrives, weighted by its staleness",
           .make = [] { return std::make_unique<FedAsync>(); },
           .keys = keys,
           .cannot_checkpoint = asynchronous_cannot_checkpoint,
           .asynchronous = true,
           .traits = {.acts_alone = true},
           .seed_streams = {kDispatchStream}}};
}

}  // namespace fedgrid::algorithms
