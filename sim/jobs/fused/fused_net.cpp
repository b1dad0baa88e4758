// Stacked nets (see fused_net.hpp). Layouts: inside the convolutional part a batch is
// [N, M*C, H, W] (member m's channels are the m-th block of C), so a grouped convolution with
// M groups is M convolutions and a per-channel batch norm is a per-member one; from the first
// linear layer on it is [M, N, features], so a batched matrix product is M linear layers. The
// flatten between them keeps each member's (C, H, W) order, the order Net::forward flattens.
#include "sim/jobs/fused/fused_net.hpp"

#include <stdexcept>

#include "models/nets.hpp"
#include "models/vgg_layout.hpp"
#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid::jobs {
namespace {

// torch::nn::BatchNorm2d's defaults, which every net of models/nets.cpp uses.
constexpr double kBnEps = 1e-5, kBnMomentum = 0.1;

}  // namespace

std::vector<FusedNet::Layer> FusedNet::layers_of(const models::ModelSpec& spec) {
  using L = Layer;
  const L relu{Op::Relu}, pool{Op::MaxPool2}, flatten{Op::Flatten}, linear{Op::Linear};
  auto conv = [](int64_t padding, bool bias) { return L{Op::Conv, 1, padding, bias}; };
  if (spec.arch == "cnn") return {conv(0, true), relu, pool, conv(0, true), relu, pool, flatten, linear, relu, linear};
  if (spec.arch == "cnn_bn")
    return {conv(0, false), L{Op::BatchNorm}, relu, pool, conv(0, false), L{Op::BatchNorm}, relu, pool, flatten,
            linear, relu, linear};
  if (spec.arch == "lenet5")
    return {conv(2, true), relu, pool, conv(0, true), relu, pool, flatten, linear, relu, linear, relu, linear};
  if (spec.arch == "mlp" || spec.arch == "mlp4") {
    std::vector<L> layers{flatten};
    for (int i = 0; i < (spec.arch == "mlp" ? 2 : 3); ++i) layers.insert(layers.end(), {linear, relu});
    layers.push_back(linear);
    return layers;
  }
  if (const models::VggLayout* vgg = models::vgg_layout(spec.arch)) {
    std::vector<L> layers;
    for (int64_t c : vgg->features)
      if (c < 0) layers.push_back(pool);
      else layers.insert(layers.end(), {conv(1, true), L{Op::BatchNorm}, relu});
    layers.push_back(flatten);
    for (size_t i = 0; i < vgg->hidden.size(); ++i) layers.insert(layers.end(), {linear, relu});
    layers.push_back(linear);
    return layers;
  }
  return {};  // resnets, carpefl: not fused
}

