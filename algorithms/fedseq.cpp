// FedSeq: sequential (cyclic) federated training, as in the "sequential" baselines of the
// seed papers (e.g. UniFed's FedSeq; Chang et al. 2018 cyclical weight transfer).
//
// One model is relayed hospital by hospital through the server: download, train E local
// epochs, upload, next hospital. A round is one pass over all hospitals.
#include "algorithms/registry.hpp"
#include "sim/federation.hpp"

namespace fedgrid::algorithms {
namespace {

class FedSeq : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    const Ordering ordering = sc.algorithm.order == "random" ? Ordering::Random : Ordering::Fixed;
    Model model = fed.init_model();
    for (int round = 1; !fed.done(round); ++round) {
      for (Hospital* h : fed.order(round, ordering)) {
        fed.send(fed.server(), *h, model);
        model = h->train(model, sc.training.local_epochs).model;
        fed.send(*h, fed.server(), model);
      }
      fed.end_round(round, model);
    }
  }
};

}  // namespace

std::unique_ptr<Algorithm> make_fedseq() { return std::make_unique<FedSeq>(); }

}  // namespace fedgrid::algorithms
