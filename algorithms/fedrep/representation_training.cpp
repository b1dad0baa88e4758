// FedRep's local work, its torch side (representation_training.hpp).
#include "algorithms/fedrep/representation_training.hpp"

#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid::algorithms {

TrainOutcome RepresentationTraining::run_torch(const JobInput& job) {
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

}  // namespace fedgrid::algorithms
