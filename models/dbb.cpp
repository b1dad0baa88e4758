// Diverse Branch Block: the branches' forward passes and their fold into one KxK conv (Ding et al.,
// CVPR 2021; DyRep, Huang et al., CVPR 2022, grows them). Conv weights are plain parameters
// applied with torch::conv2d rather than nn::Conv2d modules, whose constructors draw from
// torch's process-global generator; every draw here comes from fedgrid::Rng instead.
#include "models/dbb.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "data/rng.hpp"

namespace fedgrid::models {
namespace {

namespace nn = torch::nn;
using torch::Tensor;
using Kernel = DbbConvImpl::Kernel;

constexpr DbbBranch kAllBranches[] = {DbbBranch::OneByOne, DbbBranch::OneByOneKxK, DbbBranch::OneByOneAvg,
                                      DbbBranch::KxK,      DbbBranch::OneByK,      DbbBranch::KByOne,
                                      DbbBranch::Identity};

// Branches that see the input at the KxK conv's window centre need padding == kernel/2 (odd
// kernel); the others pad inside the branch and fit any padding.
bool centred(const ConvGeometry& g) { return g.kernel % 2 == 1 && g.padding == g.kernel / 2; }

bool fits(DbbBranch b, const ConvGeometry& g) {
  switch (b) {
    case DbbBranch::OneByOneKxK:
    case DbbBranch::OneByOneAvg:
    case DbbBranch::KxK:
      return true;
    case DbbBranch::OneByOne:
    case DbbBranch::OneByK:
    case DbbBranch::KByOne:
      return centred(g);
    case DbbBranch::Identity:
      return centred(g) && g.in == g.out && g.stride == 1;
  }
  return false;
}

std::string module_name(DbbBranch b) {
  switch (b) {
    case DbbBranch::OneByOne: return "dbb_1x1";
    case DbbBranch::OneByOneKxK: return "dbb_1x1_kxk";
    case DbbBranch::OneByOneAvg: return "dbb_1x1_avg";
    case DbbBranch::KxK: return "dbb_kxk";
    case DbbBranch::OneByK: return "dbb_1xk";
    case DbbBranch::KByOne: return "dbb_kx1";
    case DbbBranch::Identity: return "dbb_id";
  }
  throw std::logic_error("unknown DbbBranch");
}

Tensor f64(const Tensor& t) { return t.detach().to(torch::kFloat64); }

// Kaiming normal in fan-out mode (DyRep's init): sd = sqrt(2 / (kh * kw * out)).
void draw_fan_out(const Tensor& weight, Rng& rng) {
  const double sd = std::sqrt(2.0 / double(weight.size(0) * weight.size(2) * weight.size(3)));
  std::vector<float> values(weight.numel());
  for (float& v : values) v = float(sd * rng.normal());
  torch::NoGradGuard no_grad;
  weight.copy_(torch::from_blob(values.data(), weight.sizes(), torch::kFloat32));
}

void reset_bn(nn::BatchNorm2d bn, double gamma) {
  torch::NoGradGuard no_grad;
  bn->reset_running_stats();  // mean 0, var 1, no batches tracked
  bn->weight.fill_(gamma);
  bn->bias.zero_();
}

// The BN as an exact identity in eval mode: with running_var = 1 - eps (rounded to float), the
// float sum var + eps that BN evaluates rounds to exactly 1 (the error of 1 - eps is at most half
// an ulp below 1, and a tie rounds to the even 1.0).
void make_identity(nn::BatchNorm2d bn) {
  reset_bn(bn, 1.0);
  torch::NoGradGuard no_grad;
  bn->running_var.fill_(1.0f - float(bn->options.eps()));
}

// BN, then pad by p with the BN's image of a zero input, so that 1x1 -> BNAndPad -> KxK(pad 0)
// equals one KxK conv over a zero-padded input. The pad uses the statistics the BN normalised
// with: running ones in eval mode (exact fold), the batch's in train mode (so the padded map is
// still the BN's affine map of a zero-padded input).
Tensor bn_and_pad(nn::BatchNorm2d bn, const Tensor& x, int64_t p) {
  const Tensor y = bn->forward(x);
  if (p == 0) return y;
  const bool batch_stats = bn->is_training();
  const Tensor mean = batch_stats ? x.mean({0, 2, 3}) : bn->running_mean;
  const Tensor var = batch_stats ? x.var(torch::IntArrayRef{0, 2, 3}, /*unbiased=*/false) : bn->running_var;
  const Tensor value = bn->bias - mean * bn->weight / (var + bn->options.eps()).sqrt();
  // value * border adds exactly 0 inside, so the interior stays bit-identical to y.
  const int64_t h = y.size(2), w = y.size(3);
  Tensor border = torch::ones({1, 1, h + 2 * p, w + 2 * p}, y.options());
  border.slice(2, p, p + h).slice(3, p, p + w).zero_();
  return torch::constant_pad_nd(y, {p, p, p, p}) + value.view({1, -1, 1, 1}) * border;
}

// Transform I: a conv (weight w, bias b or undefined) followed by bn with running statistics.
// std is computed in the BN's dtype as its eval forward does, so make_identity() folds to 1 exactly.
Kernel fold_bn(const Tensor& w, const Tensor& b, const nn::BatchNorm2d& bn) {
  const Tensor std = (bn->running_var.detach() + bn->options.eps()).sqrt().to(torch::kFloat64);
  const Tensor scale = f64(bn->weight) / std;
  Tensor bias = f64(bn->bias) - f64(bn->running_mean) * scale;
  if (b.defined()) bias = bias + b * scale;
  return {w * scale.view({-1, 1, 1, 1}), bias};
}

// Transform III: 1x1 (k1, b1) then KxK (k2, b2) is one KxK conv: W = k2 (*) k1^T, b = sum k2 b1 + b2.
Kernel compose(const Kernel& first, const Kernel& second) {
  const Tensor w = torch::conv2d(second.weight, first.weight.permute({1, 0, 2, 3}));
  const Tensor b = (second.weight * first.bias.view({1, -1, 1, 1})).sum({1, 2, 3}) + second.bias;
  return {w, b};
}

// Transform VI: zero-pad a 1x1, 1xK or Kx1 kernel to KxK, centred.
Tensor pad_to(const Tensor& w, int64_t k) {
  const int64_t dh = (k - w.size(2)) / 2, dw = (k - w.size(3)) / 2;
  return torch::constant_pad_nd(w, {dw, dw, dh, dh});
}

// Transforms V and IX: AvgPool(K) as a KxK conv with 1/K^2 on the channel diagonal, and the
// identity as a KxK conv with 1 at the centre of the diagonal.
Tensor avg_kernel(int64_t channels, int64_t k, const torch::TensorOptions& options) {
  return torch::eye(channels, options).view({channels, channels, 1, 1}).expand({channels, channels, k, k}) /
         double(k * k);
}
Tensor identity_kernel(int64_t channels, int64_t k, const torch::TensorOptions& options) {
  return pad_to(torch::eye(channels, options).view({channels, channels, 1, 1}), k);
}

void check_plain(const ConvGeometry& g, const Tensor& w0, const Tensor& b0) {
  const std::vector<int64_t> want{g.out, g.in, g.kernel, g.kernel};
  if (!w0.defined() || w0.sizes().vec() != want)
    throw std::invalid_argument("DbbConv: the plain conv's weight must be [out, in, K, K] of the block");
  if (b0.defined() && b0.sizes().vec() != std::vector<int64_t>{g.out})
    throw std::invalid_argument("DbbConv: the plain conv's bias must be [out] or undefined");
}

}  // namespace

// One branch. Its first conv is `weight` (bias only in the KxK branch); 1x1-kxk and 1x1-avg have a
// BNAndPad BN after it; 1x1-kxk's second (KxK) conv is `weight_kxk`; every branch ends in `bn`.
struct DbbConvImpl::Branch : nn::Module {
  DbbBranch type;
  ConvGeometry g;
  Tensor weight, bias, weight_kxk;
  nn::BatchNorm2d pad_bn{nullptr}, bn{nullptr};

