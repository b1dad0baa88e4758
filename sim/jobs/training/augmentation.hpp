#pragma once
// data.augment: random flips, rotations, shifts and zooms of training images, the four
// augmentations FedSKD's experiments apply to every method's data (flip, rotation, translation,
// scaling; algorithms/fedskd/README.md). Each sample gets one affine transform per epoch, drawn
// from its own counter-based stream (seed_streams::kAugment) keyed by the job's seed (scenario
// seed, hospital, round or asynchronous job), the epoch and the sample's index in the training
// pool: no global generator, no dependence on threads, workers or batch composition.
// Include only from .cpp files that run on the executor (torch/torch.h).
#include <torch/torch.h>

#include <cstdint>

#include "sim/core/augment_settings.hpp"

namespace fedgrid::jobs {

// One sample's transform: the image is flipped left-right (when `flip`), scaled by `scale`
// and rotated by `angle_deg` about its centre, then shifted by (shift_x, shift_y) of its width
// and height (positive: right and down).
struct AffineDraw {
  bool flip = false;
  double angle_deg = 0, scale = 1, shift_x = 0, shift_y = 0;
};

// The transform of training sample `sample` in epoch `epoch` of the job seeded `job_seed`.
AffineDraw draw_affine(const AugmentSettings& settings, uint64_t job_seed, uint64_t epoch, int64_t sample);

// `images` (N x C x H x W) with draws[i] applied to image i: bilinear, zero outside the image,
// on the images' device (affine_grid + grid_sample, align_corners false).
torch::Tensor transform_images(const torch::Tensor& images, const std::vector<AffineDraw>& draws);

// A training batch augmented: `samples[i]` is the pool index of image i.
torch::Tensor augment_batch(const torch::Tensor& images, const AugmentSettings& settings, uint64_t job_seed,
                            uint64_t epoch, const int64_t* samples);

}  // namespace fedgrid::jobs
