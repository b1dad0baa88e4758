// DynamicFL's local job (spec 003 sections 2.2, 2.4, 2.6): probe, grow, recalibrate, train,
// fold. The net is the thread's cached plain model; grown blocks hang off its GrowableConv
// slots only while the job runs, and a guard takes them off again whatever happens, so the
// next job finds the plain model.
#include <algorithm>
#include <numeric>

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

// sum(grad * w) over a slot's trainable weights: the plain conv's, or every parameter of its
// grown block (DyRep's signed "synflow" metric).
double salience_of(models::GrowableConv& site) {
  torch::NoGradGuard no_grad;
  double s = 0;
  const auto params = site->grown() ? site->block.ptr()->parameters() : std::vector<torch::Tensor>{site->conv->weight};
  for (const auto& p : params)
    if (p.grad().defined()) s += (p.grad() * p).sum().item<double>();
  return s;
}

// Indices of the `k` largest scores, best first (ties: the earlier site).
std::vector<int> top(const std::vector<double>& score, int k) {
  std::vector<int> order(score.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[size_t(a)] > score[size_t(b)]; });
  order.resize(std::min<size_t>(size_t(std::max(k, 0)), order.size()));
  return order;
}

}  // namespace

TrainOutcome run_reparam_training(const TrainJob& job) {
  const ReparamPlan& plan = *job.reparam;
  models::Net& net = cached_net(job.spec, job.device);
  auto& sites = net.growable;
  UngrowGuard guard{sites};
  models::load_state(net, *job.weights);
  net.train();
  const auto [images, labels] = tensors_of(*job.dataset, job.device);
  std::vector<int64_t> order = *job.indices;
  const int64_t n = int64_t(order.size());

  TrainOutcome out;
  double loss_sum = 0;
  int64_t loss_samples = 0;
  int epoch = 0;
  // One epoch of SGD; after every backward `after_backward` may read the gradients.
  auto run_epoch = [&](torch::optim::Optimizer& optimizer, const std::function<void()>& after_backward) {
    Rng(mix_seed(job.seed, uint64_t(epoch++))).shuffle(order);
    for (int64_t start = 0; start < n; start += job.batch_size) {
      const int64_t len = std::min<int64_t>(job.batch_size, n - start);
      torch::Tensor idx = index_tensor(order.data() + start, len, job.device);
      optimizer.zero_grad();
      torch::Tensor loss =
          torch::nn::functional::cross_entropy(net.forward(images.index_select(0, idx)), labels.index_select(0, idx));
      loss.backward();
      after_backward();
      optimizer.step();
      const double batch_loss = loss.item<double>();
      out.batch_losses.push_back(batch_loss);
      loss_sum += batch_loss * double(len);
      loss_samples += len;
      ++out.steps;
    }
  };
  // Per-site salience, averaged over one epoch's iterations.
  std::vector<double> salience(sites.size(), 0.0);
  int64_t salience_steps = 0;
  auto measure = [&] {
    for (size_t i = 0; i < sites.size(); ++i) salience[i] += salience_of(sites[i]);
    ++salience_steps;
  };
  auto mean_salience = [&] {
    std::vector<double> mean = salience;
    for (auto& s : mean) s /= double(std::max<int64_t>(1, salience_steps));
    std::fill(salience.begin(), salience.end(), 0.0), salience_steps = 0;
    return mean;
  };

  // 1. Normal path: one epoch on the plain model (the paper's epsilon epoch, a real update;
  //    the authors' code makes no update here) that measures the global salience S^g.
  auto optimizer = make_optimizer(net.parameters(), job.optimizer);
  std::vector<double> rank = plan.rank;
  if (plan.probe && job.epochs > 0) {
    run_epoch(*optimizer, measure);
    rank = mean_salience();
  }
  if (rank.size() != sites.size()) rank.assign(sites.size(), 0.0);  // no history: the first sites

  // 2. Grow the top-k convs into diverse-branch blocks, from their current weights.
  out.grown = top(rank, plan.expansions);
  for (int i : out.grown) models::grow(sites[size_t(i)], mix_seed(plan.seed, uint64_t(i)));
  if (!out.grown.empty()) {
    // 3. BN recalibration (DyRep): the model in eval mode, the new blocks' BNs in train mode
    //    with a cumulative average, over `recal_batches` local mini-batches; then the KxK
    //    branch takes the remainder so the grown model starts equal to the plain one.
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
    net.train();
    // The grown model has new parameters: a fresh optimiser over all of them (DyRep keeps lr and
    // weight decay and drops the old state). Nothing grown: the same optimiser goes on, so a
    // weak hospital trains exactly as FedAvg's would.
    // The plain convs under the blocks sit idle until the fold overwrites them: left out.
    std::vector<torch::Tensor> params;
    for (const auto& p : net.parameters()) {
      bool idle = false;
      for (int i : out.grown)
        for (const auto& q : sites[size_t(i)]->conv->parameters()) idle = idle || p.is_same(q);
      if (!idle) params.push_back(p);
    }
    optimizer = make_optimizer(std::move(params), job.optimizer);
  }

  // 4. The remaining epochs; the last one measures the local salience S^l for the next round.
  const int remaining = job.epochs - epoch;
  for (int e = 0; e < remaining; ++e) run_epoch(*optimizer, e + 1 == remaining ? std::function<void()>(measure) : [] {});
  out.salience = remaining > 0 ? mean_salience() : rank;

  // 5. Fold every block back into its plain conv. A conv without bias hands the fused bias to
  //    the batch norm after it (running_mean -= b): exact in eval mode, where the authors'
  //    code drops the bias.
  for (int i : out.grown) models::fold(sites[size_t(i)]);
  out.epochs = epoch;
  out.mean_loss = loss_samples ? loss_sum / double(loss_samples) : 0.0;
  out.weights = models::flatten_state(net);
  return out;
}

}  // namespace fedgrid::jobs
