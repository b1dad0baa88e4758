// FedAdagrad, FedYogi, FedAdam. S. J. Reddi, Z. Charles, M. Zaheer, Z. Garrett, K. Rush,
// J. Konečný, S. Kumar, H. B. McMahan, "Adaptive Federated Optimization", ICLR 2021,
// Algorithm 2 (FedOpt).
//
// FedAvg's rounds (draw a fraction C of the hospitals; in parallel each downloads x_t, trains E
// local epochs, uploads) with one change, the server's step. The averaged update is a
// pseudo-gradient that an adaptive optimiser applies to the global model:
//
//   Delta_t = sum_k (n_k / n) x_k - x_t                      (x_k: hospital k's upload)
//   m_t     = beta1 m_{t-1} + (1 - beta1) Delta_t
//   v_t     = v_{t-1} + Delta_t^2                               fedadagrad
//   v_t     = v_{t-1} - (1 - beta2) Delta_t^2 sign(v_{t-1} - Delta_t^2)   fedyogi
//   v_t     = beta2 v_{t-1} + (1 - beta2) Delta_t^2             fedadam
//   x_{t+1} = x_t + eta m_t / (sqrt(v_t) + tau)
//
// element-wise. Decisions where Algorithm 2 leaves room, or where this file departs from it:
//  1. Delta_t is the sample-weighted average minus x_t, i.e. FedAvg's average as the step's
//     target (Algorithm 2 averages the hospitals' deltas uniformly, 1/|S|). With the same
//     weights as fedavg, fedavg is the step x_{t+1} = x_t + Delta_t and the two differ only in
//     what the server does with Delta_t.
//  2. The optimiser steps the model's parameters only (the first models::model_cost(spec)
//     .parameters values of the state, which holds parameters then buffers). Buffers (batch
//     norm's running mean, running variance and batch counter) are statistics, not weights
//     with a gradient: they take the plain weighted average, as in fedavg. Stepping them would
//     let an adaptive step drive a running variance below zero. A model without batch norm
//     (mlp, cnn, lenet5) has no buffers: the whole state is stepped.
//  3. m_{-1} = 0 and v_{-1} = tau^2, the smallest value Algorithm 2 allows (v_{-1} >= tau^2).
//  4. No bias correction of m_t or v_t: Algorithm 2 has none (unlike Adam's 1/(1 - beta^t)).
//  5. Algorithm 2 keeps the momentum m_t for all three methods, so fedadagrad uses beta1 too
//     (algorithm.beta1 = 0 gives plain Adagrad); fedadagrad ignores beta2.
//  6. Keys and defaults: algorithm.server_lr (eta) 0.01, algorithm.beta1 0.9, algorithm.beta2
//     0.99, algorithm.tau 0.001. beta1 = 0.9 and beta2 = 0.99 are the decays the paper's
//     experiments use for the adaptive methods; eta and tau it tunes per task over powers of
//     ten, so 0.01 and 0.001 are starting values, not tuned ones: tune server_lr (with
//     training.lr) per task. In fedadam and fedyogi, once |Delta| >> tau, the first step moves
//     a value by about eta (m_0 = 0.1 Delta, sqrt(v_0) ~ 0.1 |Delta|) whatever the size of Delta.
//  7. Bounds: eta > 0, tau > 0, beta1 and beta2 in [0, 1) as Algorithm 2 asks.
//  8. Arithmetic in double, the model stored as float32 (as weighted_average does); m and v are
//     kept in double across rounds in the algorithm object. Hospitals' local training is the
//     scenario's training.* (optimizer, lr, momentum; Algorithm 2's clients run plain SGD).
//  9. Server FLOPs: weighted_average_flops (2 per value per update) plus, per stepped value,
//     the optimiser step counted one FLOP per arithmetic operation (sqrt and sign count 1):
//       Delta = avg - x                                   1
//       m = beta1 m + (1 - beta1) Delta                   3
//       Delta^2                                           1
//       v: adagrad v + d2                                 1
//          yogi v - (1 - beta2) d2 sign(v - d2)           5 (subtract, sign, 2 multiplies, subtract)
//          adam beta2 v + (1 - beta2) d2                  3
//       x + eta m / (sqrt(v) + tau)                       5 (sqrt, add, divide, multiply, add)
//     so 11 (fedadagrad), 15 (fedyogi), 13 (fedadam) per parameter; buffers cost nothing beyond
//     the average. Timing-only runs charge the same and keep no m, v.
//   - Faults (faults.*): the server steps from the average of the updates that arrived; a round
//     where none arrived takes no step (m and v stay as they are).
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/aggregation.hpp"
#include "algorithms/fedavg.hpp"
#include "models/model_spec.hpp"

