#include "sim/jobs/training/augmentation.hpp"

#include <cmath>

#include "data/rng.hpp"
#include "sim/core/seed_streams.hpp"

namespace fedgrid::jobs {

AffineDraw draw_affine(const AugmentSettings& s, uint64_t job_seed, uint64_t epoch, int64_t sample) {
  Rng rng(mix_seed(job_seed, seed_streams::kAugment, epoch, uint64_t(sample)));
  // Five draws in a fixed order whatever is switched on, so that each figure of a sample is the
  // same with or without the others.
  const double flip = rng.uniform(), angle = rng.uniform(), scale = rng.uniform(), dx = rng.uniform(),
               dy = rng.uniform();
  AffineDraw d;
  d.flip = s.flip && flip < 0.5;
  d.angle_deg = s.rotate_deg * (2 * angle - 1);
  d.scale = s.scale_min + (s.scale_max - s.scale_min) * scale;
  d.shift_x = s.translate * (2 * dx - 1);
  d.shift_y = s.translate * (2 * dy - 1);
  return d;
}

torch::Tensor transform_images(const torch::Tensor& images, const std::vector<AffineDraw>& draws) {
  const int64_t n = images.size(0);
  const double h = double(images.size(2)), w = double(images.size(3));
  // affine_grid maps each output location to where it samples the input, in coordinates
  // normalised to [-1, 1] per axis: theta is the inverse of the image's transform. In pixel
  // units (x right, y down, origin at the centre) the forward map is p -> R S F p + t, so
  // p = F S^-1 R^-1 (q - t); the normalised matrix is that one seen through diag(2/w, 2/h).
  std::vector<float> theta(size_t(n) * 6);
  for (int64_t i = 0; i < n; ++i) {
    const AffineDraw& d = draws[size_t(i)];
    const double a = d.angle_deg * M_PI / 180, c = std::cos(a) / d.scale, s = std::sin(a) / d.scale;
    const double f = d.flip ? -1 : 1;
    // F S^-1 R(-a) in pixel units.
    const double m00 = f * c, m01 = f * s, m10 = -s, m11 = c;
    // Normalised: the off-diagonal terms carry the aspect ratio.
    const double n00 = m00, n01 = m01 * h / w, n10 = m10 * w / h, n11 = m11;
    const double tx = 2 * d.shift_x, ty = 2 * d.shift_y;  // the shift, normalised
    float* row = theta.data() + 6 * i;
    row[0] = float(n00), row[1] = float(n01), row[2] = float(-(n00 * tx + n01 * ty));
    row[3] = float(n10), row[4] = float(n11), row[5] = float(-(n10 * tx + n11 * ty));
  }
  const torch::Tensor t =
      torch::from_blob(theta.data(), {n, 2, 3}, torch::kFloat32).to(images.device(), images.scalar_type());
  namespace F = torch::nn::functional;
  const torch::Tensor grid = F::affine_grid(t, images.sizes(), /*align_corners=*/false);
  return F::grid_sample(images, grid,
                        F::GridSampleFuncOptions().mode(torch::kBilinear).padding_mode(torch::kZeros).align_corners(false));
}

torch::Tensor augment_batch(const torch::Tensor& images, const AugmentSettings& settings, uint64_t job_seed,
                            uint64_t epoch, const int64_t* samples) {
  std::vector<AffineDraw> draws;
  draws.reserve(size_t(images.size(0)));
  for (int64_t i = 0; i < images.size(0); ++i) draws.push_back(draw_affine(settings, job_seed, epoch, samples[i]));
  return transform_images(images, draws);
}

}  // namespace fedgrid::jobs
