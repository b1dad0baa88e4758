#pragma once
// How the training pool is dealt to hospitals (data.partition.scheme; data/partition.hpp). Its
// own header so that the scenario's data section (sim/scenario/sections/data.hpp, where the
// names are declared) takes the enum without the partitioner.

namespace fedgrid::data {

// iid: a shuffled equal deal; dirichlet: label skew of concentration beta; shards: k classes per
// hospital; balanced: an equal count of every class per hospital; counts: each hospital's count
// of each class as given (data.partition.counts).
enum class PartitionScheme { Iid, Dirichlet, Shards, Balanced, Counts };

}  // namespace fedgrid::data
