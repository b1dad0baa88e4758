// FedBuff. J. Nguyen, K. Malik, H. Zhan, A. Yousefpour, M. Rabbat, M. Malek, D. Huba,
// "Federated Learning with Buffered Asynchronous Aggregation", AISTATS 2022, Algorithm 1.
//
// Hospitals train on the model version they downloaded and upload their delta; the server adds
// each arriving delta, weighted by its staleness, into a buffer, and after K of them steps the
// model and bumps its version:
//
//   Delta_i = y_i - x_{tau_i}                        (on the hospital: trained minus downloaded)
//   buffer += s(t - tau_i) Delta_i                   (t: the server's version; s: 1/sqrt(1 + d))
//   after K deltas:  x_{t+1} = x_t + eta_g buffer / K,  buffer = 0
//
// Decisions where Algorithm 1 leaves room:
//  1. A round of fedgrid is one server step (one buffer flush), reported by end_round with the
//     simulated time it was made. Every activity counts toward the round in which it ends;
//     hospitals.csv's staleness is t - tau_i of an update in the round its buffer was flushed
//     (the largest, when one hospital has several updates in the buffer).
//  2. The staleness weight is asynchronous.hpp's s(d) with d = t - tau_i (0 for a fresh delta):
//     the paper's 1/sqrt(1 + d) is `staleness: polynomial` with `staleness_a: 0.5`, the
//     defaults; `staleness: constant` turns the weighting off.
//  3. The scheduler (asynchronous.hpp): algorithm.concurrency hospitals train at once (0: all);
//     whenever the server has taken an update, the next hospital is drawn uniformly among the
//     idle ones, as the paper samples clients uniformly. A hospital may so contribute twice to
//     one buffer.
//  4. Deltas that arrive at the same simulated instant are taken in hospital-id order (the
//     engine's Arrivals).
//  5. The delta travels in place of the model (the same bytes); computing it on the hospital is
//     not charged (one subtraction per value against training's thousands of FLOPs). The server
//     is charged 2 FLOPs per value per delta (weight, add) and 2 per value per flush.
//  6. The step covers the whole state (batch-norm statistics included), in double; the buffer
//     is kept in double, the model stored as float32. The server's step is plain SGD with
//     eta_g (algorithm.server_lr, default 1 here: the mean delta as it is).
//  7. When the run stops (stop.rounds, target accuracy, time budget) the jobs under way and a
//     partly filled buffer are dropped: the run's figures are those of the last flush reported.
//  8. Faults (faults.*): as FedAsync (fedasync.cpp, 9): a lost job adds nothing to the buffer
//     and another starts.
#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "algorithms/asynchronous.hpp"
#include "algorithms/registry.hpp"
#include "sim/core/input_error.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {

// The server's buffer on plain values (free, so that tests/test_async.cpp can check it by
// hand): adds weight x delta into `buffer` (empty before the first delta of a flush).
void fedbuff_accumulate(std::vector<double>& buffer, const std::vector<float>& delta, double weight) {
  if (buffer.empty()) buffer.assign(delta.size(), 0.0);
  if (buffer.size() != delta.size()) throw std::logic_error("fedbuff_accumulate: the delta differs in size");
  for (size_t i = 0; i < delta.size(); ++i) buffer[i] += weight * double(delta[i]);
}

// The flush: x + eta_g buffer / k.
std::vector<float> fedbuff_step(const std::vector<float>& x, const std::vector<double>& buffer, int k, double eta_g) {
  if (buffer.size() != x.size()) throw std::logic_error("fedbuff_step: the buffer differs in size");
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = float(double(x[i]) + eta_g * buffer[i] / double(k));
  return out;
}