  Branch(DbbBranch t, const ConvGeometry& geometry) : type(t), g(geometry) {
    const int64_t k = g.kernel;
    switch (type) {
      case DbbBranch::OneByOne: weight = register_parameter("weight", torch::empty({g.out, g.in, 1, 1})); break;
      case DbbBranch::OneByOneKxK:
        weight = register_parameter("weight", torch::empty({g.in, g.in, 1, 1}));
        pad_bn = register_module("pad_bn", nn::BatchNorm2d(g.in));
        weight_kxk = register_parameter("weight_kxk", torch::empty({g.out, g.in, k, k}));
        break;
      case DbbBranch::OneByOneAvg:
        weight = register_parameter("weight", torch::empty({g.out, g.in, 1, 1}));
        pad_bn = register_module("pad_bn", nn::BatchNorm2d(g.out));
        break;
      case DbbBranch::KxK:
        weight = register_parameter("weight", torch::empty({g.out, g.in, k, k}));
        bias = register_parameter("bias", torch::zeros({g.out}));
        break;
      case DbbBranch::OneByK: weight = register_parameter("weight", torch::empty({g.out, g.in, 1, k})); break;
      case DbbBranch::KByOne: weight = register_parameter("weight", torch::empty({g.out, g.in, k, 1})); break;
      case DbbBranch::Identity: break;
    }
    bn = register_module("bn", nn::BatchNorm2d(g.out));
  }

