// FedSKD's step 2-4 at one hospital (spec 002 section 2.2): DAM and KTM see the same mini-batch
// of the hospital's own data; L = CE(DAM) + gamma L_SKD + CE(KTM); the KTM's classifier is
// frozen (step 3). Decisions (spec 002 section 8):
// - one Adam (training.optimizer) over DAM + KTM feature extractor, fresh every job: no job in
//   fedgrid carries optimiser state across rounds, so every algorithm is compared alike (8);
// - no stop-gradient on either side of L_SKD: the paper's "two concurrent knowledge flows" (7);
// - the KTM trains in train mode, its batch-norm statistics updated and then dropped (9).
#include "sim/mutual_training.hpp"

#include "models/nets.hpp"
#include "sim/skd_loss.hpp"
#include "sim/torch_jobs.hpp"

namespace fedgrid {
namespace {

// The cached KTM's classifier is frozen only while the job runs.
struct FrozenHead {
  torch::nn::Linear head;
  explicit FrozenHead(torch::nn::Linear h) : head(std::move(h)) {
    for (auto& p : head->parameters()) p.requires_grad_(false);
  }
  ~FrozenHead() {
    for (auto& p : head->parameters()) p.requires_grad_(true);
  }
};

std::vector<torch::Tensor> pick(const std::vector<torch::Tensor>& taps, const std::vector<int>& layers) {
  std::vector<torch::Tensor> out;
  for (int l : layers) out.push_back(taps.at(size_t(l)));
  return out;
}

}  // namespace

TrainOutcome run_mutual_training(const MutualJob& job) {
  using namespace jobs;
  const TrainJob& base = job.dam;
  models::Net& dam = cached_net(base.spec, base.device, 0);
  models::Net& ktm = cached_net(job.ktm_spec, base.device, 1);
  models::load_state(dam, *base.weights);
  models::load_state(ktm, *job.ktm_weights);
  dam.train(), ktm.train();
  FrozenHead frozen(ktm.classifier);
  std::vector<torch::Tensor> params = dam.parameters();
  for (const auto& p : ktm.parameters())
    if (p.requires_grad()) params.push_back(p);
  auto optimizer = make_optimizer(std::move(params), base.optimizer);
  const auto data = tensors_of(*base.dataset, base.device);
  const bool drop_single = models::batchnorm_on_1x1(base.spec) || models::batchnorm_on_1x1(job.ktm_spec);
  const skd::Levels levels{job.plan.batch_level, job.plan.pixel_level};
  const bool distil = job.plan.gamma != 0 && !job.plan.layers.empty();

  std::vector<int64_t> order = *base.indices;
  double loss_sum = 0;
  int64_t loss_samples = 0;
  TrainOutcome out;
  const int passes = base.steps ? passes_begun(int64_t(order.size()), base.batch_size, base.steps, drop_single)
                                : base.epochs;
  for (int epoch = 0; epoch < passes; ++epoch)
    for_each_batch(base, data, order, epoch, drop_single, loss_sum, loss_samples, out,
                   [&](const torch::Tensor& x, const torch::Tensor& y) {
      optimizer->zero_grad();
      std::vector<torch::Tensor> dam_taps, ktm_taps;
      const torch::Tensor dam_ce = torch::nn::functional::cross_entropy(dam.forward_taps(x, dam_taps), y);
      torch::Tensor objective = dam_ce + torch::nn::functional::cross_entropy(ktm.forward_taps(x, ktm_taps), y);
      if (distil)
        objective = objective + job.plan.gamma * skd::loss(pick(dam_taps, job.plan.layers),
                                                           pick(ktm_taps, job.plan.layers), levels);
      objective.backward();
      optimizer->step();
      return dam_ce.item<double>();
    });
  out.weights = models::flatten_state(dam);
  out.mean_loss = loss_samples ? loss_sum / double(loss_samples) : 0.0;
  out.epochs = passes;
  return out;
}

double similarity_flops(const models::ModelSpec& dam, const models::ModelSpec& ktm, const SkdPlan& plan,
                        int64_t batch) {
  if (plan.gamma == 0) return 0;
  const auto dam_taps = models::feature_taps(dam), ktm_taps = models::feature_taps(ktm);
  const double b = double(batch);
  double macs = 0;
  for (int l : plan.layers)
    for (const auto* taps : {&dam_taps, &ktm_taps}) {
      const auto& t = taps->at(size_t(l));
      const double c = double(t.channels);
      const double hw = double(dam_taps.at(size_t(l)).height * dam_taps.at(size_t(l)).width);
      if (plan.batch_level) macs += b * b * c * double(t.height * t.width);
      if (plan.pixel_level) macs += hw * hw * b * c;
    }
  return 3.0 * 2.0 * macs;
}

}  // namespace fedgrid
