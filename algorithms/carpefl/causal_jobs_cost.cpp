// CarPe-FL's hospital jobs charged (causal_jobs.hpp): torch-free; the jobs themselves are in
// causal_jobs.cpp.
#include "algorithms/carpefl/causal_jobs.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::carpefl {

Charge LatentStatistics::cost(const JobShape& shape, const TrainOutcome*) const {
  return {models::model_cost(shape.spec).forward_flops * double(shape.samples), 0, {{shape.spec, {}, shape.samples}}};
}

Charge CausalTraining::cost(const JobShape& shape, const TrainOutcome* done) const {
  return PlainTraining(epochs_).cost(shape, done);
}

}  // namespace fedgrid::carpefl
