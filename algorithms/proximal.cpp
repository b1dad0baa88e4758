// The proximal term as local work, its torch side (see proximal.hpp).
#include "algorithms/proximal.hpp"

#include "models/nets.hpp"
#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid::algorithms {

struct ProximalTraining::Anchor {
  std::vector<torch::Tensor> parameters;
};

void ProximalTraining::on_start_torch(models::Net& net) {
  anchor_ = std::make_shared<Anchor>();
  int64_t offset = 0;
  for (const auto& p : net.parameters()) {
    if (anchor_flat_ == nullptr) {
      anchor_->parameters.push_back(p.detach().clone());
      continue;
    }
    auto values = torch::from_blob(const_cast<float*>(anchor_flat_->data()) + offset, p.sizes(), torch::kFloat32);
    anchor_->parameters.push_back(values.to(p.device()).clone());
    offset += p.numel();
  }
}

void ProximalTraining::add_penalty_torch(BatchStep& step) {
  const auto params = step.net.parameters();
  const auto& anchor = anchor_->parameters;
  torch::Tensor proximal = torch::zeros({}, step.loss.options());
  for (size_t i = 0; i < params.size(); ++i) proximal = proximal + (params[i] - anchor[i]).pow(2).sum();
  step.objective = step.loss + 0.5 * mu_ * proximal;
}

}  // namespace fedgrid::algorithms
