#pragma once
// Growing a net's KxK conv into a diverse-branch block and folding it back (DynamicFL's
// REP(.)), on the GrowableConv slots of models/nets.hpp. Include only where torch is needed.
#include <torch/torch.h>

#include <cstdint>

#include "models/nets.hpp"

namespace fedgrid::models {

// Replaces the slot's forward pass with a diverse-branch block (DyRep's default branches)
// drawn from `seed`, computing what the plain conv computed up to its batch-norm statistics;
// call absorb_remainder() after recalibrating the block's batch norms.
void grow(GrowableConv& site, uint64_t seed);
// The KxK branch takes the plain weights minus the other branches: exact in eval mode.
void absorb_remainder(GrowableConv& site);
// The block's equivalent KxK kernel goes back into the plain conv; a fused bias goes into the
// conv's bias, or, for a bias-free conv, into the following batch norm (running_mean -= b),
// which is exact in eval mode. The block is removed.
void fold(GrowableConv& site);
// Removes a grown block without folding (a job that failed midway).
void drop_block(GrowableConv& site);

}  // namespace fedgrid::models
