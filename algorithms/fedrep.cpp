// FedRep. L. Collins, H. Hassani, A. Mokhtari, S. Shakkottai, "Exploiting Shared
// Representations for Personalized Federated Learning", ICML 2021 (Algorithm 1).
//
// The body (every layer but the classifier) is shared, the head (the classifier) stays on each
// hospital. Each round a selected hospital loads the received body under its own head, trains
// the head for `head_epochs` with the body frozen, then the body for training.local_epochs with
// the head frozen, and sends the body back; the server averages bodies (sample-weighted).
// Messages carry the body only (exact bytes: its values as float32 plus the model header).
// Hospitals are scored with the averaged body under their own head. Charged: a head epoch as
// a forward pass plus the head's backward, a body epoch as a full training pass.
// Under faults a hospital whose round is lost keeps its head; the body is the average of what
// arrived.
#include "algorithms/aggregation.hpp"
#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/epoch_loop.hpp"
#include "sim/scenario/key_set.hpp"

namespace fedgrid::algorithms {
namespace {

// Where the classifier's weight and bias lie in the flat state: the last two parameter tensors.
models::StateTensor head_of(const models::ModelSpec& spec, int64_t& offset, int64_t& size) {
  const int64_t parameters = models::model_cost(spec).parameters;
  const auto layout = models::state_layout(spec);
  int64_t at = 0;
  for (size_t t = 0; t < layout.size(); ++t) {
    at += layout[t].numel();
    if (at == parameters) {
      size = layout[t].numel() + layout[t - 1].numel();
      offset = parameters - size;
      return layout[t - 1];
    }
  }
  throw std::logic_error("the parameters of model " + spec.arch + " do not end at a tensor boundary");
}

class RepresentationTraining : public LocalWork {
 public:
  RepresentationTraining(int head_epochs, int body_epochs) : head_epochs_(head_epochs), body_epochs_(body_epochs) {}

  TrainOutcome run(const JobInput& job) override {
    models::Net& net = jobs::cached_net(job.model->spec, job.device);
    models::load_state(net, job.model->weights);
    net.train();
    std::vector<torch::Tensor> head{net.classifier->weight, net.classifier->bias}, body;
    for (const auto& p : net.parameters())
      if (!p.is_same(head[0]) && !p.is_same(head[1])) body.push_back(p);
    const bool drop_single = models::batchnorm_on_1x1(job.model->spec);
    const auto data = jobs::tensors_of(*job.dataset, job.device);
    auto phase = [&](std::vector<torch::Tensor>& train, std::vector<torch::Tensor>& frozen, int epochs, int first) {
      for (auto& p : frozen) p.set_requires_grad(false);
      jobs::LocalOptimizer optimizer(train, job.optimizer);
      TrainOutcome out = jobs::run_epochs(job, data, *job.train, {epochs, first, 0, drop_single},
                                          [&](const torch::Tensor& x, const torch::Tensor& y, bool) {
                                            optimizer.zero_grad();
                                            const auto loss = torch::nn::functional::cross_entropy(net.forward(x), y);
                                            loss.backward();
                                            optimizer.step();
                                            return loss.item<double>();
                                          });
      for (auto& p : frozen) p.set_requires_grad(true);
      return out;
    };
    const TrainOutcome heads = phase(head, body, head_epochs_, 0);
    TrainOutcome out = phase(body, head, body_epochs_, head_epochs_);
    out.batch_losses.insert(out.batch_losses.begin(), heads.batch_losses.begin(), heads.batch_losses.end());
    out.steps += heads.steps, out.epochs += heads.epochs;
    out.weights = models::flatten_state(net);
    return out;
  }

  Charge cost(const JobShape& shape, const TrainOutcome*) const override {
    const models::ModelCost c = models::model_cost(shape.spec);
    int64_t offset = 0, size = 0;
    head_of(shape.spec, offset, size);
    const double samples = double(shape.samples);
    const double head_pass = c.forward_flops + 2.0 * 2.0 * double(size);  // forward + the head's backward
    // timing.compute: profile: the body epochs as training steps, the head epochs as forward passes.
    ModelSteps steps = training_steps(shape.spec, shape.samples, shape.batch_size, body_epochs_, 0,
                                      models::batchnorm_on_1x1(shape.spec));
    steps.eval_samples = shape.samples * head_epochs_;
    return {samples * (head_pass * head_epochs_ + c.train_flops() * body_epochs_), head_epochs_ + body_epochs_,
            {std::move(steps)}};
  }

 private:
  int head_epochs_, body_epochs_;
};

struct FedRepSettings {
  int head_epochs = 10;
};

const KeySet<FedRepSettings>& fedrep_keys() {
  static const auto keys = KeySet<FedRepSettings>().add(
      "head_epochs", &FedRepSettings::head_epochs, "10",
      "fedrep: epochs of head training (body frozen) before the body's training.local_epochs", {.min = 0});
  return keys;
}

class FedRep : public Algorithm {
 public:
  void run(Federation& fed) override {
    const Scenario& sc = fed.scenario();
    const int head_epochs = fedrep_keys().read(sc).head_epochs;
    const Model init = fed.init_model();
    int64_t head_offset = 0, head_size = 0;
    head_of(init.spec, head_offset, head_size);
    const int64_t body_bytes = (init.values() - head_size) * 4 + models::kPayloadHeaderBytes;
    std::vector<Model> personal(fed.hospitals().size(), init);
    for (int round = fed.first_round({{"personal", personal}}); !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.hospitals(), [&](Hospital& h) {
        fed.send_bytes(fed.server(), h, body_bytes);
        Update u = h.train(personal[size_t(h.id())], RepresentationTraining(head_epochs, sc.training.local_epochs));
        fed.send_bytes(h, fed.server(), body_bytes);
        return u;
      });
      if (updates.empty()) {
        fed.end_round(round, personal);
        continue;
      }
      for (const Update& u : updates) {  // the trained head stays
        auto& mine = personal[size_t(u.hospital)].weights;
        if (!u.model.holds_state()) continue;
        std::copy(u.model.weights.begin() + head_offset, u.model.weights.begin() + head_offset + head_size,
                  mine.begin() + head_offset);
      }
      const Model body = fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
      for (Model& m : personal) {
        if (!body.holds_state()) continue;
        for (int64_t k = 0; k < int64_t(m.weights.size()); ++k)
          if (k < head_offset || k >= head_offset + head_size) m.weights[size_t(k)] = body.weights[size_t(k)];
      }
      fed.end_round(round, personal);
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> fedrep_algorithms() {
  return {{.name = "fedrep",
           .description = "FedRep (Collins et al. 2021): shared body averaged, personal heads trained first with the "
                          "body frozen",
           .make = [] { return std::make_unique<FedRep>(); },
           .counts_epochs = true,
           .keys = fedrep_keys().declarations()}};
}

}  // namespace fedgrid::algorithms
