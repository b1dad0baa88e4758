// The proximal term as local work (see proximal.hpp).
#include "algorithms/proximal.hpp"

#include <typeinfo>

#include "models/nets.hpp"
#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid::algorithms {

struct ProximalTraining::Anchor {
  std::vector<torch::Tensor> parameters;
};

ProximalTraining::ProximalTraining(int epochs, double mu, const std::vector<float>* anchor)
    : PlainTraining(epochs), mu_(mu), anchor_flat_(anchor), anchor_(std::make_unique<Anchor>()) {}
ProximalTraining::ProximalTraining(ProximalTraining&&) noexcept = default;
ProximalTraining::~ProximalTraining() = default;

std::optional<FusibleTerms> ProximalTraining::fusible() const {
  if (typeid(*this) != typeid(ProximalTraining)) return std::nullopt;  // a subclass trains something else
  return FusibleTerms{epochs_, mu_, anchor_flat_};
}

void ProximalTraining::on_start(models::Net& net) {
  anchor_->parameters.clear();
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

void ProximalTraining::add_penalty(BatchStep& step) {
  const auto params = step.net.parameters();
  const auto& anchor = anchor_->parameters;
  torch::Tensor proximal = torch::zeros({}, step.loss.options());
  for (size_t i = 0; i < params.size(); ++i) proximal = proximal + (params[i] - anchor[i]).pow(2).sum();
  step.objective = step.loss + 0.5 * mu_ * proximal;
}

}  // namespace fedgrid::algorithms
