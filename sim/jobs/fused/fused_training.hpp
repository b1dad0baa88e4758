#pragma once
// Many hospitals' training jobs as one batched job (training.fuse): jobs of one fuse key (same
// architecture and width, dataset, optimiser, learning rate, batch size, epochs or steps, device
// and proximal weight) train together in a FusedNet (sim/jobs/fused/fused_net.hpp), each member
// on its own samples, shuffles, augmentation and optimiser state. Step t of the fused job is step
// t of every member's own job; a member out of batches sits the step out (masked), and a shorter batch is
// padded with samples that weigh nothing and enter no batch norm. So each member ends where its
// own job would: the same weights up to float rounding (reduction order), the same losses,
// steps and epochs. Torch-free header.
#include <string>
#include <vector>

#include "sim/jobs/local_work.hpp"

namespace fedgrid {

struct FusedJob {
  JobInput input;
  FusibleTerms terms;
};

// Whether the arch has a fused form (cnn, cnn_bn, lenet5, mlp, mlp4, the vgg family).
bool fusible_arch(const models::ModelSpec& spec);

// Jobs with the same key may train as one; the key says everything they must share.
std::string fuse_key(const JobInput& job, const FusibleTerms& terms);

// The jobs' outcomes, in order. All jobs must share one fuse_key (std::logic_error otherwise);
// fp32 only (the caller keeps other precisions apart).
std::vector<TrainOutcome> train_fused(const std::vector<FusedJob>& jobs);

}  // namespace fedgrid
