#pragma once
// The numerics every algorithm shares (Flower's "strategy" helpers): weighted averaging of
// models, and what it costs on the server.
#include <vector>

#include "sim/core/model.hpp"

namespace fedgrid::algorithms {

// Sample-weighted mean of the updates' models: sum_k (n_k / n) * w_k, summed in update order
// (fixed: by hospital id), in double precision, so the result never depends on timing.
// Updates whose training was deferred (Hospital::train_later) are trained as the sum reaches
// them, a few at a time, and dropped once added.
Model weighted_average(const std::vector<Update>& updates);

// FLOPs the server spends on weighted_average: one multiply and one add per value per update.
double weighted_average_flops(const std::vector<Update>& updates);

}  // namespace fedgrid::algorithms
