// The emulator's pacer (bench/emulator/): real bytes over real loopback sockets take
// bytes * 8 / bandwidth + latency, and flows sharing a paced link share its bandwidth.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "bench/emulator/clock.hpp"
#include "bench/emulator/net.hpp"
#include "bench/emulator/pacer.hpp"
#include "bench/emulator/wire.hpp"
#include "sim/core/model.hpp"

namespace fedgrid::emulator {
namespace {

struct Flow {
  Route route;
  int64_t bytes = 0;
  double seconds = 0;  // from the send's start to the receiver's last byte
};

// Runs the flows at once, each over its own loopback connection, all starting together.
void run_flows_once(LinkTable& links, std::vector<Flow>& flows) {
  std::vector<std::thread> threads;
  // Every thread connected by then, even on a machine busy with other tests.
  const int64_t start = now_ns() + 200'000'000;
  for (auto& f : flows)
    threads.emplace_back([&links, &f, start] {
      int port = 0;
      const int listener = listen_loopback(port);
      std::thread receiver([&] {
        const int fd = accept(listener, nullptr, nullptr);
        std::vector<char> in(size_t(f.bytes));
        ASSERT_TRUE(read_all(fd, in.data(), in.size()));
        f.seconds = double(now_ns() - start) / 1e9;
        close(fd);
      });
      const std::vector<char> out(size_t(f.bytes), 'x');
      const int fd = connect_loopback(port);
      send_paced(fd, out.data(), f.bytes, f.route, links, start);
      receiver.join();
      close(fd);
      close(listener);
    });
  for (auto& t : threads) t.join();
}

// A busy machine (ctest runs training tests beside this one) can only delay a flow, never
// speed it up: of three attempts, the one whose slowest flow finished first is the pacer's own
// timing.
void run_flows(LinkTable& links, std::vector<Flow>& flows) {
  std::vector<Flow> best;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<Flow> tried = flows;
    run_flows_once(links, tried);
    auto slowest = [](const std::vector<Flow>& fs) {
      double m = 0;
      for (const auto& f : fs) m = std::max(m, f.seconds);
      return m;
    };
    if (best.empty() || slowest(tried) < slowest(best)) best = tried;
  }
  flows = best;
}

TEST(Pacer, OneFlowTakesBytesOverBandwidthPlusLatency) {
  LinkTable links = LinkTable::create({20e6});
  std::vector<Flow> flows{{{{0}, 0.020}, 300'000}};
  run_flows(links, flows);
  const double expected = 300'000 * 8 / 20e6 + 0.020;  // 0.14 s
  EXPECT_NEAR(flows[0].seconds, expected, 0.05 * expected);
}

TEST(Pacer, TwoFlowsOnOneLinkEachTakeTwiceAsLong) {
  LinkTable links = LinkTable::create({20e6});
  std::vector<Flow> flows{{{{0}, 0.020}, 300'000}, {{{0}, 0.020}, 300'000}};
  run_flows(links, flows);
  const double expected = 2 * 300'000 * 8 / 20e6 + 0.020;  // 0.26 s: half the bandwidth each
  for (const auto& f : flows) EXPECT_NEAR(f.seconds, expected, 0.05 * expected);
}

TEST(Pacer, AFlowHeldBackElsewhereLeavesTheRestOfASharedLink) {
  // Link 0 (20 Mbit/s) is shared; flow B also crosses link 1 (5 Mbit/s), so max-min sharing
  // gives B 5 and A the other 15 Mbit/s while both run (latencies of 1 us: the same penalty).
  LinkTable links = LinkTable::create({20e6, 5e6});
  std::vector<Flow> flows{{{{0}, 1e-6}, 300'000}, {{{0, 1}, 1e-6}, 150'000}};
  run_flows(links, flows);
  EXPECT_NEAR(flows[0].seconds, 300'000 * 8 / 15e6, 0.08 * 0.16);  // 0.16 s
  EXPECT_NEAR(flows[1].seconds, 150'000 * 8 / 5e6, 0.05 * 0.24);   // 0.24 s
}

// Shares as fedgrid's timing.network: cm02 gives them (SimGrid's CM02, weight-S 0): on a
// saturated link rate x route latency is equal across flows; a flow held back elsewhere leaves
// the rest to the others.
TEST(LinkTable, FlowsShareBySimGridsCm02PenaltyTheirRoutesLatency) {
  LinkTable links = LinkTable::create({100e6, 10e6});
  const int a = links.open_flow({0}, 0.010), b = links.open_flow({0}, 0.030);
  EXPECT_NEAR(links.rate_bps(a), 75e6, 1);  // weights 100 and 33.3: three quarters and a quarter
  EXPECT_NEAR(links.rate_bps(b), 25e6, 1);
  const int c = links.open_flow({0, 1}, 0.030);  // 10 Mbit/s at most: link 1 saturates first
  EXPECT_NEAR(links.rate_bps(c), 10e6, 1);
  EXPECT_NEAR(links.rate_bps(a), 67.5e6, 1);  // the 90 left, in the weights' 3:1
  EXPECT_NEAR(links.rate_bps(b), 22.5e6, 1);
  links.close_flow(c);
  EXPECT_NEAR(links.rate_bps(a), 75e6, 1);
  EXPECT_THROW(links.open_flow({0}, 0), std::invalid_argument);
}

TEST(EmulatorWire, AMessageIsExactlyFedgridsPayload) {
  const Model cnn = shape_only_model({"cnn", 1, 28, 28, 10}, models::model_cost({"cnn", 1, 28, 28, 10}).state_values);
  EXPECT_EQ(message_bytes(cnn.values()), cnn.payload_bytes());
  EXPECT_EQ(message_bytes(cnn.values()), 2'328'168);  // the quickstart's cnn message (docs/tutorial.md)
}

}  // namespace
}  // namespace fedgrid::emulator
