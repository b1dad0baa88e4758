// The fused epoch loop (see fused_training.hpp): run_epochs (epoch_loop.cpp) for M jobs at once.
#include "sim/jobs/fused/fused_training.hpp"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "data/rng.hpp"
#include "sim/jobs/training/epoch_loop.hpp"
#include "sim/jobs/fused/fused_net.hpp"
#include "sim/jobs/fused/fused_optimizer.hpp"

namespace fedgrid {
namespace {

// One member's batches, in the order run_epochs gives its own job: each pass reshuffles the
// previous order with the job's seed for that pass; a trailing batch of one is left out when
// drop_single; at most `steps` batches in all when steps > 0.
class MemberBatches {
 public:
  MemberBatches(const JobInput& job, int passes, bool drop_single)
      : order_(*job.train), seed_(job.seed), batch_(job.batch_size), steps_(job.local_steps), passes_(passes),
        drop_single_(drop_single) {
    if (passes_ > 0) Rng(mix_seed(seed_, 0)).shuffle(order_);
  }

  struct Batch {
    const int64_t* indices = nullptr;
    int64_t size = 0;
  };
  // The next batch; size 0 once the job has none left.
  Batch next() {
    const int64_t n = int64_t(order_.size());
    while (pass_ < passes_) {
      if (start_ < n) {
        const int64_t len = std::min(batch_, n - start_);
        const bool pass_over = (len == 1 && start_ > 0 && drop_single_) || (steps_ > 0 && taken_ >= steps_);
        if (!pass_over) {
          Batch b{order_.data() + start_, len};
          start_ += batch_, ++taken_;
          return b;
        }
      }
      if (++pass_ < passes_) Rng(mix_seed(seed_, uint64_t(pass_))).shuffle(order_), start_ = 0;
    }
    return {};
  }

