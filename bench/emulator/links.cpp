#include "bench/emulator/links.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace fedgrid::emulator {

struct LinkTable::Shared {
  pthread_mutex_t mutex;
  int32_t links;
  double bps[kMaxLinks];
  struct Flow {
    int32_t open;
    int32_t count;
    int32_t link[kMaxPathLinks];
    double weight;  // 1 / penalty
  } flow[kMaxFlows];
};

namespace {

// Held for microseconds; a process killed while holding it must not hang the others.
class Lock {
 public:
  explicit Lock(pthread_mutex_t* m) : m_(m) {
    if (pthread_mutex_lock(m_) == EOWNERDEAD) pthread_mutex_consistent(m_);
  }
  ~Lock() { pthread_mutex_unlock(m_); }

 private:
  pthread_mutex_t* m_;
};

}  // namespace

LinkTable::Shared* LinkTable::map(int fd) {
  void* p = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw std::runtime_error(std::string("mapping the link table: ") + std::strerror(errno));
  return static_cast<Shared*>(p);
}

LinkTable LinkTable::create(const std::vector<double>& bandwidth_bps) {
  if (bandwidth_bps.size() > size_t(kMaxLinks)) throw std::invalid_argument("too many links for the link table");
  for (double bps : bandwidth_bps)
    if (!(bps > 0) || !std::isfinite(bps)) throw std::invalid_argument("link bandwidth must be positive and finite");
  const int fd = memfd_create("fedgrid-emulate-links", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  if (ftruncate(fd, off_t(sizeof(Shared))) != 0) {
    close(fd);
    throw std::runtime_error(std::string("sizing the link table: ") + std::strerror(errno));
  }
  Shared* s = map(fd);  // zero-filled: no flow open
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&s->mutex, &attr);
  pthread_mutexattr_destroy(&attr);
  s->links = int32_t(bandwidth_bps.size());
  std::copy(bandwidth_bps.begin(), bandwidth_bps.end(), s->bps);
  return LinkTable(fd, s);
}

LinkTable LinkTable::attach(int fd) {
  struct stat st{};
  if (fstat(fd, &st) != 0 || size_t(st.st_size) != sizeof(Shared))
    throw std::runtime_error("descriptor " + std::to_string(fd) + " is not a link table");
  return LinkTable(fd, map(fd));
}

LinkTable::LinkTable(LinkTable&& o) noexcept : fd_(o.fd_), shared_(o.shared_) { o.fd_ = -1, o.shared_ = nullptr; }

LinkTable::~LinkTable() {
  if (shared_) munmap(shared_, sizeof(Shared));
  if (fd_ >= 0) close(fd_);
}

int LinkTable::size() const { return shared_->links; }

double LinkTable::bandwidth_bps(int link) const { return shared_->bps[link]; }

int LinkTable::open_flow(const std::vector<int>& links, double penalty) {
  if (links.empty() || links.size() > size_t(kMaxPathLinks)) throw std::invalid_argument("a flow crosses 1 to 4 links");
  if (!(penalty > 0) || !std::isfinite(penalty)) throw std::invalid_argument("a flow's penalty must be positive");
  for (int l : links)
    if (l < 0 || l >= shared_->links) throw std::invalid_argument("no link " + std::to_string(l));
  Lock lock(&shared_->mutex);
  for (int f = 0; f < kMaxFlows; ++f) {
    auto& flow = shared_->flow[f];
    if (flow.open) continue;
    flow.open = 1;
    flow.count = int32_t(links.size());
    std::copy(links.begin(), links.end(), flow.link);
    flow.weight = 1 / penalty;
    return f;
  }
  throw std::runtime_error("more than " + std::to_string(kMaxFlows) + " concurrent flows");
}

void LinkTable::close_flow(int flow) {
  Lock lock(&shared_->mutex);
  shared_->flow[flow].open = 0;
}

double LinkTable::rate_bps(int flow) {
  // Weighted progressive filling: raise every unfixed flow's rate in proportion to its weight
  // until a link saturates; the flows crossing it are fixed at weight x that link's level;
  // repeat with the capacity left. Stops as soon as `flow` is fixed.
  Lock lock(&shared_->mutex);
  const Shared& s = *shared_;
  std::vector<double> left(s.bps, s.bps + s.links);
  std::vector<double> weight_on(size_t(s.links), 0);  // the unfixed flows' weights on each link
  std::vector<int> unfixed_on(size_t(s.links), 0);
  std::vector<int> unfixed;
  for (int f = 0; f < kMaxFlows; ++f)
    if (s.flow[f].open) {
      unfixed.push_back(f);
      for (int i = 0; i < s.flow[f].count; ++i) {
        weight_on[size_t(s.flow[f].link[i])] += s.flow[f].weight;
        ++unfixed_on[size_t(s.flow[f].link[i])];
      }
    }
  while (!unfixed.empty()) {
    int bottleneck = -1;
    double level = std::numeric_limits<double>::infinity();  // bit/s per unit of weight
    for (int l = 0; l < s.links; ++l)
      if (unfixed_on[size_t(l)] > 0 && left[size_t(l)] / weight_on[size_t(l)] < level)
        level = left[size_t(l)] / weight_on[size_t(l)], bottleneck = l;
    std::vector<int> still;
    for (int f : unfixed) {
      const auto& fl = s.flow[f];
      if (std::find(fl.link, fl.link + fl.count, bottleneck) == fl.link + fl.count) {
        still.push_back(f);
        continue;
      }
      const double rate = level * fl.weight;
      if (f == flow) return rate;
      for (int i = 0; i < fl.count; ++i) {
        const auto l = size_t(fl.link[i]);
        left[l] = std::max(0.0, left[l] - rate);
        weight_on[l] -= fl.weight;
        --unfixed_on[l];
      }
    }
    unfixed.swap(still);
  }
  throw std::logic_error("rate_bps: flow " + std::to_string(flow) + " is not open");
}

}  // namespace fedgrid::emulator
