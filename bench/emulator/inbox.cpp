#include "bench/emulator/inbox.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace fedgrid::emulator {

Inbox::Inbox(int listen_fd) : listen_fd_(listen_fd), acceptor_([this] { accept_loop(); }) {}

Inbox::~Inbox() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  acceptor_.join();
  std::unique_lock lock(mutex_);
  for (int fd : connections_) shutdown(fd, SHUT_RDWR);  // wakes their readers
  readers_done_.wait(lock, [&] { return connections_.empty(); });
  close(listen_fd_);
}

void Inbox::accept_loop() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    std::lock_guard lock(mutex_);
    if (stopping_) {
      if (fd >= 0) close(fd);
      return;
    }
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      error_ = std::make_exception_ptr(std::runtime_error(std::string("accepting a connection failed: ") +
                                                          std::strerror(errno)));
      arrived_.notify_all();
      return;
    }
    connections_.insert(fd);
    std::thread([this, fd] { read_connection(fd); }).detach();
  }
}

void Inbox::read_connection(int fd) {
  try {
    Message m;
    while (receive_message(fd, m)) {
      std::lock_guard lock(mutex_);
      const auto key = std::make_pair(int(m.header.from), int(m.header.round));
      if (!messages_.emplace(key, std::move(m)).second)
        throw std::runtime_error("two messages from host " + std::to_string(key.first) + " for round " +
                                 std::to_string(key.second));
      arrived_.notify_all();
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!stopping_ && !error_) error_ = std::current_exception();
    arrived_.notify_all();
  }
  std::lock_guard lock(mutex_);
  close(fd);
  connections_.erase(fd);
  readers_done_.notify_all();
}

Message Inbox::take(int from, int round) {
  std::unique_lock lock(mutex_);
  const auto key = std::make_pair(from, round);
  arrived_.wait(lock, [&] { return error_ || messages_.count(key); });
  if (error_) std::rethrow_exception(error_);
  Message m = std::move(messages_.at(key));
  messages_.erase(key);
  return m;
}

Message Inbox::take_any(const std::set<int>& from) {
  std::unique_lock lock(mutex_);
  auto first = messages_.end();
  arrived_.wait(lock, [&] {
    if (error_) return true;
    first = messages_.end();
    for (auto it = messages_.begin(); it != messages_.end(); ++it)  // by (sender, round): ties go low
      if (from.count(it->first.first) && (first == messages_.end() || it->second.end_ns < first->second.end_ns))
        first = it;
    return first != messages_.end();
  });
  if (error_) std::rethrow_exception(error_);
  Message m = std::move(first->second);
  messages_.erase(first);
  return m;
}

}  // namespace fedgrid::emulator