  std::vector<Tensor> conv_weights() const {
    std::vector<Tensor> ws;
    for (const Tensor& w : {weight, weight_kxk})
      if (w.defined()) ws.push_back(w);
    return ws;
  }

  std::vector<nn::BatchNorm2d> batchnorms() const {
    if (pad_bn) return {pad_bn, bn};
    return {bn};
  }

  Tensor forward(const Tensor& x) {
    const int64_t s = g.stride, p = g.padding;
    switch (type) {
      case DbbBranch::OneByOne: return bn(torch::conv2d(x, weight, {}, s));
      case DbbBranch::OneByOneKxK: {
        const Tensor mid = bn_and_pad(pad_bn, torch::conv2d(x, weight), p);
        return bn(torch::conv2d(mid, weight_kxk, {}, s));
      }
      case DbbBranch::OneByOneAvg:
        return bn(torch::avg_pool2d(bn_and_pad(pad_bn, torch::conv2d(x, weight), p), g.kernel, s));
      case DbbBranch::KxK: return bn(torch::conv2d(x, weight, bias, s, p));
      case DbbBranch::OneByK: return bn(torch::conv2d(x, weight, {}, s, torch::IntArrayRef{0, p}));
      case DbbBranch::KByOne: return bn(torch::conv2d(x, weight, {}, s, torch::IntArrayRef{p, 0}));
      case DbbBranch::Identity: return bn(x);
    }
    throw std::logic_error("unknown DbbBranch");
  }