 private:
  std::vector<int64_t> order_;
  uint64_t seed_;
  int64_t batch_, steps_;
  int passes_;
  bool drop_single_;
  int pass_ = 0;
  int64_t start_ = 0, taken_ = 0;
};

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

}  // namespace

bool fusible_arch(const models::ModelSpec& spec) { return !jobs::FusedNet::layers_of(spec).empty(); }

std::string fuse_key(const JobInput& job, const FusibleTerms& terms) {
  const auto& s = job.model->spec;
  const auto& o = job.optimizer;
  // Doubles in hex: equal keys mean bit-equal settings.
  return models::spec_label(s) + "|" + std::to_string(s.channels) + "x" + std::to_string(s.height) + "x" +
         std::to_string(s.width) + "/" + std::to_string(s.num_classes) + "|" + hex(s.width_multiplier) + "|" +
         std::to_string(reinterpret_cast<uintptr_t>(job.dataset)) + "|" + std::string(mode_name(o.kind)) + "," + hex(o.lr) + "," +
         hex(o.momentum) + "," + hex(o.weight_decay) + "|b" + std::to_string(job.batch_size) + "|s" +
         std::to_string(job.local_steps) + "|e" + std::to_string(terms.epochs) + "|mu" + hex(terms.proximal_mu) +
         "|" + (job.device == ComputeDevice::Cuda ? "cuda" : "cpu") + "|" + std::string(mode_name(job.precision));
}

std::vector<TrainOutcome> train_fused(const std::vector<FusedJob>& jobs) {
  using namespace jobs;
  if (jobs.empty()) return {};
  const JobInput& first = jobs.front().input;
  const std::string key = fuse_key(first, jobs.front().terms);
  for (const FusedJob& j : jobs)
    if (fuse_key(j.input, j.terms) != key) throw std::logic_error("train_fused: jobs of different fuse keys");
  const int64_t members = int64_t(jobs.size()), batch = first.batch_size;
  const models::ModelSpec& spec = first.model->spec;
  const torch::Device device = torch_device(first.device);
  const bool drop_single = models::batchnorm_on_1x1(spec);
  const double mu = jobs.front().terms.proximal_mu;

  FusedNet net(spec, members, device);
  std::vector<const std::vector<float>*> starts;
  for (const FusedJob& j : jobs) starts.push_back(&j.input.model->weights);
  net.load(starts);
  // FedProx's anchors: each member's own, stacked like its parameters.
  std::vector<torch::Tensor> anchors;
  if (mu > 0) {
    bool given = false;
    for (const FusedJob& j : jobs) given |= j.terms.anchor != nullptr;
    for (const torch::Tensor& p : net.parameters()) anchors.push_back(p.detach().clone());
    if (given) {
      FusedNet anchor_net(spec, members, device);
      std::vector<const std::vector<float>*> anchor_states;
      for (const FusedJob& j : jobs) anchor_states.push_back(j.terms.anchor ? j.terms.anchor : &j.input.model->weights);
      // An anchor holds parameters first; its buffers (if any) are not regularised.
      std::vector<std::vector<float>> padded;
      const size_t total = first.model->weights.size();
      for (auto*& a : anchor_states)
        if (a->size() != total) {
          padded.emplace_back(*a);
          padded.back().resize(total, 0.0f);
        }
      for (size_t i = 0, next = 0; i < anchor_states.size(); ++i)
        if (anchor_states[i]->size() != total) anchor_states[i] = &padded[next++];
      anchor_net.load(anchor_states);
      for (size_t k = 0; k < anchors.size(); ++k) anchors[k] = anchor_net.parameters()[k].detach().clone();
    }
  }
  FusedOptimizer optimizer(net.parameters(), first.optimizer);

  std::vector<MemberBatches> walks;
  std::vector<int> passes;
  for (const FusedJob& j : jobs) {
    const int64_t n = int64_t(j.input.train->size());
    passes.push_back(first.local_steps ? passes_begun(n, batch, first.local_steps, drop_single) : j.terms.epochs);
    walks.emplace_back(j.input, passes.back(), drop_single);
  }
  const DatasetTensors data = tensors_of(*first.dataset, first.device);
  const auto c = data.images.size(1), h = data.images.size(2), w = data.images.size(3);

  std::vector<torch::Tensor> step_losses;      // [M] per step, on the device
  std::vector<std::vector<int64_t>> step_sizes;  // each member's batch size per step (0: sat out)
  std::vector<int64_t> idx(size_t(members * batch));
  std::vector<float> real(size_t(members * batch));
  for (;;) {
    std::vector<int64_t> sizes(size_t(members), 0);
    std::vector<bool> active(size_t(members), false);
    bool any = false;
    for (int64_t m = 0; m < members; ++m) {
      const auto b = walks[size_t(m)].next();
      int64_t* row = idx.data() + m * batch;
      float* mask = real.data() + m * batch;
      // Padding repeats a real sample (any index would do: it weighs nothing).
      const data::Indices& own = *jobs[size_t(m)].input.train;
      const int64_t pad = b.size ? b.indices[0] : own.empty() ? 0 : own[0];
      for (int64_t i = 0; i < batch; ++i) {
        row[i] = i < b.size ? b.indices[i] : pad;
        mask[i] = i < b.size ? 1.0f : 0.0f;
      }
      sizes[size_t(m)] = b.size, active[size_t(m)] = b.size > 0, any |= b.size > 0;
    }
    if (!any) break;
    const torch::Tensor index = index_tensor(idx.data(), members * batch, first.device);
    const torch::Tensor x = data.images.index_select(0, index).view({members, batch, c, h, w});
    const torch::Tensor y = data.labels.index_select(0, index);
    const torch::Tensor weight = torch::from_blob(real.data(), {members, batch}, torch::kFloat32).to(device);
    std::vector<float> counts(sizes.begin(), sizes.end());
    for (float& v : counts) v = std::max(v, 1.0f);
    const torch::Tensor count = torch::from_blob(counts.data(), {members}, torch::kFloat32).to(device);

    for (const auto& p : net.parameters()) p.mutable_grad() = torch::Tensor();
    const torch::Tensor logits = net.forward_train(x, weight);
    const torch::Tensor nll =
        torch::nn::functional::cross_entropy(logits.reshape({members * batch, -1}), y,
                                             torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone))
            .view({members, batch});
    // Each member's batch loss is its own job's mean cross-entropy; their sum is the objective,
    // whose gradient in member m's parameters is member m's own.
    const torch::Tensor losses = (nll * weight).sum(1) / count;
    torch::Tensor objective = losses.sum();
    if (mu > 0) {
      torch::Tensor proximal = torch::zeros({}, objective.options());
      for (size_t k = 0; k < anchors.size(); ++k) proximal = proximal + (net.parameters()[k] - anchors[k]).pow(2).sum();
      objective = objective + 0.5 * mu * proximal;
    }
    objective.backward();
    optimizer.step(active);
    step_losses.push_back(losses.detach());
    step_sizes.push_back(std::move(sizes));
  }

  std::vector<TrainOutcome> out(static_cast<size_t>(members));
  const std::vector<std::vector<float>> states = net.states();
  const torch::Tensor all_losses =
      step_losses.empty() ? torch::zeros({0, members}, torch::kFloat64)
                          : torch::stack(step_losses).to(torch::kCPU, torch::kFloat64).contiguous();
  const double* loss_at = all_losses.data_ptr<double>();  // [step][member]
  for (int64_t m = 0; m < members; ++m) {
    TrainOutcome& o = out[size_t(m)];
    double loss_sum = 0;
    int64_t loss_samples = 0;
    for (size_t t = 0; t < step_sizes.size(); ++t) {
      const int64_t len = step_sizes[t][size_t(m)];
      if (len == 0) continue;
      const double loss = loss_at[int64_t(t) * members + m];
      o.batch_losses.push_back(loss);
      loss_sum += loss * double(len), loss_samples += len;
      ++o.steps;
    }
    o.epochs = passes[size_t(m)];
    o.mean_loss = loss_samples ? loss_sum / double(loss_samples) : 0.0;
    o.weights = states[size_t(m)];
  }
  return out;
}

}  // namespace fedgrid
