#include "bench/emulator/net.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace fedgrid::emulator {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

}  // namespace

int listen_loopback(int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  sockaddr_in a = loopback(0);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 128) != 0) {
    close(fd);
    fail("listening on loopback");
  }
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

int connect_loopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  sockaddr_in a = loopback(port);
  int r;
  while ((r = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a)) != 0 && errno == EINTR) {
  }
  if (r != 0) {
    const int e = errno;
    close(fd);
    errno = e;
    fail("connecting to 127.0.0.1:" + std::to_string(port));
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

void write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("sending");
    }
    p += n, size -= size_t(n);
  }
}

bool read_all(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  size_t got = 0;
  while (got < size) {
    const ssize_t n = recv(fd, p + got, size - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("receiving");
    }
    if (n == 0) {
      if (got == 0) return false;
      throw std::runtime_error("connection closed after " + std::to_string(got) + " of " + std::to_string(size) +
                               " bytes");
    }
    got += size_t(n);
  }
  return true;
}

}  // namespace fedgrid::emulator
