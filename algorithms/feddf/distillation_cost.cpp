// FedDF's server works charged (distillation.hpp), and the distilled student handed back:
// torch-free.
#include "algorithms/feddf/distillation.hpp"

namespace fedgrid::algorithms {

double EnsembleLogits::flops() const {
  double flops = 0;
  for (const Model* t : teachers_) flops += models::model_cost(t->spec).forward_flops * double(samples_.size());
  return flops;
}

double Distillation::flops() const {
  return models::model_cost(student_.spec).train_flops() * double(samples_.size()) * settings_.epochs;
}

Model Distillation::result() const {
  Model out = shape_only_model(student_.spec, student_.values());
  out.weights = weights_;
  return out;
}

}  // namespace fedgrid::algorithms
