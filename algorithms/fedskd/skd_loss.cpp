#include "algorithms/fedskd/skd_loss.hpp"

#include <cmath>
#include <stdexcept>

namespace fedgrid::skd {

namespace F = torch::nn::functional;

torch::Tensor similarity(const torch::Tensor& rows) {
  const torch::Tensor gram = rows.matmul(rows.t());
  return F::normalize(gram, F::NormalizeFuncOptions().p(2).dim(1).eps(1e-12)) * std::sqrt(double(rows.size(0)));
}

torch::Tensor batch_rows(const torch::Tensor& features) { return features.flatten(1); }

torch::Tensor pixel_rows(const torch::Tensor& features) {
  const torch::Tensor f = features.flatten(2);  // [b, c, hw]
  return f.permute({2, 0, 1}).reshape({f.size(2), f.size(0) * f.size(1)});
}

torch::Tensor mean_square_gap(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).pow(2).sum() / double(a.size(0) * a.size(0));
}

torch::Tensor loss(const std::vector<torch::Tensor>& dam, const std::vector<torch::Tensor>& ktm, Levels levels) {
  if (dam.size() != ktm.size() || dam.empty())
    throw std::invalid_argument("skd::loss: the two networks must tap the same, non-empty set of stages");
  torch::Tensor batch = torch::zeros({}, dam.front().options()), pixel = batch;
  for (size_t l = 0; l < dam.size(); ++l) {
    const torch::Tensor& d = dam[l];
    torch::Tensor k = ktm[l];
    if (levels.batch) batch = batch + mean_square_gap(similarity(batch_rows(d)), similarity(batch_rows(k)));
    if (levels.pixel) {
      if (k.size(2) != d.size(2) || k.size(3) != d.size(3))
        k = F::interpolate(k, F::InterpolateFuncOptions()
                                  .size(std::vector<int64_t>{d.size(2), d.size(3)})
                                  .mode(torch::kBilinear)
                                  .align_corners(false));
      pixel = pixel + mean_square_gap(similarity(pixel_rows(d)), similarity(pixel_rows(k)));
    }
  }
  return (batch + pixel) / double(dam.size());
}

}  // namespace fedgrid::skd