namespace {

struct FedBuffSettings {
  int buffer_size = 10;
  double server_lr = 1;
};
const KeySet<FedBuffSettings>& fedbuff_keys() {
  static const auto keys =
      KeySet<FedBuffSettings>()
          .add("buffer_size", &FedBuffSettings::buffer_size, "10",
               "fedbuff: K, the updates the server buffers before it steps the model", {.min = 1})
          .add("server_lr", &FedBuffSettings::server_lr, std::nullopt,
               "server learning rate: fedadam, fedyogi, fedadagrad eta of x + eta m / (sqrt(v) + tau) (default "
               "0.01); fedbuff eta_g of x + eta_g mean(buffered deltas) (default 1)",
               {.min = 0, .min_exclusive = true});
  return keys;
}

// What a hospital uploads: its delta and the version it trained on.
struct Upload {
  Model delta;
  int version = 0;
};

Model minus(const Model& y, const Model& x) {
  Model d = y;
  if (!y.holds_state()) return d;
  for (size_t i = 0; i < d.weights.size(); ++i) d.weights[i] = y.weights[i] - x.weights[i];
  return d;
}

class FedBuff : public Algorithm {
 public:
  void run(Federation& fed) override {
    const FedBuffSettings s = fedbuff_keys().read(fed.scenario());
    const AsyncSettings a = async_keys().read(fed.scenario());
    const int epochs = fed.scenario().training.local_epochs;
    if (fed.done(1)) return;

    Model x = fed.init_model();
    int t = 0;  // the model's version
    const double values = double(x.values());
    Arrivals<Upload> arrivals(fed.job_site());
    AsyncScheduler scheduler(fed, a.concurrency);
    auto start = [&](Hospital& h) {
      arrivals.start(h, [&fed, &h, epochs, model = x, version = t] {
        // The trained model crosses and the server forms the delta from what arrived, so a codec
        // (compression.*) encodes the model against the pair's reference; a copy of what arrived
        // first, since the upload replaces that reference.
        const Model start = fed.send(fed.server(), h, model);
        Update u = h.train(start, PlainTraining(epochs));
        Model delta = minus(fed.send(h, fed.server(), u.model), start);
        return Upload{std::move(delta), version};
      });
    };
    for (Hospital* h : scheduler.first()) start(*h);

    std::vector<double> buffer;
    int buffered = 0;
    while (auto up = arrivals.next()) {
      if (!up->result) {  // faults cut the job: nothing to buffer, another hospital starts
        if (auto idle = arrivals.idle(); !idle.empty()) start(scheduler.next(idle));
        continue;
      }
      const Upload& u = *up->result;
      const int stale = t - u.version;
      const double weight = staleness_weight(a.staleness, stale, a.staleness_a, a.staleness_b);
      fed.on_server(2 * values, [&] {
        if (u.delta.holds_state()) fedbuff_accumulate(buffer, u.delta.weights, weight);
        return 0;
      });
      fed.note_staleness(*up->hospital, stale);
      if (++buffered == s.buffer_size) {
        x = fed.on_server(2 * values, [&] {
          Model next = x;
          if (x.holds_state()) next.weights = fedbuff_step(x.weights, buffer, buffered, s.server_lr);
          return next;
        });
        buffer.clear(), buffered = 0;
        ++t;
        fed.end_round(t, x);
        if (fed.done(t + 1)) break;
      }
      if (auto idle = arrivals.idle(); !idle.empty()) start(scheduler.next(idle));
    }
    arrivals.stop();
  }
};

}  // namespace

std::vector<AlgorithmInfo> fedbuff_algorithms() {
  auto keys = fedbuff_keys().declarations();
  for (auto& k : async_keys().declarations()) keys.push_back(k);
  return {{.name = "fedbuff",
           .description = "FedBuff (Nguyen et al. 2022): staleness-weighted deltas buffered at the server, a model step "
                          "every K",
           .make = [] { return std::make_unique<FedBuff>(); },
           .keys = keys,
           .cannot_checkpoint = asynchronous_cannot_checkpoint,
           .asynchronous = true,
           .traits = {.acts_alone = true},
           .seed_streams = {kDispatchStream}}};
}

}  // namespace fedgrid::algorithms