FusedNet::FusedNet(const models::ModelSpec& spec, int64_t members, torch::Device device)
    : layers_(layers_of(spec)), members_(members) {
  if (layers_.empty()) throw std::logic_error("no fused form of model arch '" + spec.arch + "'");
  // The shapes, in flatten_state's order, from the net itself: a layer list that drifted from
  // models/nets.cpp fails here, not in a silently wrong slice.
  models::Net& net = cached_net(spec, ComputeDevice::Cpu);
  size_t params = 0, buffers = 0;
  for (const Layer& l : layers_) {
    if (l.op == Op::Conv) params += l.bias ? 2 : 1;
    if (l.op == Op::Linear || l.op == Op::BatchNorm) params += 2;
    if (l.op == Op::BatchNorm) buffers += 3;
  }
  const auto named_params = net.named_parameters();
  const auto named_buffers = net.named_buffers();
  if (named_params.size() != params || named_buffers.size() != buffers)
    throw std::logic_error("the fused layers of '" + spec.arch + "' do not match models/nets.cpp");
  auto stacked = [&](const torch::Tensor& t) {
    std::vector<int64_t> shape{members};
    shape.insert(shape.end(), t.sizes().begin(), t.sizes().end());
    return torch::zeros(shape, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  };
  for (const auto& item : named_params) params_.push_back(stacked(item.value()).requires_grad_(true));
  for (const auto& item : named_buffers) buffers_.push_back(stacked(item.value()));
}

void FusedNet::load(const std::vector<const std::vector<float>*>& states) {
  if (int64_t(states.size()) != members_) throw std::logic_error("FusedNet::load: one state per member");
  int64_t total = 0;
  for (const auto& t : params_) total += t[0].numel();
  for (const auto& t : buffers_) total += t[0].numel();
  torch::Tensor host = torch::empty({members_, total}, torch::kFloat32);
  for (int64_t m = 0; m < members_; ++m) {
    if (int64_t(states[size_t(m)]->size()) != total)
      throw std::invalid_argument("FusedNet::load: got " + std::to_string(states[size_t(m)]->size()) +
                                  " values but the model holds " + std::to_string(total));
    std::copy(states[size_t(m)]->begin(), states[size_t(m)]->end(), host[m].data_ptr<float>());
  }
  const torch::Tensor flat = host.to(params_.front().device());
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (auto* group : {&params_, &buffers_})
    for (torch::Tensor& t : *group) {
      const int64_t n = t[0].numel();
      t.copy_(flat.narrow(1, offset, n).reshape(t.sizes()));
      offset += n;
    }
}

std::vector<std::vector<float>> FusedNet::states() const {
  std::vector<torch::Tensor> columns;
  for (auto* group : {&params_, &buffers_})
    for (const torch::Tensor& t : *group) columns.push_back(t.detach().reshape({members_, -1}));
  const torch::Tensor host = torch::cat(columns, 1).to(torch::kCPU).contiguous();
  std::vector<std::vector<float>> out(static_cast<size_t>(members_));
  for (int64_t m = 0; m < members_; ++m) {
    const float* row = host[m].data_ptr<float>();
    out[size_t(m)].assign(row, row + host.size(1));
  }
  return out;
}

// Batch norm in train mode, per member and channel, over the member's real samples only: the
// statistics torch::batch_norm takes over an unpadded batch.
torch::Tensor FusedNet::batch_norm(const torch::Tensor& x, size_t param, size_t buffer, const torch::Tensor& real) {
  const int64_t n = x.size(0), mc = x.size(1), m = members_, c = mc / m;
  const torch::Tensor mask = real.t().unsqueeze(2).expand({n, m, c}).reshape({n, mc, 1, 1});
  const torch::Tensor count = real.sum(1).repeat_interleave(c) * double(x.size(2) * x.size(3));  // [M*C]
  const torch::Tensor safe = count.clamp_min(1);
  const torch::Tensor mean = (x * mask).sum({0, 2, 3}) / safe;
  const torch::Tensor centred = x - mean.view({1, mc, 1, 1});
  const torch::Tensor var = (centred * mask).pow(2).sum({0, 2, 3}) / safe;  // biased, as normalisation uses
  const torch::Tensor y = centred * torch::rsqrt(var + kBnEps).view({1, mc, 1, 1});
  {
    torch::NoGradGuard no_grad;
    // Running statistics take the unbiased variance, as torch's do; a member with no real
    // sample in this batch keeps its own.
    const torch::Tensor active = real.sum(1).gt(0);  // [M]
    torch::Tensor& running_mean = buffers_[buffer];
    torch::Tensor& running_var = buffers_[buffer + 1];
    torch::Tensor& batches = buffers_[buffer + 2];
    const torch::Tensor unbiased = (var * count / (count - 1).clamp_min(1)).view({m, c});
    const torch::Tensor a = active.unsqueeze(1);
    running_mean.copy_(torch::where(a, mean.detach().view({m, c}) * kBnMomentum + running_mean * (1 - kBnMomentum),
                                    running_mean));
    running_var.copy_(torch::where(a, unbiased.detach() * kBnMomentum + running_var * (1 - kBnMomentum), running_var));
    batches.add_(active.to(torch::kFloat32));
  }
  return y * params_[param].view({1, mc, 1, 1}) + params_[param + 1].view({1, mc, 1, 1});
}

torch::Tensor FusedNet::forward_train(const torch::Tensor& images, const torch::Tensor& real) {
  const int64_t m = members_, n = images.size(1);
  torch::Tensor x = images;
  bool grouped = false;  // [N, M*C, H, W] (true) or [M, N, ...] (false)
  if (layers_.front().op == Op::Conv) {
    x = images.transpose(0, 1).reshape({n, m * images.size(2), images.size(3), images.size(4)});
    grouped = true;
  }
  size_t p = 0, b = 0;
  for (const Layer& l : layers_) {
    switch (l.op) {
      case Op::Conv: {
        const torch::Tensor& w = params_[p];
        const torch::Tensor weight = w.view({m * w.size(1), w.size(2), w.size(3), w.size(4)});
        const torch::Tensor bias = l.bias ? params_[p + 1].view({-1}) : torch::Tensor();
        x = torch::conv2d(x, weight, bias, l.stride, l.padding, 1, m);
        p += l.bias ? 2 : 1;
        break;
      }
      case Op::BatchNorm:
        x = batch_norm(x, p, b, real);
        p += 2, b += 3;
        break;
      case Op::Relu:
        x = torch::relu(x);
        break;
      case Op::MaxPool2:
        x = torch::max_pool2d(x, 2);
        break;
      case Op::Flatten:
        x = grouped ? x.reshape({n, m, -1}).transpose(0, 1) : x.reshape({m, n, -1});
        grouped = false;
        break;
      case Op::Linear:
        x = torch::baddbmm(params_[p + 1].unsqueeze(1), x, params_[p].transpose(1, 2));
        p += 2;
        break;
    }
  }
  return x;
}

}  // namespace fedgrid::jobs
