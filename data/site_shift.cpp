// Site shift, written out in plain C++ (no torch, so data/ stays torch-free and every value is
// fixed by this file): bilinear resampling, a separable Gaussian blur, point-wise intensity
// maps and seeded noise.
#include "data/site_shift.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "data/rng.hpp"

namespace fedgrid::data {
namespace {

// The widest draw of each parameter, reached at strength 1 (a draw is uniform within it,
// scaled by the strength). Chosen so that a strong shift is plainly visible on a 28x28 image
// yet leaves the class recognisable: contrast 0.71-1.41x, brightness +-15% of the range, gamma
// 0.66-1.52, blur sigma up to 1 px, noise std up to 5% of the range, rotation +-10 degrees,
// scale 0.90-1.11x, per-channel gains 0.87-1.15x.
constexpr double kContrastLog2 = 0.5;
constexpr double kBrightness = 0.15;
constexpr double kGammaLog2 = 0.6;
constexpr double kBlurSigma = 1.0;
constexpr double kNoiseStd = 0.05;
constexpr double kRotation = 10.0 * std::numbers::pi / 180.0;
constexpr double kScaleLog2 = 0.15;
constexpr double kColourLog2 = 0.2;

// One stream per effect (and one for the per-sample noise), so the effects never share draws.
enum : uint64_t { kIntensityTag = 1, kGammaTag, kBlurTag, kNoiseLevelTag, kGeometryTag, kColourTag, kNoiseSampleTag };

double symmetric(Rng& rng) { return 2 * rng.uniform() - 1; }

// Standard normal draws, both halves of each Box-Muller pair (Rng::normal keeps one): the
// noise is most of a shift's cost.
class NormalPairs {
 public:
  explicit NormalPairs(uint64_t seed) : rng_(seed) {}
  double next() {
    if (have_spare_) return have_spare_ = false, spare_;
    const double radius = std::sqrt(-2.0 * std::log(std::max(rng_.uniform(), 1e-300)));
    const double angle = 2.0 * std::numbers::pi * rng_.uniform();
    spare_ = radius * std::sin(angle), have_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  Rng rng_;
  double spare_ = 0;
  bool have_spare_ = false;
};

// Output pixel (y, x) takes the input at the inverse rotation/scale of its offset from the
// centre, bilinear, coordinates clamped to the image (edges replicated).
void rotate_and_scale(const float* in, float* out, int h, int w, double angle, double scale) {
  const double c = std::cos(angle), s = std::sin(angle), cy = (h - 1) / 2.0, cx = (w - 1) / 2.0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double dy = y - cy, dx = x - cx;
      const double sx = std::clamp(cx + (dx * c - dy * s) / scale, 0.0, double(w - 1));
      const double sy = std::clamp(cy + (dx * s + dy * c) / scale, 0.0, double(h - 1));
      const int x0 = int(sx), y0 = int(sy), x1 = std::min(x0 + 1, w - 1), y1 = std::min(y0 + 1, h - 1);
      const double fx = sx - x0, fy = sy - y0;
      const double top = in[y0 * w + x0] * (1 - fx) + in[y0 * w + x1] * fx;
      const double bottom = in[y1 * w + x0] * (1 - fx) + in[y1 * w + x1] * fx;
      out[y * w + x] = float(top * (1 - fy) + bottom * fy);
    }
}

std::vector<double> gaussian_kernel(double sigma) {
  const int radius = int(std::ceil(3 * sigma));
  std::vector<double> k(size_t(2 * radius + 1));
  double sum = 0;
  for (int i = -radius; i <= radius; ++i) sum += k[size_t(i + radius)] = std::exp(-i * i / (2 * sigma * sigma));
  for (double& v : k) v /= sum;
  return k;
}

// One pass of the separable blur along rows (step 1) or columns (step w), edges replicated.
void blur_pass(const float* in, float* out, int h, int w, const std::vector<double>& kernel, bool along_rows) {
  const int radius = int(kernel.size() / 2);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum = 0;
      for (int i = -radius; i <= radius; ++i) {
        const int yy = along_rows ? y : std::clamp(y + i, 0, h - 1);
        const int xx = along_rows ? std::clamp(x + i, 0, w - 1) : x;
        sum += kernel[size_t(i + radius)] * in[yy * w + xx];
      }
      out[y * w + x] = float(sum);
    }
}

}  // namespace

