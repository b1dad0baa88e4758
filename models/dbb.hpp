#pragma once
// Diverse Branch Block (Ding et al., CVPR 2021) as DyRep/DynamicFL use it: a KxK conv grown into
// parallel linear branches that fold back, exactly in eval mode, into one KxK conv.
// Include only where torch is needed.
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fedgrid::models {

struct ConvGeometry {
  int64_t in = 1, out = 1, kernel = 3, stride = 1, padding = 1;
};

// Declaration order is the canonical order: blocks register, draw and sum branches in it.
enum class DbbBranch { OneByOne, OneByOneKxK, OneByOneAvg, KxK, OneByK, KByOne, Identity };

std::string branch_name(DbbBranch b);  // "1x1", "1x1-kxk", "1x1-avg", "kxk", "1xk", "kx1", "identity"

// DyRep's default mask: all branches when padding == kernel/2 (odd kernel), identity only when
// in == out and stride == 1; otherwise (e.g. a 5x5 conv with padding 0) only {1x1-kxk, 1x1-avg, kxk}.
// In canonical order.
std::vector<DbbBranch> default_branches(const ConvGeometry& g);

class DbbConvImpl : public torch::nn::Module {
 public:
  // branches must contain KxK, hold no duplicates, and only branches whose output aligns with the
  // KxK conv's (those default_branches may list for g); std::invalid_argument otherwise. Conv
  // weights start fan-out normal drawn from fedgrid::Rng(seed) (torch's global generator is never
  // used), the KxK bias 0, BNs at their defaults.
  DbbConvImpl(const ConvGeometry& g, std::vector<DbbBranch> branches, uint64_t seed = 0);

  torch::Tensor forward(const torch::Tensor& x);  // sum of the branches, no nonlinearity

  struct Kernel {
    torch::Tensor weight, bias;  // [out, in, K, K] and [out]
  };
  // The one KxK conv (stride, padding of the geometry, with bias) equal to this block in eval mode
  // (running statistics), via transforms I, II, III, V, VI, IX. Detached, in the parameters' dtype.
  Kernel fuse();

  // Growth of a plain conv (DyRep `_reset_dbb`), step 1: draw every non-KxK branch (conv weights
  // normal(0, sqrt(2 / (kh*kw*out))) from fedgrid::Rng(seed), BNs reset with gamma 1, beta 0, except
  // the last BN of each branch gamma = 0.01), copy w0/b0 into the KxK conv (b0 may be undefined: no
  // bias) and make the KxK BN the identity.
  void init_from_plain(const torch::Tensor& w0, const torch::Tensor& b0, uint64_t seed);
  // Step 2 (between the two calls) is the caller's BN recalibration of batchnorms() on local data.
  // Steps 3-4: make the KxK BN exactly the identity (running_var = 1 - eps), fuse the other branches
  // to (W_o, b_o) and set the KxK conv to (w0 - W_o, b0 - b_o): fuse() == (w0, b0) afterwards.
  void absorb_remainder(const torch::Tensor& w0, const torch::Tensor& b0);

  std::vector<torch::nn::BatchNorm2d> batchnorms();  // every BN of the block, in registration order
  const ConvGeometry& geometry() const;
  const std::vector<DbbBranch>& branches() const;  // canonical order

 private:
  struct Branch;  // one branch's layers; defined in dbb.cpp
  std::shared_ptr<Branch> find(DbbBranch b) const;

  ConvGeometry geometry_;
  std::vector<DbbBranch> branches_;
  std::vector<std::shared_ptr<Branch>> parts_;  // parallel to branches_
};

TORCH_MODULE(DbbConv);

}  // namespace fedgrid::models
