// DynamicFL's local works (growth_job.hpp), their torch side; their charges are in
// growth_job_cost.cpp. The net is the thread's cached plain model: grown
// blocks hang off its GrowableConv slots only while a job runs, and a guard takes them off
// again whatever happens, so the next job finds the plain model.
#include "algorithms/dynamicfl/growth_job.hpp"

#include "data/rng.hpp"
#include "models/dbb.hpp"
#include "models/growth.hpp"
#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid::algorithms {
using namespace jobs;
namespace {

// Takes any block still grown off its slot when the job ends early (an exception).
struct UngrowGuard {
  std::vector<models::GrowableConv>& sites;
  ~UngrowGuard() {
    for (auto& site : sites) models::drop_block(site);
  }
};

// sum(grad * w) of every KxK conv site after a backward pass: the plain conv's weight, or every
// parameter of its grown block.
void add_salience(models::Net& net, std::vector<double>& sum) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < net.growable.size(); ++i) {
    auto& site = net.growable[i];
    const auto params = site->grown() ? site->block.ptr()->parameters() : std::vector<torch::Tensor>{site->conv->weight};
    for (const auto& p : params)
      if (p.grad().defined()) sum[i] += (p.grad() * p).sum().item<double>();
  }
}

std::vector<double> mean_of(std::vector<double> sum, int64_t passes) {
  for (auto& s : sum) s /= double(std::max<int64_t>(1, passes));
  return sum;
}

}  // namespace

// ---------------------------------------------------------------- the probe epoch

void SalienceProbe::on_start_torch(models::Net& net) {
  net_ = &net;
  sum_.assign(net.growable.size(), 0.0);
  measured_ = 0;
}

void SalienceProbe::after_backward_torch(BatchStep& step) {
  if (!step.last_pass) return;
  add_salience(step.net, sum_);
  ++measured_;
}

TrainOutcome SalienceProbe::run_torch(const JobInput& job) {
  TrainOutcome out = PlainTraining::run_torch(job);
  salience_ = mean_of(sum_, measured_);
  return out;
}

// ---------------------------------------------------------------- the growth job

TrainOutcome GrowthTraining::run_torch(const JobInput& job) {
  const auto& spec = job.model->spec;
  models::Net& net = cached_net(spec, job.device);
  auto& sites = net.growable;
  UngrowGuard guard{sites};
  models::load_state(net, job.model->weights);
  const auto data = tensors_of(*job.dataset, job.device);
  const int64_t n = int64_t(job.train->size());

  // 1. Grow the convs the plan ranks highest, from their current weights.
  for (int i : grown_) models::grow(sites[size_t(i)], mix_seed(plan_.seed, uint64_t(i)));

  // 2. BN recalibration (DyRep): the model in eval mode, the new blocks' BNs in train mode with
  //    a cumulative average over `recal_batches` local mini-batches; then the KxK branch takes
  //    the remainder, so the grown model starts equal to the plain one.
  if (!grown_.empty()) {
    torch::NoGradGuard no_grad;
    net.eval();
    std::vector<torch::nn::BatchNorm2d> bns;
    for (int i : grown_)
      for (auto& bn : sites[size_t(i)]->block.get<models::DbbConv>()->batchnorms()) bns.push_back(bn);
    for (auto& bn : bns) bn->reset_running_stats(), bn->options.momentum(c10::nullopt), bn->train();
    std::vector<int64_t> recal = *job.train;
    Rng(mix_seed(plan_.seed, uint64_t(sites.size()))).shuffle(recal);
    for (int b = 0; b < plan_.recal_batches && n > 0; ++b) {
      const int64_t start = (int64_t(b) * job.batch_size) % n, len = std::min<int64_t>(job.batch_size, n - start);
      net.forward(data.images.index_select(0, index_tensor(recal.data() + start, len, job.device)));
    }
    for (auto& bn : bns) bn->options.momentum(0.1);
    for (int i : grown_) models::absorb_remainder(sites[size_t(i)]);
  }

  // 3. Train the grown model: a fresh optimiser (DyRep keeps lr and weight decay and drops the
  //    old state) over its parameters; the plain convs under the blocks sit idle until the fold
  //    overwrites them, so they are left out. The last epoch measures the local salience S^l.
  net.train();
  std::vector<torch::Tensor> params;
  for (const auto& p : net.parameters()) {
    bool idle = false;
    for (int i : grown_)
      for (const auto& q : sites[size_t(i)]->conv->parameters()) idle = idle || p.is_same(q);
    if (!idle) params.push_back(p);
  }
  LocalOptimizer optimizer(std::move(params), job.optimizer);
  std::vector<double> sum(sites.size(), 0.0);
  int64_t measured = 0;
  TrainOutcome out = run_epochs(job, data, *job.train, {epochs_, first_epoch_, 0, models::batchnorm_on_1x1(spec)},
                                [&](const torch::Tensor& x, const torch::Tensor& y, bool last_pass) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), y);
    loss.backward();
    if (last_pass) add_salience(net, sum), ++measured;
    optimizer.step();
    return loss.item<double>();
  });
  salience_ = mean_of(sum, measured);

  // 4. Fold every block back into its plain conv; a conv without bias hands the fused bias to
  //    the batch norm after it (exact in eval mode, where the authors' code drops the bias).
  for (int i : grown_) models::fold(sites[size_t(i)]);
  out.weights = models::flatten_state(net);
  return out;
}

}  // namespace fedgrid::algorithms
