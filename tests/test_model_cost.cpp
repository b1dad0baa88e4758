// The analytic cost model against figures worked out by hand from the layer shapes.
// Conventions: conv params = Cout*Cin*K*K + Cout, conv FLOPs = 2*Cout*Hout*Wout*Cin*K*K;
// linear params = in*out + out, linear FLOPs = 2*in*out; biases/ReLU/pooling cost no FLOPs.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "models/model_spec.hpp"

namespace fedgrid::models {
namespace {

ModelSpec mnist(const std::string& arch) { return {.arch = arch}; }
ModelSpec cifar(const std::string& arch) {
  return {.arch = arch, .channels = 3, .height = 32, .width = 32};
}

void expect_cost(const ModelSpec& spec, int64_t parameters, double forward_flops, int64_t buffers = 0) {
  const ModelCost cost = model_cost(spec);
  EXPECT_EQ(cost.parameters, parameters) << spec.arch;
  EXPECT_EQ(cost.state_values, parameters + buffers) << spec.arch;
  EXPECT_EQ(cost.forward_flops, forward_flops) << spec.arch;
  EXPECT_EQ(cost.train_flops(), 3 * forward_flops) << spec.arch;
  EXPECT_EQ(payload_bytes(cost), 4 * (parameters + buffers) + 64) << spec.arch;
}

TEST(ModelCost, CnnOnMnist) {
  // layer (shape)                    params                      forward FLOPs
  // conv1 1->32, 28->24, pool 12     32*1*25 + 32    = 832       2*32*24*24*1*25 = 921,600
  // conv2 32->64, 12->8, pool 4      64*32*25 + 64   = 51,264    2*64*8*8*32*25  = 6,553,600
  // fc1 64*4*4 = 1024 -> 512         1024*512 + 512  = 524,800   2*1024*512      = 1,048,576
  // fc2 512 -> 10                    512*10 + 10     = 5,130     2*512*10        = 10,240
  // params 832 + 51,264 + 524,800 + 5,130 = 582,026 (McMahan et al. 2017 quote 1,663,370 for
  // their "same"-padded variant; 582,026 is the count without padding, the variant fedgrid builds).
  // FLOPs 921,600 + 6,553,600 + 1,048,576 + 10,240 = 8,534,016
  expect_cost(mnist("cnn"), 582'026, 8'534'016);
}

TEST(ModelCost, Vgg11WithBatchNorm) {
  // conv3x3 pad 1: params Cout*Cin*9 + Cout, FLOPs 2*Cout*H*W*Cin*9; each BN adds 2*C
  // parameters and 2*C + 1 buffers (running mean, var, batch counter). On 1x32x32, 23 classes:
  // conv 1->64 @32        576+64     + BN 128   FLOPs 2*64*32*32*1*9      = 1,179,648
  // conv 64->128 @16      73,728+128 + BN 256   FLOPs 2*128*16*16*64*9    = 37,748,736
  // conv 128->256 @8      294,912+256 + BN 512  FLOPs 2*256*8*8*128*9     = 37,748,736
  // conv 256->256 @8      589,824+256 + BN 512  FLOPs                     = 75,497,472
  // conv 256->512 @4      1,179,648+512 + BN 1,024  FLOPs 2*512*4*4*256*9 = 37,748,736
  // conv 512->512 @4      2,359,296+512 + BN 1,024  FLOPs                 = 75,497,472
  // conv 512->512 @2 (x2) 2,359,296+512 + BN 1,024 each, FLOPs 18,874,368 each
  // fc 512->4096 2,101,248 (FLOPs 4,194,304); 4096->4096 16,781,312 (33,554,432);
  // 4096->23 94,231 (188,416). Totals: 28,201,623 parameters (UniFed's VGG11), 5,504 + 8 buffers,
  // 341,106,688 FLOPs (= 2 x 170,553,344 MACs, both computed by hand here).
  expect_cost({.arch = "vgg11", .channels = 1, .height = 32, .width = 32, .num_classes = 23}, 28'201'623,
              341'106'688, 5'512);
  expect_cost({.arch = "vgg11", .channels = 3, .height = 32, .width = 32}, 28'149'514, 343'359'488, 5'512);
  EXPECT_THROW(model_cost({.arch = "vgg11"}), std::invalid_argument);  // 28x28 pools down to 0
}

TEST(ModelCost, ResNet18CifarVariant) {
  // stem conv3x3 3->64 (no bias) + BN; stages of two BasicBlocks (two conv3x3 + BN each) at
  // 64@32, 128@16, 256@8, 512@4; stages 2-4 start with stride 2 and a 1x1 conv + BN shortcut;
  // global average pool; fc 512 -> 10. 11,173,962 parameters: the count the CIFAR ResNet-18
  // is known by. Buffers: 20 BN layers, 2*C + 1 each = 9,620.
  // FLOPs: stem 2*64*32*32*3*9 = 3,538,944; stage 1: 4 x 2*64*32*32*64*9 = 301,989,888;
  // stage 2: 2*128*16*16*64*9 + 3 x 2*128*16*16*128*9 + shortcut 2*128*16*16*64 = 268,435,456,
  // stages 3 and 4 the same (channels double, area quarters); fc 2*512*10 = 10,240.
  // In all 3,538,944 + 301,989,888 + 3 x 268,435,456 + 10,240 = 1,110,845,440.
  expect_cost({.arch = "resnet18", .channels = 3, .height = 32, .width = 32}, 11'173'962, 1'110'845'440, 9'620);
  expect_cost({.arch = "resnet18", .channels = 1, .height = 32, .width = 32, .num_classes = 23}, 11'179'479,
              1'108'499'456, 9'620);
}

TEST(ModelCost, CnnOnCifar) {
  // layer (shape)                    params                      forward FLOPs
  // conv1 3->32, 32->28, pool 14     32*3*25 + 32    = 2,432     2*32*28*28*3*25  = 3,763,200
  // conv2 32->64, 14->10, pool 5     64*32*25 + 64   = 51,264    2*64*10*10*32*25 = 10,240,000
  // fc1 64*5*5 = 1600 -> 512         1600*512 + 512  = 819,712   2*1600*512       = 1,638,400
  // fc2 512 -> 10                    512*10 + 10     = 5,130     2*512*10         = 10,240
  // params 2,432 + 51,264 + 819,712 + 5,130 = 878,538
  // FLOPs 3,763,200 + 10,240,000 + 1,638,400 + 10,240 = 15,651,840
  expect_cost(cifar("cnn"), 878'538, 15'651'840);
}

TEST(ModelCost, LeNet5OnMnist) {
  // layer (shape)                    params                      forward FLOPs
  // conv1 1->6 pad 2, 28->28, pool 14  6*1*25 + 6    = 156       2*6*28*28*1*25  = 235,200
  // conv2 6->16, 14->10, pool 5      16*6*25 + 16    = 2,416     2*16*10*10*6*25 = 480,000
  // fc1 16*5*5 = 400 -> 120          400*120 + 120   = 48,120    2*400*120       = 96,000
  // fc2 120 -> 84                    120*84 + 84     = 10,164    2*120*84        = 20,160
  // fc3 84 -> 10                     84*10 + 10      = 850       2*84*10         = 1,680
  // params 156 + 2,416 + 48,120 + 10,164 + 850 = 61,706
  // FLOPs 235,200 + 480,000 + 96,000 + 20,160 + 1,680 = 833,040
  expect_cost(mnist("lenet5"), 61'706, 833'040);
}

TEST(ModelCost, LeNet5OnCifar) {
  // layer (shape)                    params                      forward FLOPs
  // conv1 3->6 pad 2, 32->32, pool 16  6*3*25 + 6    = 456       2*6*32*32*3*25  = 921,600
  // conv2 6->16, 16->12, pool 6      16*6*25 + 16    = 2,416     2*16*12*12*6*25 = 691,200
  // fc1 16*6*6 = 576 -> 120          576*120 + 120   = 69,240    2*576*120       = 138,240
  // fc2 120 -> 84                    120*84 + 84     = 10,164    2*120*84        = 20,160
  // fc3 84 -> 10                     84*10 + 10      = 850       2*84*10         = 1,680
  // params 456 + 2,416 + 69,240 + 10,164 + 850 = 83,126
  // FLOPs 921,600 + 691,200 + 138,240 + 20,160 + 1,680 = 1,772,880
  expect_cost(cifar("lenet5"), 83'126, 1'772'880);
}

TEST(ModelCost, MlpOnMnist) {
  // layer                            params                      forward FLOPs
  // fc1 1*28*28 = 784 -> 200         784*200 + 200   = 157,000   2*784*200 = 313,600
  // fc2 200 -> 200                   200*200 + 200   = 40,200    2*200*200 = 80,000
  // fc3 200 -> 10                    200*10 + 10     = 2,010     2*200*10  = 4,000
  // params 157,000 + 40,200 + 2,010 = 199,210 (the 2NN's count in McMahan et al. 2017)
  // FLOPs 313,600 + 80,000 + 4,000 = 397,600
  expect_cost(mnist("mlp"), 199'210, 397'600);
}

TEST(ModelCost, MlpOnCifar) {
  // fc1 3*32*32 = 3072 -> 200        3072*200 + 200  = 614,600   2*3072*200 = 1,228,800
  // fc2, fc3 as on MNIST             40,200 + 2,010              80,000 + 4,000
  // params 614,600 + 40,200 + 2,010 = 656,810; FLOPs 1,228,800 + 84,000 = 1,312,800
  expect_cost(cifar("mlp"), 656'810, 1'312'800);
}

// Width multiplier 0.5 on 1x28x28: conv 16 (5x5), conv 32, fc 256, classes unscaled.
TEST(ModelCost, HalfWidthCnnOnMnist) {
  const ModelCost c = model_cost({"cnn", 1, 28, 28, 10, 0.5});
  // conv1 16*1*25 + 16; conv2 32*16*25 + 32; fc1 (32*4*4)*256 + 256; fc2 256*10 + 10.
  EXPECT_EQ(c.parameters, 416 + 12832 + 131328 + 2570);
  EXPECT_EQ(c.state_values, c.parameters);
  // MACs: 16*25*24*24 + 32*16*25*8*8 + 512*256 + 256*10 = 230,400 + 819,200 + 131,072 + 2,560.
  EXPECT_DOUBLE_EQ(c.forward_flops, 2.0 * 1183232);
  EXPECT_EQ(payload_bytes(c), 147146 * 4 + kPayloadHeaderBytes);
}

// ceil(m * base): lenet5 at 0.3 has ceil(1.8) = 2 and ceil(4.8) = 5 conv channels, fc 36 and 26.
TEST(ModelCost, WidthRoundsUpAndNeverScalesTheClasses) {
  const ModelCost c = model_cost({"lenet5", 1, 28, 28, 10, 0.3});
  // conv1 2*1*25+2 = 52; conv2 5*2*25+5 = 255; fc1 (5*5*5)*36+36 = 4536; fc2 36*26+26 = 962; fc3 26*10+10 = 270.
  EXPECT_EQ(c.parameters, 52 + 255 + 4536 + 962 + 270);
  EXPECT_THROW(model_cost({"cnn", 1, 28, 28, 10, 4.5}), std::invalid_argument);
  EXPECT_THROW(model_cost({"cnn", 1, 28, 28, 10, 0.0}), std::invalid_argument);
}

// FedSKD's ResNet-10 (the paper's 4,908,357 parameters and 0.889 GMAC for 3x224x224,
// 5 classes). Parameters: stem 64*3*49 + BN 128; layer1 2 x 64*64*9 + 2 BN = 73,984; layer2
// 128*64*9 + 128*128*9 + 2 BN + shortcut 128*64 + BN = 230,144; layer3 919,040; layer4
// 3,673,088; fc 512*5 + 5. MACs: stem 112^2 * 9,408 = 118,013,952; layer1 56^2 * 73,728 =
// 231,211,008; layers 2-4 179,830,784 each (area quarters as channels double); fc 2,560.
TEST(ModelCost, ResNet10AsFedSkdSizesIt) {
  const ModelCost c = model_cost({"resnet10", 3, 224, 224, 5});
  EXPECT_EQ(c.parameters, 4'908'357);
  EXPECT_DOUBLE_EQ(c.forward_flops, 2.0 * (118'013'952 + 231'211'008 + 3.0 * 179'830'784 + 2'560));
  // Width 62 (62/64 of every stage: 62, 124, 248, 496): the paper's 0.838 GMAC.
  EXPECT_NEAR(model_cost({"resnet10", 3, 224, 224, 5, 62.0 / 64}).forward_flops / 2e9, 0.838, 0.0005);
  // The heterogeneous widths 62/60/58: the paper's parameter counts and MACs; the payload adds
  // the batch norms' running statistics (2 per channel + a counter each): ~19.66 MB at width 64.
  EXPECT_EQ(model_cost({"resnet10", 3, 224, 224, 5, 62.0 / 64}).parameters, 4'606'915);
  EXPECT_EQ(model_cost({"resnet10", 3, 224, 224, 5, 60.0 / 64}).parameters, 4'315'025);
  EXPECT_EQ(model_cost({"resnet10", 3, 224, 224, 5, 58.0 / 64}).parameters, 4'032'687);
  EXPECT_NEAR(model_cost({"resnet10", 3, 224, 224, 5, 60.0 / 64}).forward_flops / 2e9, 0.788, 0.0005);
  EXPECT_NEAR(model_cost({"resnet10", 3, 224, 224, 5, 58.0 / 64}).forward_flops / 2e9, 0.740, 0.0005);
  // BN channels at width 64: stem 64, layer1 2 x 64, layer2-4 3 x (128, 256, 512) -> 2,880; 12 batch norms.
  EXPECT_EQ(payload_bytes(c), (4'908'357 + 2 * 2'880 + 12) * 4 + kPayloadHeaderBytes);
  EXPECT_NEAR(double(payload_bytes(c)) / 1e6, 19.66, 0.005);
}

TEST(ModelCost, NumClassesOnlyChangesTheLastLayer) {
  // mlp with 100 classes: fc3 200 -> 100 has 20,100 params (+18,090) and 40,000 FLOPs (+36,000).
  expect_cost({.arch = "mlp", .num_classes = 100}, 199'210 + 18'090, 397'600 + 36'000);
}

TEST(ModelCost, UnknownArchIsRejected) {
  try {
    model_cost({.arch = "resnet"});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown model arch 'resnet' (known: cnn, cnn_bn, lenet5, mlp, mlp4, vgg11, vgg8, vgg5, "
                           "vgg7, vgg9, resnet18, resnet10, carpefl)");
  }
  EXPECT_THROW(arch_description("resnet"), std::invalid_argument);
}

TEST(ModelCost, TooSmallInputIsRejected) {
  // cnn: H -> (H-4)/2 -> ((H-4)/2 - 4)/2, which is >= 1 only for H >= 16.
  EXPECT_EQ(model_cost({.arch = "cnn", .height = 16, .width = 16}).parameters,
            832 + 51'264 + (64 * 1 * 1 * 512 + 512) + 5'130);
  try {
    model_cost({.arch = "cnn", .height = 15, .width = 28});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'cnn'"), std::string::npos) << message;
    EXPECT_NE(message.find("1x15x28"), std::string::npos) << message;
  }
  // lenet5: H -> H/2 -> (H/2 - 4)/2, which is >= 1 only for H >= 12.
  EXPECT_NO_THROW(model_cost({.arch = "lenet5", .height = 12, .width = 12}));
  EXPECT_THROW(model_cost({.arch = "lenet5", .height = 12, .width = 11}), std::invalid_argument);
  // mlp has no spatial layers, but an empty input is still an error.
  EXPECT_NO_THROW(model_cost({.arch = "mlp", .height = 1, .width = 1}));
  EXPECT_THROW(model_cost({.arch = "mlp", .height = 0}), std::invalid_argument);
  EXPECT_THROW(model_cost({.arch = "cnn", .channels = 0}), std::invalid_argument);
  EXPECT_THROW(model_cost({.arch = "cnn", .num_classes = 0}), std::invalid_argument);
}

TEST(ModelCost, ArchListAndDescriptions) {
  EXPECT_EQ(known_archs(), (std::vector<std::string>{"cnn", "cnn_bn", "lenet5", "mlp", "mlp4", "vgg11", "vgg8", "vgg5",
                                                      "vgg7", "vgg9", "resnet18", "resnet10", "carpefl"}));
  for (const std::string& arch : known_archs()) EXPECT_FALSE(arch_description(arch).empty());
}

// The zoo's additions counted by hand on 1x28x28 inputs, 10 classes.
TEST(ModelCost, Mlp4AndVgg8ByHand) {
  // mlp4: 784*200+200, 2 x (200*200+200), 200*10+10.
  EXPECT_EQ(model_cost({.arch = "mlp4"}).parameters, 157000 + 2 * 40200 + 2010);
  EXPECT_EQ(model_cost({.arch = "mlp4"}).state_values, 239410);
  // vgg8: convs 1-32-32 | 32-64-64 | 64-128-128 (3x3, bias), 6 BNs, fc 128*3*3 -> 256 -> 10.
  const int64_t convs = (9 * 32 + 32) + (9 * 32 * 32 + 32) + (9 * 32 * 64 + 64) + (9 * 64 * 64 + 64) +
                        (9 * 64 * 128 + 128) + (9 * 128 * 128 + 128);
  const int64_t bn_channels = 32 + 32 + 64 + 64 + 128 + 128;
  const ModelCost vgg8 = model_cost({.arch = "vgg8"});
  EXPECT_EQ(vgg8.parameters, convs + 2 * bn_channels + (1152 * 256 + 256) + (256 * 10 + 10));
  EXPECT_EQ(vgg8.state_values, vgg8.parameters + 2 * bn_channels + 6);
  // MACs: 3x3 convs at 28, 28, 14, 14, 7, 7; then the two fc layers.
  const double macs = 9.0 * (32 * 784 + 32 * 32 * 784 + 32 * 64 * 196 + 64 * 64 * 196 + 64 * 128 * 49 +
                             128 * 128 * 49) + 1152 * 256 + 2560;
  EXPECT_DOUBLE_EQ(vgg8.forward_flops, 2 * macs);
}

// The depth family: vgg5 is convs 1-32 | 32-64 | 64-64 (pools after each), fc 64*3*3 -> 256 -> 10;
// vgg7 and vgg9 add two and four 64-64 convs at 7x7.
TEST(ModelCost, VggDepthFamilyByHand) {
  const int64_t deep_conv = 9 * 64 * 64 + 64, deep_bn = 2 * 64;
  const int64_t vgg5 = (9 * 32 + 32) + 2 * 32 + (9 * 32 * 64 + 64) + 2 * 64 + deep_conv + deep_bn + (576 * 256 + 256) +
                       (256 * 10 + 10);
  EXPECT_EQ(model_cost({.arch = "vgg5"}).parameters, vgg5);
  EXPECT_EQ(model_cost({.arch = "vgg7"}).parameters, vgg5 + 2 * (deep_conv + deep_bn));
  EXPECT_EQ(model_cost({.arch = "vgg9"}).parameters, vgg5 + 4 * (deep_conv + deep_bn));
  EXPECT_EQ(model_cost({.arch = "vgg9"}).state_values, model_cost({.arch = "vgg9"}).parameters + 2 * (32 + 6 * 64) + 7);
  const double macs5 = 9.0 * (32 * 784 + 32 * 64 * 196 + 64 * 64 * 49) + 576 * 256 + 2560;
  EXPECT_DOUBLE_EQ(model_cost({.arch = "vgg5"}).forward_flops, 2 * macs5);
  EXPECT_DOUBLE_EQ(model_cost({.arch = "vgg9"}).forward_flops, 2 * (macs5 + 4 * 9.0 * 64 * 64 * 49));
}

}  // namespace
}  // namespace fedgrid::models