  // This branch as one KxK conv (eval-mode statistics), in float64.
  Kernel fuse() const {
    const int64_t k = g.kernel;
    const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(bn->weight.device());
    switch (type) {
      case DbbBranch::OneByOneKxK:
        return compose(fold_bn(f64(weight), {}, pad_bn), fold_bn(f64(weight_kxk), {}, bn));
      case DbbBranch::OneByOneAvg:
        return compose(fold_bn(f64(weight), {}, pad_bn), fold_bn(avg_kernel(g.out, k, options), {}, bn));
      case DbbBranch::KxK: return fold_bn(f64(weight), f64(bias), bn);
      case DbbBranch::Identity: return fold_bn(identity_kernel(g.out, k, options), {}, bn);
      case DbbBranch::OneByOne:
      case DbbBranch::OneByK:
      case DbbBranch::KByOne: {
        Kernel folded = fold_bn(f64(weight), {}, bn);
        return {pad_to(folded.weight, k), folded.bias};
      }
    }
    throw std::logic_error("unknown DbbBranch");
  }
};

std::string branch_name(DbbBranch b) {
  switch (b) {
    case DbbBranch::OneByOne: return "1x1";
    case DbbBranch::OneByOneKxK: return "1x1-kxk";
    case DbbBranch::OneByOneAvg: return "1x1-avg";
    case DbbBranch::KxK: return "kxk";
    case DbbBranch::OneByK: return "1xk";
    case DbbBranch::KByOne: return "kx1";
    case DbbBranch::Identity: return "identity";
  }
  throw std::logic_error("unknown DbbBranch");
}

std::vector<DbbBranch> default_branches(const ConvGeometry& g) {
  std::vector<DbbBranch> branches;
  for (DbbBranch b : kAllBranches)
    if (fits(b, g)) branches.push_back(b);
  return branches;
}

DbbConvImpl::DbbConvImpl(const ConvGeometry& g, std::vector<DbbBranch> branches, uint64_t seed) : geometry_(g) {
  if (g.in < 1 || g.out < 1 || g.kernel < 1 || g.stride < 1 || g.padding < 0)
    throw std::invalid_argument("DbbConv: channels, kernel and stride must be positive, padding non-negative");
  std::sort(branches.begin(), branches.end());
  if (std::adjacent_find(branches.begin(), branches.end()) != branches.end())
    throw std::invalid_argument("DbbConv: a branch is listed twice");
  if (!std::binary_search(branches.begin(), branches.end(), DbbBranch::KxK))
    throw std::invalid_argument("DbbConv: the kxk branch is required");
  for (DbbBranch b : branches)
    if (!fits(b, g))
      throw std::invalid_argument("DbbConv: branch " + branch_name(b) + " does not fit a " + std::to_string(g.kernel) +
                                  "x" + std::to_string(g.kernel) + " conv with stride " + std::to_string(g.stride) +
                                  ", padding " + std::to_string(g.padding) + ", " + std::to_string(g.in) + "->" +
                                  std::to_string(g.out) + " channels");
  branches_ = std::move(branches);
  Rng rng(seed);
  for (DbbBranch b : branches_) {
    parts_.push_back(register_module(module_name(b), std::make_shared<Branch>(b, g)));
    for (const Tensor& w : parts_.back()->conv_weights()) draw_fan_out(w, rng);
  }
}

torch::Tensor DbbConvImpl::forward(const torch::Tensor& x) {
  Tensor y = parts_.front()->forward(x);
  for (size_t i = 1; i < parts_.size(); ++i) y = y + parts_[i]->forward(x);
  return y;
}

DbbConvImpl::Kernel DbbConvImpl::fuse() {
  torch::NoGradGuard no_grad;
  Kernel sum = parts_.front()->fuse();
  for (size_t i = 1; i < parts_.size(); ++i) {  // transform II
    const Kernel k = parts_[i]->fuse();
    sum = {sum.weight + k.weight, sum.bias + k.bias};
  }
  const auto dtype = find(DbbBranch::KxK)->weight.scalar_type();
  return {sum.weight.to(dtype), sum.bias.to(dtype)};
}

void DbbConvImpl::init_from_plain(const torch::Tensor& w0, const torch::Tensor& b0, uint64_t seed) {
  check_plain(geometry_, w0, b0);
  Rng rng(seed);
  for (const auto& part : parts_) {
    if (part->type == DbbBranch::KxK) continue;
    for (const Tensor& w : part->conv_weights()) draw_fan_out(w, rng);
    for (const auto& bn : part->batchnorms()) reset_bn(bn, 1.0);
    reset_bn(part->bn, 0.01);  // the new branch starts small next to the plain conv
  }
  const auto kxk = find(DbbBranch::KxK);
  torch::NoGradGuard no_grad;
  kxk->weight.copy_(w0);
  if (b0.defined())
    kxk->bias.copy_(b0);
  else
    kxk->bias.zero_();
  make_identity(kxk->bn);
}

void DbbConvImpl::absorb_remainder(const torch::Tensor& w0, const torch::Tensor& b0) {
  check_plain(geometry_, w0, b0);
  const auto kxk = find(DbbBranch::KxK);
  make_identity(kxk->bn);
  torch::NoGradGuard no_grad;
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(kxk->weight.device());
  Tensor weight = w0.detach().to(options);
  Tensor bias = b0.defined() ? b0.detach().to(options) : torch::zeros({geometry_.out}, options);
  for (const auto& part : parts_) {
    if (part == kxk) continue;
    const Kernel k = part->fuse();
    weight = weight - k.weight;
    bias = bias - k.bias;
  }
  kxk->weight.copy_(weight);
  kxk->bias.copy_(bias);
}

std::vector<torch::nn::BatchNorm2d> DbbConvImpl::batchnorms() {
  std::vector<torch::nn::BatchNorm2d> all;
  for (const auto& part : parts_)
    for (const auto& bn : part->batchnorms()) all.push_back(bn);
  return all;
}

const ConvGeometry& DbbConvImpl::geometry() const { return geometry_; }

const std::vector<DbbBranch>& DbbConvImpl::branches() const { return branches_; }

std::shared_ptr<DbbConvImpl::Branch> DbbConvImpl::find(DbbBranch b) const {
  const auto it = std::find(branches_.begin(), branches_.end(), b);
  if (it == branches_.end()) throw std::logic_error("DbbConv: no " + branch_name(b) + " branch");
  return parts_[size_t(it - branches_.begin())];
}

}  // namespace fedgrid::models
