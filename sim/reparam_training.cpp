// DynamicFL's growth job (spec 003 sections 2.2, 2.4, 2.6): grow, recalibrate, train, fold;
// and the salience meter the probe epoch shares with plain training jobs. The net is the
// thread's cached plain model: grown blocks hang off its GrowableConv slots only while the
// job runs, and a guard takes them off again whatever happens, so the next job finds the
// plain model.
#include "data/rng.hpp"
#include "models/dbb.hpp"
#include "models/growth.hpp"
#include "sim/torch_jobs.hpp"

namespace fedgrid::jobs {
namespace {

// Takes any block still grown off its slot when the job ends early (an exception).
struct UngrowGuard {
  std::vector<models::GrowableConv>& sites;
  ~UngrowGuard() {
    for (auto& site : sites) models::drop_block(site);
  }
};

}  // namespace

void SalienceMeter::measure() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < net_.growable.size(); ++i) {
    auto& site = net_.growable[i];
    // sum(grad * w) over the slot's trainable weights: the plain conv's, or every parameter of
    // its grown block (DyRep's signed "synflow" metric).
    const auto params = site->grown() ? site->block.ptr()->parameters() : std::vector<torch::Tensor>{site->conv->weight};
    for (const auto& p : params)
      if (p.grad().defined()) sum_[i] += (p.grad() * p).sum().item<double>();
  }
  ++steps_;
}

std::vector<double> SalienceMeter::mean() const {
  std::vector<double> out = sum_;
  for (auto& s : out) s /= double(std::max<int64_t>(1, steps_));
  return out;
}

TrainOutcome run_reparam_training(const TrainJob& job) {
  const ReparamPlan& plan = *job.reparam;
  models::Net& net = cached_net(job.spec, job.device);
  auto& sites = net.growable;
  UngrowGuard guard{sites};
  models::load_state(net, *job.weights);
  const auto [images, labels] = tensors_of(*job.dataset, job.device);
  const int64_t n = int64_t(job.indices->size());
  TrainOutcome out;

  // 1. Grow the convs the plan ranks highest, from their current weights.
  out.grown = models::top_sites(plan.rank, sites.size(), plan.expansions);
  for (int i : out.grown) models::grow(sites[size_t(i)], mix_seed(plan.seed, uint64_t(i)));

  // 2. BN recalibration (DyRep): the model in eval mode, the new blocks' BNs in train mode with
  //    a cumulative average over `recal_batches` local mini-batches; then the KxK branch takes
  //    the remainder, so the grown model starts equal to the plain one.
  if (!out.grown.empty()) {
    torch::NoGradGuard no_grad;
    net.eval();
    std::vector<torch::nn::BatchNorm2d> bns;
    for (int i : out.grown)
      for (auto& bn : sites[size_t(i)]->block.get<models::DbbConv>()->batchnorms()) bns.push_back(bn);
    for (auto& bn : bns) bn->reset_running_stats(), bn->options.momentum(c10::nullopt), bn->train();
    std::vector<int64_t> recal = *job.indices;
    Rng(mix_seed(plan.seed, uint64_t(sites.size()))).shuffle(recal);
    for (int b = 0; b < plan.recal_batches && n > 0; ++b) {
      const int64_t start = (int64_t(b) * job.batch_size) % n, len = std::min<int64_t>(job.batch_size, n - start);
      net.forward(images.index_select(0, index_tensor(recal.data() + start, len, job.device)));
    }
    for (auto& bn : bns) bn->options.momentum(0.1);
    for (int i : out.grown) models::absorb_remainder(sites[size_t(i)]);
  }

  // 3. Train the grown model: a fresh optimiser (DyRep keeps lr and weight decay and drops the
  //    old state) over its parameters; the plain convs under the blocks sit idle until the fold
  //    overwrites them, so they are left out. The last epoch measures the local salience S^l.
  net.train();
  std::vector<torch::Tensor> params;
  for (const auto& p : net.parameters()) {
    bool idle = false;
    for (int i : out.grown)
      for (const auto& q : sites[size_t(i)]->conv->parameters()) idle = idle || p.is_same(q);
    if (!idle) params.push_back(p);
  }
  auto optimizer = make_optimizer(std::move(params), job.optimizer);
  SalienceMeter meter(net);
  std::vector<int64_t> order = *job.indices;
  double loss_sum = 0;
  int64_t loss_samples = 0;
  for (int epoch = 0; epoch < job.epochs; ++epoch)
    run_epoch(net, *optimizer, job, {images, labels}, order, epoch, {}, epoch + 1 == job.epochs ? &meter : nullptr,
              loss_sum, loss_samples, out);
  out.salience = meter.mean();

  // 4. Fold every block back into its plain conv; a conv without bias hands the fused bias to
  //    the batch norm after it (exact in eval mode, where the authors' code drops the bias).
  for (int i : out.grown) models::fold(sites[size_t(i)]);
  out.epochs = job.epochs;
  out.mean_loss = loss_samples ? loss_sum / double(loss_samples) : 0.0;
  out.weights = models::flatten_state(net);
  return out;
}

}  // namespace fedgrid::jobs
