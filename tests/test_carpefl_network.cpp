// CarPe-FL's network (models/causal_net.hpp): the edge gate and the backbone mask on a hand
// example; an edge the backbone excludes passes no message, whatever its parameters.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "models/causal_layout.hpp"
#include "models/causal_net.hpp"

namespace fedgrid::models {
namespace {

struct Fixture {
  std::shared_ptr<CausalNet> net;
  int64_t d = kCausalNet.latents;
  Fixture() {
    torch::manual_seed(3);
    net = std::dynamic_pointer_cast<CausalNet>(make_net({"carpefl", 1, 16, 16, 3}));
    torch::NoGradGuard no_grad;
    net->graph->backbone.zero_();
    net->graph->backbone[0][1] = 1;  // the only backbone edge: 0 -> 1
    net->graph->confidence.zero_();
    net->graph->confidence[0][1] = 1;
    net->graph->confidence[1][0] = -1;
    net->graph->balance.fill_(0.5);
    net->graph->gate_logit.zero_();   // sigmoid 0.5
    for (auto& b : net->graph->edge_bias) b[1][0] = 100, b[2][1] = 100;  // loud, but off the backbone
    net->eval();
  }
  torch::Tensor refine(const torch::Tensor& z) {
    torch::NoGradGuard no_grad;
    return net->graph->forward(z);
  }
};

TEST(CarpeflNetwork, GateMixesClusterAndLocalConfidenceOnBackboneEdgesOnly) {
  Fixture f;
  torch::NoGradGuard no_grad;
  const auto g = f.net->graph->gate();
  EXPECT_NEAR(g[0][1].item<double>(), 0.5 * 1 + 0.5 * 0.5, 1e-6);  // beta cbar + (1 - beta) sigmoid(rho)
  EXPECT_EQ(g[1][0].item<double>(), 0);                            // not on the backbone
  EXPECT_EQ(g.abs().sum().item<double>(), g[0][1].item<double>());
  f.net->graph->balance.fill_(1.0);
  f.net->graph->confidence[0][1] = 0.2;
  EXPECT_NEAR(f.net->graph->gate()[0][1].item<double>(), 0.2, 1e-6);
}

TEST(CarpeflNetwork, AnExcludedEdgePassesNoMessage) {
  Fixture f;
  torch::Tensor z = torch::randn({1, f.d});
  const auto base = f.refine(z);
  auto changed = [&](int64_t source, int64_t target) {
    torch::Tensor z2 = z.clone();
    z2[0][source] += 3.0;
    return !torch::allclose(f.refine(z2)[0][target], base[0][target]);
  };
  EXPECT_TRUE(changed(0, 1));   // the backbone edge 0 -> 1 carries z_0 to node 1
  EXPECT_FALSE(changed(1, 0));  // 1 -> 0 is excluded: node 0 hears only itself
  EXPECT_FALSE(changed(2, 1));  // 2 -> 1 is excluded despite its bias of 100
  EXPECT_FALSE(changed(0, 2));
  // A backbone edge whose gate is 0 passes nothing either.
  f.net->graph->balance.fill_(1.0);
  f.net->graph->confidence[0][1] = 0;
  const auto silent = f.refine(z);
  torch::Tensor z2 = z.clone();
  z2[0][0] += 3.0;
  EXPECT_TRUE(torch::allclose(f.refine(z2)[0][1], silent[0][1]));
}

TEST(CarpeflNetwork, LayoutMatchesTheNetwork) {
  Fixture f;
  const CausalNetParts parts = causal_net_parts({"carpefl", 1, 16, 16, 3});
  const auto flat = flatten_state(*f.net);
  EXPECT_EQ(int64_t(flat.size()), parts.total);
  EXPECT_EQ(flat[size_t(parts.backbone.offset + 1)], 1.0f);  // G[0][1]
  EXPECT_EQ(flat[size_t(parts.balance.offset)], 0.5f);
  EXPECT_EQ(flat[size_t(parts.edges[0].offset + 1 * f.d + 0)], 100.0f);  // B^(0)[1][0]
  EXPECT_EQ(parts.head.size, f.d * kCausalNet.hidden * 3 + 3);
}

}  // namespace
}  // namespace fedgrid::models
