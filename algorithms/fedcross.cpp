// FedCross as FedSKD's paper runs it (its ref. [27]; spec 002 section 4, item 6): "circulating a
// single global model among clients for sequential training". No server: one model hops from
// hospital to hospital over their own links; a round is one pass over every hospital in
// algorithm.order, each training it for one local job (training.local_steps, or local_epochs).
// Decision (spec 002 section 8, item 2): a hop trains the paper's 5 iterations, so a round is
// 5N; the model starts where the first hop of round 1 is (its initial weights come from the
// shared seed: no transfer).
#include "algorithms/registry.hpp"
#include "sim/federation.hpp"

namespace fedgrid::algorithms {
namespace {

class FedCross : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    const Ordering ordering = sc.algorithm.order == "random" ? Ordering::Random : Ordering::Fixed;
    Model model = fed.init_model();
    Hospital* holder = nullptr;
    for (int round = 1; !fed.done(round); ++round) {
      for (Hospital* h : fed.order(round, ordering)) {
        if (holder && holder != h) fed.send(*holder, *h, model);
        model = h->train(model, sc.training.local_epochs).model;
        holder = h;
      }
      fed.end_round(round, model);
    }
  }
};

}  // namespace

std::unique_ptr<Algorithm> make_fedcross() { return std::make_unique<FedCross>(); }

}  // namespace fedgrid::algorithms
