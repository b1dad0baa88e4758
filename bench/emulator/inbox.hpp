#pragma once
// Everything a process receives. A thread accepts connections on the process's listening
// socket and reads each on a thread of its own, so any number of senders can stream at once
// (a sender's paced writes never wait for the receiver's program); the program takes whole
// messages by sender and round, in the order its schedule needs them.
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "bench/emulator/wire.hpp"

namespace fedgrid::emulator {

class Inbox {
 public:
  explicit Inbox(int listen_fd);  // takes ownership of the socket
  ~Inbox();                       // stops accepting, ends open connections, waits for its threads
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  // Blocks until the message from host `from` for `round` has fully arrived. Rethrows the
  // first receive error (a malformed message, a peer that vanished mid-message).
  Message take(int from, int round);
  // Blocks until a message from any host in `from` (any round) has fully arrived, and takes
  // the one whose last byte arrived first (ties: lower sender, then lower round): an
  // asynchronous server's next push, in order of arrival. Rethrows as take() does.
  Message take_any(const std::set<int>& from);

 private:
  void accept_loop();
  void read_connection(int fd);

  int listen_fd_;
  std::mutex mutex_;
  std::condition_variable arrived_, readers_done_;
  std::map<std::pair<int, int>, Message> messages_;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::set<int> connections_;  // open ones, each read by a detached thread that closes it
  std::thread acceptor_;
};

}  // namespace fedgrid::emulator
