#pragma once
// Width-sliced sub-models of one wide model (HeteroFL, FedRolex): which values of the wide
// state a narrow model of the same architecture holds, how to cut it out, and how to average
// narrow updates back into the wide model. Torch-free: plain index arithmetic on flat states.
#include <cstdint>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/core/model.hpp"

namespace fedgrid::algorithms {

// For every value of `narrow`'s flat state, its index in `wide`'s. Along each hidden axis of K
// wide channels the narrow model holds k of them: channels (offset + j) mod K for j < k, so
// offset 0 is HeteroFL's "first k" and a rolling offset is FedRolex's window. Input channels,
// classes and kernel taps map one to one. Throws std::invalid_argument when the two specs are
// not the same architecture on the same data, or the narrow one is wider.
std::vector<int64_t> submodel_index(const models::ModelSpec& wide, const models::ModelSpec& narrow, int64_t offset);
// What submodel_index throws for, checked alone (cheap: no index is built).
void check_submodel(const models::ModelSpec& wide, const models::ModelSpec& narrow);

// The narrow model cut out of `wide` (shape only when `wide` holds no state).
Model extract_submodel(const Model& wide, const models::ModelSpec& narrow, const std::vector<int64_t>& index);

// Every wide value becomes the sample-weighted mean of the updates that hold it, summed in
// update order in double precision; a value no update holds keeps its wide value.
// index[k] is update k's submodel_index.
Model aggregate_submodels(const Model& wide, const std::vector<Update>& updates,
                          const std::vector<const std::vector<int64_t>*>& index);
// Server FLOPs of aggregate_submodels: a multiply and an add per value each update holds (as
// weighted_average_flops counts them).
double aggregate_submodels_flops(const std::vector<Update>& updates);

}  // namespace fedgrid::algorithms