SiteShift draw_site_shift(const SiteShiftOptions& o, int channels, uint64_t site_seed) {
  SiteShift s;
  const double k = o.strength;
  if (k == 0) return s;
  auto stream = [&](uint64_t tag) { return Rng(mix_seed(site_seed, tag)); };
  if (o.intensity) {
    Rng r = stream(kIntensityTag);
    s.contrast = std::exp2(k * kContrastLog2 * symmetric(r));
    s.brightness = k * kBrightness * symmetric(r);
  }
  if (o.gamma) {
    Rng r = stream(kGammaTag);
    s.gamma = std::exp2(k * kGammaLog2 * symmetric(r));
  }
  if (o.blur) {
    Rng r = stream(kBlurTag);
    s.blur_sigma = k * kBlurSigma * r.uniform();
  }
  if (o.noise) {
    Rng r = stream(kNoiseLevelTag);
    s.noise_std = k * kNoiseStd * r.uniform();
  }
  if (o.geometry) {
    Rng r = stream(kGeometryTag);
    s.rotation_rad = k * kRotation * symmetric(r);
    s.scale = std::exp2(k * kScaleLog2 * symmetric(r));
  }
  if (o.colour && channels == 3) {
    Rng r = stream(kColourTag);
    for (int c = 0; c < channels; ++c) s.channel_gain.push_back(std::exp2(k * kColourLog2 * symmetric(r)));
  }
  return s;
}

void apply_site_shift(const SiteShift& s, const ImageShape& shape, PixelRange range, float* image,
                      uint64_t noise_seed) {
  const int h = shape.height, w = shape.width;
  const size_t plane = size_t(h) * size_t(w);
  std::vector<float> scratch(plane);
  const bool geometry = s.rotation_rad != 0 || s.scale != 1;
  const std::vector<double> kernel = s.blur_sigma > 0 ? gaussian_kernel(s.blur_sigma) : std::vector<double>{};
  for (int c = 0; c < shape.channels; ++c) {
    float* p = image + size_t(c) * plane;
    if (geometry) {
      rotate_and_scale(p, scratch.data(), h, w, s.rotation_rad, s.scale);
      std::copy(scratch.begin(), scratch.end(), p);
    }
    if (!kernel.empty()) {
      blur_pass(p, scratch.data(), h, w, kernel, true);
      blur_pass(scratch.data(), p, h, w, kernel, false);
    }
  }
  // Point-wise maps in units of the range; the noise stream runs over the pixels in order.
  const double low = range.low, span = double(range.high) - double(range.low);
  NormalPairs noise(noise_seed);
  for (int c = 0; c < shape.channels; ++c) {
    const double gain = s.channel_gain.empty() ? 1.0 : s.channel_gain[size_t(c)];
    float* p = image + size_t(c) * plane;
    for (size_t i = 0; i < plane; ++i) {
      double u = std::clamp(s.contrast * ((p[i] - low) / span) + s.brightness, 0.0, 1.0);
      if (s.gamma != 1) u = std::pow(u, s.gamma);
      u *= gain;
      if (s.noise_std > 0) u += s.noise_std * noise.next();
      p[i] = float(low + std::clamp(u, 0.0, 1.0) * span);
    }
  }
}

void shift_samples(Dataset& data, const Indices& samples, const SiteShift& shift, PixelRange range,
                   uint64_t site_seed) {
  if (shift == SiteShift{}) return;  // not even the round trip through u, which could round
  const size_t pixels = size_t(data.shape.pixels());
  for (int64_t i : samples)
    apply_site_shift(shift, data.shape, range, data.images.data() + size_t(i) * pixels,
                     mix_seed(site_seed, kNoiseSampleTag, uint64_t(i)));
}

}  // namespace fedgrid::data
