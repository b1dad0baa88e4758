// Fused training (see fused_training.hpp): the epoch loop's batches (BatchWalk) and the one
// optimiser (LocalOptimizer, stacked) for M jobs at once; what is fused's own is the batching.
#include "sim/jobs/fused/fused_training.hpp"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "sim/jobs/training/epoch_loop.hpp"
#include "sim/jobs/fused/fused_net.hpp"

namespace fedgrid {
namespace {

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
         hex(o.momentum) + "," + hex(o.weight_decay) + "," + hex(o.beta1) + "," + hex(o.beta2) + "|b" + std::to_string(job.batch_size) + "|s" +
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
  LocalOptimizer optimizer(net.parameters(), first.optimizer, members);

  std::vector<BatchWalk> walks;
  std::vector<int> passes;
  for (const FusedJob& j : jobs) {
    const int64_t n = int64_t(j.input.train->size());
    passes.push_back(first.local_steps ? passes_begun(n, batch, first.local_steps, drop_single) : j.terms.epochs);
    walks.emplace_back(*j.input.train, j.input.seed, batch, LoopPlan{passes.back(), 0, first.local_steps, drop_single});
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
    std::vector<BatchWalk::Batch> batches;
    bool any = false;
    for (int64_t m = 0; m < members; ++m) {
      const BatchWalk::Batch b = walks[size_t(m)].next();
      int64_t* row = idx.data() + m * batch;
      float* mask = real.data() + m * batch;
      // Padding repeats a real sample (any index would do: it weighs nothing).
      const data::Indices& own = *jobs[size_t(m)].input.train;
      const int64_t pad = b.size ? b.samples[0] : own.empty() ? 0 : own[0];
      for (int64_t i = 0; i < batch; ++i) {
        row[i] = i < b.size ? b.samples[i] : pad;
        mask[i] = i < b.size ? 1.0f : 0.0f;
      }
      sizes[size_t(m)] = b.size, active[size_t(m)] = b.size > 0, any |= b.size > 0;
      batches.push_back(b);
    }
    if (!any) break;
    const torch::Tensor index = index_tensor(idx.data(), members * batch, first.device);
    torch::Tensor images = data.images.index_select(0, index);
    // Each member's real samples augmented as its own job augments them (padding weighs nothing).
    for (int64_t m = 0; m < members; ++m)
      if (const BatchWalk::Batch& b = batches[size_t(m)]; b && jobs[size_t(m)].input.augment.on()) {
        torch::Tensor rows = images.narrow(0, m * batch, b.size);
        rows.copy_(augmented(jobs[size_t(m)].input, rows, b));
      }
    const torch::Tensor x = images.view({members, batch, c, h, w});
    const torch::Tensor y = data.labels.index_select(0, index);
    const torch::Tensor weight = torch::from_blob(real.data(), {members, batch}, torch::kFloat32).to(device);
    std::vector<float> counts(sizes.begin(), sizes.end());
    for (float& v : counts) v = std::max(v, 1.0f);
    const torch::Tensor count = torch::from_blob(counts.data(), {members}, torch::kFloat32).to(device);

    optimizer.zero_grad(/*set_to_none=*/true);
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
