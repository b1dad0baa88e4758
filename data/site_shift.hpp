#pragma once
// Site shift: each hospital's own image transformation, standing in for its scanners and
// acquisition protocols (intensity and contrast, gamma, blur, noise, small rotation and scale,
// colour cast), so that a stand-in dataset's hospitals differ in how their images look and not
// only in which labels they hold. Parameters are drawn per site from a seed and scaled by a
// strength in [0, 1]; the images are changed in place, once, at data set-up. No torch here.
#include <cstdint>
#include <vector>

#include "data/dataset.hpp"

namespace fedgrid::data {

struct SiteShiftOptions {
  double strength = 0;  // 0: no change at all; 1: the widest ranges below (site_shift.cpp)
  bool intensity = true, gamma = true, blur = true, noise = true, geometry = true, colour = true;
};

// One site's transformation. Intensities work in units of the pixel range: u = (x - low) /
// (high - low), so u in [0, 1] whatever the dataset's normalisation.
struct SiteShift {
  double contrast = 1, brightness = 0;  // u -> contrast * u + brightness
  double gamma = 1;                     // u -> u^gamma
  double blur_sigma = 0;                // Gaussian blur, in pixels (0: none)
  double noise_std = 0;                 // additive Gaussian noise, in units of u, fresh per sample
  double rotation_rad = 0, scale = 1;   // about the image centre, counter-clockwise as displayed
  std::vector<double> channel_gain;     // colour cast: u_c -> gain_c * u_c (empty: none)
  bool operator==(const SiteShift&) const = default;  // SiteShift{} changes nothing
};

// The site's parameters; every effect draws from its own stream of `site_seed`, so switching
// one effect off leaves the others' parameters as they were. The colour cast is drawn for
// 3-channel images only.
SiteShift draw_site_shift(const SiteShiftOptions& options, int channels, uint64_t site_seed);

// Transforms one image (shape.pixels() floats) in place: geometry, blur, intensity and
// contrast, gamma, colour cast, noise drawn from `noise_seed`, then clamped to `range`.
void apply_site_shift(const SiteShift& shift, const ImageShape& shape, PixelRange range, float* image,
                      uint64_t noise_seed);

// Transforms the images at `samples` of `data` in place (the identity SiteShift{} leaves
// them byte-identical), each sample's noise seeded by
// `site_seed` and the sample's index: the same sample gets the same noise in whatever order
// the samples are visited.
void shift_samples(Dataset& data, const Indices& samples, const SiteShift& shift, PixelRange range,
                   uint64_t site_seed);

}  // namespace fedgrid::data
