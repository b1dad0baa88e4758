// FedSKD's step 2-4 at one hospital (Weng, Cai, Zhou 2025, Sec. II-B): DAM and KTM see the same
// mini-batch of the hospital's own data; L = CE(DAM) + gamma L_SKD + CE(KTM); the KTM's classifier
// is frozen (step 3). Decisions where the paper leaves the choice open:
// - one Adam (training.optimizer) over DAM + KTM feature extractor, fresh every job by default,
//   so every algorithm is compared alike; algorithm.persistent_adam keeps the DAM's part of it
//   (moments and step count) from one round to the next, the KTM's part fresh each round (the
//   reading of the paper's one optimiser that its unreported details leave most likely);
// - no stop-gradient on either side of L_SKD: the paper's "two concurrent knowledge flows";
// - the KTM trains in train mode, its batch-norm statistics updated and then dropped.
#include "algorithms/fedskd/mutual_job.hpp"  // the torch side; the charge: mutual_job_cost.cpp

#include <map>
#include <stdexcept>

#include "algorithms/fedskd/skd_loss.hpp"
#include "models/nets.hpp"
#include "sim/jobs/training/epoch_loop.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {
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

torch::Tensor from_doubles(const double* at, const torch::Tensor& like) {
  return torch::from_blob(const_cast<double*>(at), {like.numel()}, torch::kDouble)
      .to(like.options(), /*non_blocking=*/false, /*copy=*/true)
      .reshape(like.sizes());
}

// The kept state of the optimiser's first params.size() parameters (the DAM's): per parameter its
// step count, then Adam's two moments.
void load_adam(jobs::LocalOptimizer& optimizer, const std::vector<torch::Tensor>& params, const AdamState& saved) {
  if (optimizer.config().kind != Optimizer::Adam)
    throw std::logic_error("persistent_adam needs training.optimizer adam");  // fedskd checks the scenario first
  if (saved.empty()) return;
  size_t at = 0;
  for (size_t k = 0; k < params.size(); ++k) {
    const size_t n = size_t(params[k].numel());
    optimizer.set_state(k, {from_doubles(saved.data() + at + 1, params[k]),
                            from_doubles(saved.data() + at + 1 + n, params[k]), int64_t(saved.at(at))});
    at += 1 + 2 * n;
  }
}

AdamState saved_adam(const jobs::LocalOptimizer& optimizer, const std::vector<torch::Tensor>& params) {
  AdamState out;
  for (size_t k = 0; k < params.size(); ++k) {
    const auto s = optimizer.state(k);
    if (!s) return {};  // no step taken
    out.push_back(double(s->steps));
    for (const torch::Tensor& t : {s->first, s->second}) {
      const torch::Tensor d = t.to(torch::kCPU, torch::kDouble).contiguous().reshape({-1});
      out.insert(out.end(), d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
    }
  }
  return out;
}

std::vector<torch::Tensor> pick(const std::vector<torch::Tensor>& taps, const std::vector<int>& layers) {
  std::vector<torch::Tensor> out;
  for (int l : layers) out.push_back(taps.at(size_t(l)));
  return out;
}

}  // namespace

TrainOutcome MutualLearning::run_torch(const JobInput& job) {
  using namespace jobs;
  const auto& spec = job.model->spec;
  models::Net& dam = cached_net(spec, job.device, 0);
  models::load_state(dam, job.model->weights);
  dam.train();
  std::vector<torch::Tensor> params = dam.parameters();
  const std::vector<torch::Tensor> dam_params = params;
  models::Net& ktm = cached_net(ktm_->spec, job.device, 1);
  models::load_state(ktm, ktm_->weights);
  ktm.train();
  const FrozenHead frozen(ktm.classifier);
  for (const auto& p : ktm.parameters())
    if (p.requires_grad()) params.push_back(p);
  LocalOptimizer optimizer(std::move(params), job.optimizer);
  if (dam_adam_) load_adam(optimizer, dam_params, *dam_adam_);
  const bool drop_single = models::batchnorm_on_1x1(spec) || models::batchnorm_on_1x1(ktm_->spec);
  const skd::Levels levels{plan_.batch_level, plan_.pixel_level};
  const bool distil = plan_.gamma != 0 && !plan_.layers.empty();
  const int passes = job.local_steps
                         ? passes_begun(int64_t(job.train->size()), job.batch_size, job.local_steps, drop_single)
                         : epochs_;
  TrainOutcome out = run_epochs(job, tensors_of(*job.dataset, job.device), *job.train,
                                {passes, 0, job.local_steps, drop_single},
                                [&](const torch::Tensor& x, const torch::Tensor& y, bool) {
    optimizer.zero_grad();
    std::vector<torch::Tensor> dam_taps, ktm_taps;
    const torch::Tensor dam_ce = torch::nn::functional::cross_entropy(dam.forward_taps(x, dam_taps), y);
    torch::Tensor objective = dam_ce + torch::nn::functional::cross_entropy(ktm.forward_taps(x, ktm_taps), y);
    if (distil)
      objective = objective + plan_.gamma * skd::loss(pick(dam_taps, plan_.layers), pick(ktm_taps, plan_.layers), levels);
    objective.backward();
    optimizer.step();
    return dam_ce.item<double>();
  });
  out.weights = models::flatten_state(dam);
  if (dam_adam_) *dam_adam_ = saved_adam(optimizer, dam_params);
  return out;
}

void KeptAdamTraining::on_optimizer_made_torch(models::Net& net, jobs::LocalOptimizer& optimizer) {
  load_adam(optimizer, net.parameters(), *dam_adam_);
}

void KeptAdamTraining::on_finish_torch(models::Net& net, jobs::LocalOptimizer& optimizer) {
  *dam_adam_ = saved_adam(optimizer, net.parameters());
}

}  // namespace fedgrid::algorithms
