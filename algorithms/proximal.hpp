#pragma once
// FedProx's local work (fedprox.cpp) for the methods that reuse its proximal term: plain
// training of F_k(w) + (mu/2)||w - w_0||^2, anchored at the model the job starts from
// (FedAsync's worker objective with mu = rho).
#include <memory>

#include "sim/jobs/local_work.hpp"

namespace fedgrid::algorithms {

std::unique_ptr<LocalWork> proximal_training(int epochs, double mu);

}  // namespace fedgrid::algorithms
