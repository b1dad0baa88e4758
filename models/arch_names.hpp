#pragma once
// Every model architecture fedgrid builds, named once, in the order `fedgrid list models`
// shows them: the values model.arch and every model choice accept
// (sim/scenario/sections/model_keys.cpp) and the cost model's table (models/model_cost.cpp), whose
// layer walks follow this order. Header-only and torch-free, so the scenario wing reads it
// without linking models/.
//
// "carpefl" keeps its paper's name: it is CarPe-FL's own network (Shin et al. 2026), as
// "lenet5" is LeNet's, and scenario files and outputs (summary.json's model) name it so.
#include <array>
#include <string_view>

namespace fedgrid::models {

struct ArchName {
  std::string_view name, description;
};

inline constexpr std::array<ArchName, 13> kArchs = {{
    {"cnn", "McMahan et al. 2017 FedAvg CNN: 2x (conv5x5 32/64, ReLU, maxpool2), fc 512, fc out"},
    {"cnn_bn", "cnn with batch norm: 2x (conv5x5 32/64 without bias, BN, ReLU, maxpool2), fc 512, fc out"},
    {"lenet5", "LeNet-5 with ReLU: conv5x5 6 (pad 2), pool, conv5x5 16, pool, fc 120, 84, out"},
    {"mlp", "McMahan et al. 2017 2NN: fc 200, ReLU, fc 200, ReLU, fc out"},
    {"mlp4", "The 2NN one layer deeper: 3x (fc 200, ReLU), fc out"},
    {"vgg11", "VGG11 with batch norm (32x32 inputs): 8 conv3x3+BN, 5 maxpools, fc 4096, 4096, out (no dropout)"},
    {"vgg8", "VGG-style for 28x28 inputs: 6 conv3x3+BN (32 32 M 64 64 M 128 128 M), fc 256, out (no dropout)"},
    {"vgg5", "VGG-style depth family for 28x28 inputs (InclusiveFL's depths): conv3x3+BN 32 M 64 M 64 M, fc 256, out"},
    {"vgg7", "vgg5 two conv3x3+BN 64 deeper at 7x7: 32 M 64 M 64 64 64 M, fc 256, out"},
    {"vgg9", "vgg5 four conv3x3+BN 64 deeper at 7x7: 32 M 64 M 64 64 64 64 64 M, fc 256, out"},
    {"resnet18", "ResNet-18, CIFAR variant: conv3x3 stem, 4x2 BasicBlocks (64-512), global avg pool, fc out"},
    {"resnet10",
     "ResNet-10 (torchvision layout): conv7x7/2 stem, maxpool 3x3/2, 1 BasicBlock per stage (64-512), global avg pool, fc out"},
    {"carpefl",
     "CarPe-FL (Shin et al. 2026): the cnn's trunk to 16 latents, 2 graph-attention layers (hidden 8) masked by a "
     "causal backbone, head over the node features"},
}};

}  // namespace fedgrid::models
