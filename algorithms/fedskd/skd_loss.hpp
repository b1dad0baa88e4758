#pragma once
// FedSKD's multi-dimensional similarity knowledge distillation (Weng, Cai, Zhou 2025, Sec. II-C).
// Feature maps of two networks at the same stages are compared through row-normalised Gram
// ("similarity") matrices, which do not depend on the channel count, so networks of different
// widths distil into each other without projection layers.
//
// Levels built: batch (b x b, sample to sample) and pixel (hw x hw, location to location). The
// paper's region level needs predefined anatomical regions (a brain atlas); the data fedgrid
// simulates has none, so it is not built. Torch inside: include only from torch job files.
#include <torch/torch.h>

#include <vector>

namespace fedgrid::skd {

// Sim(H) = rownorm(H H^T) * sqrt(n) for H of n rows (Eqs. 4/5/7/8): each row of the Gram
// matrix divided by its L2 norm (zero rows stay zero), rescaled by sqrt(n).
torch::Tensor similarity(const torch::Tensor& rows);
// Feature map [b, c, h, w] as one row per sample [b, c*h*w] (batch level), or one row per
// location [h*w, b*c] (pixel level, rows ordered (y, x), columns (sample, channel)).
torch::Tensor batch_rows(const torch::Tensor& features);
torch::Tensor pixel_rows(const torch::Tensor& features);
// (1/n^2) ||A - B||_F^2 for n x n matrices.
torch::Tensor mean_square_gap(const torch::Tensor& a, const torch::Tensor& b);

struct Levels {
  bool batch = true, pixel = true;
};

// L_SKD = L^B + L^P (Eq. 15), each the mean over the tapped stages of mean_square_gap between the
// two networks' similarity matrices (Eqs. 6, 9). dam[l] and ktm[l] are the same stage of each
// network; where their map sizes differ, the KTM's map is resized bilinearly to the DAM's
// before the pixel level (a choice the paper leaves open). Gradients flow into both sides (mutual
// learning).
torch::Tensor loss(const std::vector<torch::Tensor>& dam, const std::vector<torch::Tensor>& ktm, Levels levels);

}  // namespace fedgrid::skd
