// The emulator's inbox (bench/emulator/inbox.hpp): take_any, FedAsync's "next push from any
// hospital", takes messages in order of arrival, never by sender or round.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "bench/emulator/inbox.hpp"
#include "bench/emulator/net.hpp"
#include "bench/emulator/wire.hpp"

namespace fedgrid::emulator {
namespace {

// Sends one whole message to the inbox listening on `port`, as host `from`, for `round`.
void send_to(int port, int from, int round, std::vector<float> weights) {
  WireHeader h;
  h.from = from, h.to = 0, h.round = round, h.values = int64_t(weights.size());
  const int fd = connect_loopback(port);
  write_all(fd, &h, sizeof h);
  write_all(fd, weights.data(), weights.size() * sizeof(float));
  close(fd);
}

// Lets a sent message's reader thread file it (generous, for a machine busy with other tests).
void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }

TEST(EmulatorInbox, TakeAnyTakesTheEarliestArrivalNotTheLowestSender) {
  int port = 0;
  Inbox inbox(listen_loopback(port));
  send_to(port, 3, 7, {3});
  settle();
  send_to(port, 1, 2, {1});
  settle();
  const Message first = inbox.take_any({1, 3});
  EXPECT_EQ(first.header.from, 3);
  EXPECT_EQ(first.header.round, 7);
  EXPECT_EQ(first.weights, std::vector<float>{3});
  const Message second = inbox.take_any({1, 3});
  EXPECT_EQ(second.header.from, 1);
  EXPECT_EQ(second.header.round, 2);
  EXPECT_LE(first.end_ns, second.end_ns);
}

TEST(EmulatorInbox, TakeAnyWaitsForASenderInTheSetAndLeavesTheOthers) {
  int port = 0;
  Inbox inbox(listen_loopback(port));
  send_to(port, 2, 5, {2, 2});
  settle();
  std::thread later([port] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    send_to(port, 1, 4, {1});
  });
  const Message m = inbox.take_any({1});  // host 2's message is there, but not asked for
  later.join();
  EXPECT_EQ(m.header.from, 1);
  EXPECT_EQ(m.header.round, 4);
  const Message left = inbox.take(2, 5);  // take() still finds it by (sender, round)
  EXPECT_EQ(left.weights, (std::vector<float>{2, 2}));
}

}  // namespace
}  // namespace fedgrid::emulator
