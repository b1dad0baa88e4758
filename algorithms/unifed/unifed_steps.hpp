#pragma once
// The pieces of UniFed's algorithm box that are plain arithmetic, apart so tests can check
// them by hand: the loss-slope score (Eq. 2), the curriculum order, the update accumulation.
#include <map>
#include <vector>

#include "sim/core/model.hpp"

namespace fedgrid::algorithms {

// Eq. 2: least-squares slope of the batch losses against the batch index b = 0, 1, ...
// (steeper descent = more negative = easier task). Fewer than two losses: 0.
double loss_slope(const std::vector<double>& batch_losses);

// Hospital ids by ascending score (easiest first), ties by id; ids without a score last.
std::vector<int> order_by_score(std::vector<int> ids, const std::map<int, double>& score);

// theta_{t+1} = alpha * theta_K + (1 - alpha) * theta_S, element-wise over the whole state
// (parameters and any normalisation buffers), computed in double.
Model mix(double alpha, const Model& last_hospital, const Model& server);
double mix_flops(const Model& m);  // 3 FLOPs per value

}  // namespace fedgrid::algorithms