namespace fedgrid::algorithms {

// One server step of Algorithm 2 on plain values (free, out of the anonymous namespace, so that
// tests/test_fedopt.cpp can check it against hand-computed numbers; it declares this prototype
// itself). `method`: adagrad | yogi | adam. `x`: x_t; `average`: the round's weighted average;
// the first `stepped` values are stepped, the rest are taken from `average` (decision 2).
// `m`, `v`: the optimiser state, empty before the first step (then m_{-1} = 0, v_{-1} = tau^2),
// updated in place. Returns x_{t+1}.
std::vector<float> fedopt_server_step(const std::string& method, double eta, double beta1, double beta2, double tau,
                                      const std::vector<float>& x, const std::vector<float>& average, size_t stepped,
                                      std::vector<double>& m, std::vector<double>& v) {
  enum { Adagrad, Yogi, Adam } rule;
  if (method == "adagrad") rule = Adagrad;
  else if (method == "yogi") rule = Yogi;
  else if (method == "adam") rule = Adam;
  else throw std::logic_error("fedopt_server_step: unknown method '" + method + "'");
  if (average.size() != x.size() || stepped > x.size())
    throw std::logic_error("fedopt_server_step: the average and the global model differ in size");
  if (m.empty()) m.assign(stepped, 0.0);
  if (v.empty()) v.assign(stepped, tau * tau);
  if (m.size() != stepped || v.size() != stepped)
    throw std::logic_error("fedopt_server_step: the optimiser state does not match the model");

  std::vector<float> next(average);  // buffers (values from `stepped` on): the plain average
  for (size_t i = 0; i < stepped; ++i) {
    const double delta = double(average[i]) - double(x[i]);
    const double d2 = delta * delta;
    m[i] = beta1 * m[i] + (1 - beta1) * delta;
    switch (rule) {
      case Adagrad: v[i] = v[i] + d2; break;
      case Yogi: {
        const double diff = v[i] - d2;
        const double sign = diff > 0 ? 1.0 : (diff < 0 ? -1.0 : 0.0);
        v[i] = v[i] - (1 - beta2) * d2 * sign;
        break;
      }
      case Adam: v[i] = beta2 * v[i] + (1 - beta2) * d2; break;
    }
    next[i] = float(double(x[i]) + eta * m[i] / (std::sqrt(v[i]) + tau));
  }
  return next;
}

namespace {

struct FedOptSettings {
  double server_lr = 0.01;
  double beta1 = 0.9;
  double beta2 = 0.99;
  double tau = 1e-3;
};
const KeySet<FedOptSettings>& fedopt_keys() {
  static const auto keys =
      KeySet<FedOptSettings>()
          // No declared default: fedbuff shares the key with a default of its own (1).
          .add("server_lr", &FedOptSettings::server_lr, std::nullopt,
               "server learning rate: fedadam, fedyogi, fedadagrad eta of x + eta m / (sqrt(v) + tau) (default "
               "0.01); fedbuff eta_g of x + eta_g mean(buffered deltas) (default 1)",
               {.min = 0, .min_exclusive = true})
          .add("beta1", &FedOptSettings::beta1, "0.9",
               "fedadam, fedyogi, fedadagrad: decay of the server momentum m, in [0, 1) (0 = no momentum)",
               {.min = 0, .max = 1, .max_exclusive = true})
          .add("beta2", &FedOptSettings::beta2, "0.99",
               "fedadam, fedyogi, fedadagrad: decay of the second moment v, in [0, 1) (fedadagrad ignores it)",
               {.min = 0, .max = 1, .max_exclusive = true})
          .add("tau", &FedOptSettings::tau, "0.001",
               "fedadam, fedyogi, fedadagrad: adaptivity tau (denominator sqrt(v) + tau; v starts at tau^2)",
               {.min = 0, .min_exclusive = true});
  return keys;
}

// Optimiser FLOPs per stepped value (decision 9).
double step_flops(const std::string& method) {
  if (method == "adagrad") return 11;
  if (method == "yogi") return 15;
  return 13;  // adam
}

class FedOpt : public FedAvg {
 public:
  explicit FedOpt(std::string method) : method_(std::move(method)) {}

 protected:
  Model server_update(Federation& fed, const Model& global, const std::vector<Update>& updates) override {
    const FedOptSettings s = fedopt_keys().read(fed.scenario());
    const int64_t parameters = models::model_cost(global.spec).parameters;
    const double flops = weighted_average_flops(updates) + step_flops(method_) * double(parameters);
    return fed.on_server(flops, [&] {
      Model next = weighted_average(updates);
      if (!next.holds_state()) return next;  // timing-only: shape only, nothing to step
      if (next.values() != global.values() || parameters > global.values())
        throw std::logic_error("fedopt: the round's average does not match the global model");
      next.weights = fedopt_server_step(method_, s.server_lr, s.beta1, s.beta2, s.tau, global.weights, next.weights,
                                        size_t(parameters), m_, v_);
      return next;
    });
  }

  std::vector<Kept> kept_state(Model& global) override { return {{"global", global}, {"m", m_}, {"v", v_}}; }

 private:
  std::string method_;         // adagrad | yogi | adam
  std::vector<double> m_, v_;  // m_{t-1}, v_{t-1} over the parameters; empty before round 1
};

}  // namespace

std::vector<AlgorithmInfo> fedopt_algorithms() {
  auto keys = fedavg_keys().declarations();
  for (auto& k : fedopt_keys().declarations()) keys.push_back(k);
  auto entry = [&](const std::string& name, const std::string& method, const std::string& rule) {
    return AlgorithmInfo{.name = name,
                         .description = "Reddi et al. 2021: FedAvg's rounds, the averaged update stepped by a server " + rule,
                         .make = [method] { return std::make_unique<FedOpt>(method); },
                         .keys = keys,
                         .traits = {.selects_fraction = true}};
  };
  return {entry("fedadagrad", "adagrad", "Adagrad with momentum (server_lr, beta1, tau)"),
          entry("fedyogi", "yogi", "Yogi (server_lr, beta1, beta2, tau)"),
          entry("fedadam", "adam", "Adam, no bias correction (server_lr, beta1, beta2, tau)")};
}

}  // namespace fedgrid::algorithms
