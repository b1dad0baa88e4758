#pragma once
// FedRep's local work (fedrep.cpp): the head trained with the body frozen for `head_epochs`, then
// the body with the head frozen for `body_epochs`. run()'s torch side is
// representation_training.cpp, cost() representation_training_cost.cpp (sim/jobs/local_work.hpp
// says why).
#include <cstdint>

#include "models/model_spec.hpp"
#include "sim/jobs/local_work.hpp"

namespace fedgrid::algorithms {

// Where the classifier's weight and bias lie in the flat state: the last two parameter tensors
// (`offset` and `size` of both, in values; the weight's tensor returned).
models::StateTensor head_of(const models::ModelSpec& spec, int64_t& offset, int64_t& size);

class RepresentationTraining : public LocalWork {
 public:
  RepresentationTraining(int head_epochs, int body_epochs) : head_epochs_(head_epochs), body_epochs_(body_epochs) {}
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }
  TrainOutcome run_torch(const JobInput& job);
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;

 private:
  int head_epochs_, body_epochs_;
};

}  // namespace fedgrid::algorithms
