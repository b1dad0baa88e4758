/* fgk_tcp: sender/receiver for the kernel-TCP rig (bench/kernel_tcp).
 *
 *   fgk_tcp recv PORT FLOWS SIZE READYFILE   -> prints "flow,seconds" per flow
 *   fgk_tcp send IP PORT FLOWS SIZE
 *
 * Each flow is a fresh TCP connection carrying exactly SIZE bytes (SIZE>=16).
 * The first 16 bytes of each stream are: u64 CLOCK_MONOTONIC ns taken just
 * before connect(), u64 flow index.  The receiver timestamps (CLOCK_MONOTONIC)
 * right after the read() that delivers byte SIZE, so
 *   seconds = t_last_byte_read - t_connect.
 * Both network namespaces share CLOCK_MONOTONIC.  No socket options are set:
 * buffers and congestion control are the namespace defaults.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static void die(const char *m) { perror(m); exit(2); }
static void set_nb(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

#define MAXF 1024
#define BUF (1 << 20)

static int do_recv(int port, int flows, uint64_t size, const char *ready) {
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  if (bind(ls, (void *)&a, sizeof a)) die("bind");
  if (listen(ls, 1024)) die("listen");
  set_nb(ls);
  FILE *rf = fopen(ready, "w"); if (rf) fclose(rf);
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)-1};
  epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
  static char buf[BUF];
  struct { int fd; uint64_t got; unsigned char hdr[16]; } c[MAXF];
  double secs[MAXF]; int seen[MAXF] = {0};
  int nc = 0, done = 0;
  while (done < flows) {
    struct epoll_event evs[64];
    int n = epoll_wait(ep, evs, 64, -1);
    if (n < 0) { if (errno == EINTR) continue; die("epoll_wait"); }
    for (int i = 0; i < n; i++) {
      if (evs[i].data.u64 == (uint64_t)-1) {
        for (;;) {
          int fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK);
          if (fd < 0) break;
          if (nc >= MAXF) { close(fd); continue; }
          c[nc].fd = fd; c[nc].got = 0;
          struct epoll_event e2 = {.events = EPOLLIN, .data.u64 = (uint64_t)nc};
          epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e2);
          nc++;
        }
        continue;
      }
      int k = (int)evs[i].data.u64;
      for (;;) {
        ssize_t r = read(c[k].fd, buf, BUF);
        if (r > 0) {
          uint64_t t = now_ns();
          for (ssize_t j = 0; j < r && c[k].got + j < 16; j++) c[k].hdr[c[k].got + j] = buf[j];
          c[k].got += (uint64_t)r;
          if (c[k].got >= size && c[k].got - (uint64_t)r < size) {
            uint64_t t0, fl; memcpy(&t0, c[k].hdr, 8); memcpy(&fl, c[k].hdr + 8, 8);
            if (fl < MAXF && !seen[fl]) { seen[fl] = 1; secs[fl] = (double)(t - t0) * 1e-9; done++; }
          }
          continue;
        }
        if (r == 0) { epoll_ctl(ep, EPOLL_CTL_DEL, c[k].fd, NULL); close(c[k].fd); break; }
        if (errno == EAGAIN || errno == EINTR) break;
        epoll_ctl(ep, EPOLL_CTL_DEL, c[k].fd, NULL); close(c[k].fd); break;
      }
    }
  }
  for (int f = 0; f < flows; f++) printf("%d,%.6f\n", f, secs[f]);
  return 0;
}

static int do_send(const char *ip, int port, int flows, uint64_t size) {
  static char payload[BUF];
  memset(payload, 'x', sizeof payload);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, ip, &a.sin_addr);
  int fd[MAXF]; uint64_t sent[MAXF]; unsigned char hdr[MAXF][16];
  for (int f = 0; f < flows; f++) {
    fd[f] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd[f] < 0) die("socket");
    sent[f] = 0;
  }
  int ep = epoll_create1(0);
  /* all connects back to back: the flows start within a few tens of us */
  for (int f = 0; f < flows; f++) {
    uint64_t t0 = now_ns(), fl = (uint64_t)f;
    memcpy(hdr[f], &t0, 8); memcpy(hdr[f] + 8, &fl, 8);
    if (connect(fd[f], (void *)&a, sizeof a) && errno != EINPROGRESS) die("connect");
  }
  for (int f = 0; f < flows; f++) {
    struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = (uint64_t)f};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd[f], &ev);
  }
  int left = flows;
  while (left) {
    struct epoll_event evs[64];
    int n = epoll_wait(ep, evs, 64, -1);
    if (n < 0) { if (errno == EINTR) continue; die("epoll_wait"); }
    for (int i = 0; i < n; i++) {
      int f = (int)evs[i].data.u64;
      if (evs[i].events & EPOLLERR) {
        int e = 0; socklen_t l = sizeof e; getsockopt(fd[f], SOL_SOCKET, SO_ERROR, &e, &l);
        fprintf(stderr, "flow %d error: %s\n", f, strerror(e)); exit(3);
      }
      while (sent[f] < size) {
        ssize_t w;
        if (sent[f] < 16) w = write(fd[f], hdr[f] + sent[f], 16 - sent[f]);
        else {
          uint64_t m = size - sent[f]; if (m > BUF) m = BUF;
          w = write(fd[f], payload, m);
        }
        if (w > 0) { sent[f] += (uint64_t)w; continue; }
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) break;
        die("write");
      }
      if (sent[f] >= size) { epoll_ctl(ep, EPOLL_CTL_DEL, fd[f], NULL); close(fd[f]); left--; }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 6 && !strcmp(argv[1], "recv"))
    return do_recv(atoi(argv[2]), atoi(argv[3]), strtoull(argv[4], 0, 10), argv[5]);
  if (argc == 6 && !strcmp(argv[1], "send"))
    return do_send(argv[2], atoi(argv[3]), atoi(argv[4]), strtoull(argv[5], 0, 10));
  fprintf(stderr, "usage: fgk_tcp recv PORT FLOWS SIZE READYFILE | send IP PORT FLOWS SIZE\n");
  return 1;
}
