#include "models/growth.hpp"

#include <stdexcept>

#include "models/dbb.hpp"

namespace fedgrid::models {
namespace {

ConvGeometry geometry_of(const GrowableConv& site) {
  return {site->in, site->out, site->kernel, site->stride, site->padding};
}

DbbConv block_of(GrowableConv& site) {
  if (!site->grown()) throw std::logic_error("conv slot is not grown");
  return site->block.get<DbbConv>();
}

// The plain weights the block was grown from: the conv keeps them while the block is in use.
torch::Tensor plain_bias(GrowableConv& site) {
  return site->conv->bias.defined() ? site->conv->bias.detach() : torch::Tensor();
}

}  // namespace

void grow(GrowableConv& site, uint64_t seed) {
  if (site->grown()) throw std::logic_error("conv slot already grown");
  const auto g = geometry_of(site);
  DbbConv block(g, default_branches(g), seed);
  block->to(site->conv->weight.device());
  block->init_from_plain(site->conv->weight.detach(), plain_bias(site), seed);
  site->block = torch::nn::AnyModule(block);
  site->register_module("grown", block.ptr());
}

void absorb_remainder(GrowableConv& site) {
  block_of(site)->absorb_remainder(site->conv->weight.detach(), plain_bias(site));
}

void fold(GrowableConv& site) {
  torch::NoGradGuard no_grad;
  const auto kernel = block_of(site)->fuse();
  site->conv->weight.copy_(kernel.weight);
  if (site->conv->bias.defined()) site->conv->bias.copy_(kernel.bias);
  else if (site->follower) site->follower->running_mean.sub_(kernel.bias);
  else throw std::logic_error("a bias-free conv without a following batch norm cannot take a fused bias");
  drop_block(site);
}

void drop_block(GrowableConv& site) {
  if (!site->grown()) return;
  site->unregister_module("grown");
  site->block = torch::nn::AnyModule();
}

}  // namespace fedgrid::models
