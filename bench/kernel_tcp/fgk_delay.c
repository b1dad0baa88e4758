/* fgk_delay: user-space constant-delay line (netem is not in this kernel).
 *
 *   fgk_delay IFACE_A IFACE_B DELAY_NS [STATSFILE]
 *
 * Runs in the middle namespace r.  Two AF_PACKET sockets capture every frame
 * arriving on IFACE_A / IFACE_B and re-transmit it unchanged on the other
 * interface once now >= arrival + DELAY_NS (CLOCK_MONOTONIC), i.e. a FIFO
 * delay line per direction, order preserving, unbounded in practice
 * (QCAP frames per direction).  Frames go out through the egress qdisc of the
 * output interface (so a tbf there still shapes).  On SIGTERM/SIGINT it writes
 * counters (forwarded, dropped because the line was full, send errors such as
 * qdisc drops, max occupancy, late-release stats) to STATSFILE or stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define QCAP 16384
#define FMAX 2048

struct q {
  unsigned char (*data)[FMAX];
  uint16_t *len;
  uint64_t *due;
  unsigned head, tail; /* tail = next free, head = oldest */
  uint64_t fwd, full_drop, send_err, maxocc, late_sum_ns, late_max_ns;
};

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }
static uint64_t now_ns(void) {
  struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static int open_if(const char *name) {
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
  if (fd < 0) { perror("socket"); exit(2); }
  int one = 1, big = 64 << 20;
  setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big);
  struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
                            .sll_ifindex = (int)if_nametoindex(name)};
  if (!sll.sll_ifindex || bind(fd, (void *)&sll, sizeof sll)) { perror(name); exit(2); }
  return fd;
}
static void qinit(struct q *q) {
  memset(q, 0, sizeof *q);
  q->data = malloc((size_t)QCAP * FMAX); q->len = malloc(QCAP * 2); q->due = malloc(QCAP * 8);
}
static void drain_rx(int fd, struct q *q, uint64_t delay) {
  for (;;) {
    if (q->tail - q->head >= QCAP) { /* line full: read and drop */
      unsigned char junk[FMAX];
      if (recv(fd, junk, sizeof junk, 0) <= 0) return;
      q->full_drop++; continue;
    }
    unsigned i = q->tail % QCAP;
    ssize_t r = recv(fd, q->data[i], FMAX, 0);
    if (r <= 0) return;
    q->len[i] = (uint16_t)r; q->due[i] = now_ns() + delay; q->tail++;
    if (q->tail - q->head > q->maxocc) q->maxocc = q->tail - q->head;
  }
}
static void release(int fd, struct q *q, uint64_t now) {
  while (q->head != q->tail) {
    unsigned i = q->head % QCAP;
    if (q->due[i] > now) return;
    uint64_t late = now - q->due[i];
    q->late_sum_ns += late; if (late > q->late_max_ns) q->late_max_ns = late;
    if (send(fd, q->data[i], q->len[i], 0) < 0) {
      if (errno == EAGAIN) return; /* socket buffer full: retry later */
      q->send_err++;               /* e.g. ENOBUFS = dropped by egress qdisc */
    } else q->fwd++;
    q->head++;
  }
}
int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: fgk_delay IFA IFB DELAY_NS [STATS]\n"); return 1; }
  uint64_t delay = strtoull(argv[3], 0, 10);
  prctl(PR_SET_TIMERSLACK, 1UL);
  signal(SIGTERM, on_sig); signal(SIGINT, on_sig);
  int fa = open_if(argv[1]), fb = open_if(argv[2]);
  static struct q ab, ba; qinit(&ab); qinit(&ba);
  struct pollfd p[2] = {{.fd = fa, .events = POLLIN}, {.fd = fb, .events = POLLIN}};
  while (!stop) {
    uint64_t now = now_ns(), next = UINT64_MAX;
    release(fb, &ab, now); release(fa, &ba, now);
    if (ab.head != ab.tail) next = ab.due[ab.head % QCAP];
    if (ba.head != ba.tail && ba.due[ba.head % QCAP] < next) next = ba.due[ba.head % QCAP];
    struct timespec to, *tp = NULL;
    if (next != UINT64_MAX) {
      uint64_t w = next > now ? next - now : 0;
      to.tv_sec = (time_t)(w / 1000000000ull); to.tv_nsec = (long)(w % 1000000000ull); tp = &to;
    }
    int n = ppoll(p, 2, tp, NULL);
    if (n < 0 && errno != EINTR) { perror("ppoll"); break; }
    if (n > 0) {
      if (p[0].revents & POLLIN) drain_rx(fa, &ab, delay);
      if (p[1].revents & POLLIN) drain_rx(fb, &ba, delay);
    }
  }
  FILE *o = argc > 4 ? fopen(argv[4], "w") : stderr; if (!o) o = stderr;
  struct q *qs[2] = {&ab, &ba}; const char *nm[2] = {"a->b", "b->a"};
  for (int k = 0; k < 2; k++)
    fprintf(o, "# delayline %s fwd=%llu full_drop=%llu send_err=%llu max_occupancy=%llu late_mean_us=%.1f late_max_us=%.1f\n",
            nm[k], (unsigned long long)qs[k]->fwd, (unsigned long long)qs[k]->full_drop,
            (unsigned long long)qs[k]->send_err, (unsigned long long)qs[k]->maxocc,
            qs[k]->fwd ? qs[k]->late_sum_ns / 1e3 / (double)qs[k]->fwd : 0.0, qs[k]->late_max_ns / 1e3);
  if (o != stderr) fclose(o);
  return 0;
}
