#include "sim/engine/star_fluid.hpp"

#include <simgrid/s4u.hpp>

#include <cmath>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace fedgrid {

// One server link of capacity C (bytes/s) shared by flows i, each capped by its hospital's
// access link (c_i) and weighted w_i = 1 / (its route's latency), as CM02's max-min solver
// shares it: a level L with rate_i = min(c_i, w_i L) and sum_i rate_i = C when the link is
// full (L infinite when the caps alone do not fill it). Flows whose cap binds ("capped") end at
// a real instant; the others advance with the virtual clock V = integral of L dt and end when
// V reaches their due value. An arrival or an end moves L, and only the flows whose threshold
// c_i / w_i it crosses change side: O(log n) each, against SimGrid's re-solve of every flow.
class FluidLink {
 public:
  FluidLink(double capacity, sg4::Host* host, const std::string& name) : capacity_(capacity) {
    mutex_ = sg4::Mutex::create();
    wake_ = sg4::ConditionVariable::create();
    sg4::Actor::create(name, host, [this] { run(); })->daemonize();
  }

  // In the calling actor, after its route's latency: shares the link until `bytes` have gone.
  void carry(double cap, double weight, double bytes) {
    auto done = sg4::Semaphore::create(0);
    {
      std::unique_lock lock(*mutex_);
      arrivals_.push_back({cap, weight, bytes, done});
      wake_->notify_one();
    }
    done->acquire();
  }

 private:
  struct Arrival {
    double cap, weight, bytes;
    sg4::SemaphorePtr done;
  };
  struct Flow {
    double cap = 0, weight = 0;
    bool capped = false;
    double due = 0;  // capped: the instant it ends; else the virtual clock's value then
    sg4::SemaphorePtr done;
    double threshold() const { return cap / weight; }
  };
  using Key = std::pair<double, size_t>;  // (value, flow slot): sets ordered by value, then slot

  void run() {
    std::unique_lock lock(*mutex_);
    for (;;) {
      if (arrivals_.empty()) {
        const double next = next_end();
        if (std::isinf(next)) wake_->wait(lock);
        else wake_->wait_until(lock, next);
      }
      const double now = sg4::Engine::get_clock();
      advance(now);
      end_due(now);
      for (auto& a : arrivals_) add(a, now);
      arrivals_.clear();
      rebalance(now);
    }
  }

  bool full() const { return !uncapped_due_.empty(); }  // some flow takes the level's share

  // When flow f ends at the current rates (last_ = now).
  double end_of(const Flow& f) const { return f.capped ? f.due : last_ + (f.due - virtual_) / level_; }

  double next_end() const {
    double t = std::numeric_limits<double>::infinity();
    if (!capped_due_.empty()) t = capped_due_.begin()->first;
    if (full()) t = std::min(t, last_ + (uncapped_due_.begin()->first - virtual_) / level_);
    return t;
  }

  void advance(double now) {
    if (full()) virtual_ += level_ * (now - last_);
    last_ = now;
  }

  void end_due(double now) {
    for (auto* set : {&capped_due_, &uncapped_due_})
      while (!set->empty() && end_of(flows_[set->begin()->second]) <= now) {
        const size_t slot = set->begin()->second;
        remove(slot);
        flows_[slot].done->release();
        flows_[slot].done = nullptr;
        free_.push_back(slot);
      }
  }

  double remaining(const Flow& f, double now) const {
    return std::max(0.0, f.capped ? f.cap * (f.due - now) : f.weight * (f.due - virtual_));
  }

  void insert(size_t slot, bool capped, double bytes, double now) {
    Flow& f = flows_[slot];
    f.capped = capped;
    f.due = capped ? now + bytes / f.cap : virtual_ + bytes / f.weight;
    (capped ? capped_due_ : uncapped_due_).insert({f.due, slot});
    (capped ? capped_by_threshold_ : uncapped_by_threshold_).insert({f.threshold(), slot});
    if (capped) capped_rate_ += f.cap;
    else uncapped_weight_ += f.weight;
  }

  void remove(size_t slot) {
    const Flow& f = flows_[slot];
    (f.capped ? capped_due_ : uncapped_due_).erase({f.due, slot});
    (f.capped ? capped_by_threshold_ : uncapped_by_threshold_).erase({f.threshold(), slot});
    if (f.capped) capped_rate_ -= f.cap;
    else uncapped_weight_ -= f.weight;
    // Sums kept by additions and removals drift; an empty side starts again from zero.
    if (capped_due_.empty()) capped_rate_ = 0;
    if (uncapped_due_.empty()) uncapped_weight_ = 0;
  }

  void move(size_t slot, bool capped, double now) {
    const double left = remaining(flows_[slot], now);
    remove(slot);
    insert(slot, capped, left, now);
  }

  void add(const Arrival& a, double now) {
    size_t slot = flows_.size();
    if (!free_.empty()) slot = free_.back(), free_.pop_back();
    else flows_.emplace_back();
    flows_[slot] = Flow{a.cap, a.weight, false, 0, a.done};
    insert(slot, !full() || flows_[slot].threshold() <= level_, a.bytes, now);
  }

  // Moves flows across the level until every capped flow's threshold is at most the level and
  // every other flow's above it: the max-min allocation.
  void rebalance(double now) {
    for (;;) {
      if (uncapped_due_.empty()) {
        if (capped_rate_ <= capacity_ || capped_due_.empty()) break;  // the caps do not fill the link
        move(std::prev(capped_by_threshold_.end())->second, false, now);
        continue;
      }
      level_ = double((capacity_ - capped_rate_) / uncapped_weight_);
      if (!capped_by_threshold_.empty() && std::prev(capped_by_threshold_.end())->first > level_) {
        move(std::prev(capped_by_threshold_.end())->second, false, now);
      } else if (uncapped_by_threshold_.begin()->first <= level_) {
        move(uncapped_by_threshold_.begin()->second, true, now);
      } else {
        break;
      }
    }
  }

  double capacity_;
  sg4::MutexPtr mutex_;
  sg4::ConditionVariablePtr wake_;
  std::vector<Arrival> arrivals_;  // registered since the controller last ran
  std::vector<Flow> flows_;
  std::vector<size_t> free_;
  std::set<Key> capped_due_, uncapped_due_, capped_by_threshold_, uncapped_by_threshold_;
  long double capped_rate_ = 0, uncapped_weight_ = 0;
  double level_ = 0, virtual_ = 0, last_ = 0;
};

StarFluid::StarFluid(const platforms::PlatformHosts& platform, double backbone_latency_s)
    : platform_(platform), backbone_latency_s_(backbone_latency_s) {
  const auto& s = platform.server_spec;
  to_server_ = std::make_unique<FluidLink>(s.downlink_bps / 8.0, platform.server, s.name + "/fluid-down");
  from_server_ = std::make_unique<FluidLink>(s.uplink_bps / 8.0, platform.server, s.name + "/fluid-up");
}

StarFluid::~StarFluid() = default;

void StarFluid::transfer(int hospital, bool to_server, int64_t bytes) {
  const auto& h = platform_.hospital_specs.at(size_t(hospital));
  // As CM02 with this project's settings (sim/engine/run.cpp): the route's latency first, then
  // the bandwidth share, weighted by 1 / latency (1 when the route has none).
  const double latency = h.latency_s + backbone_latency_s_ + platform_.server_spec.latency_s;
  if (latency > 0) sg4::this_actor::sleep_for(latency);
  if (bytes <= 0) return;
  const double cap = (to_server ? h.uplink_bps : h.downlink_bps) / 8.0;
  (to_server ? to_server_ : from_server_)->carry(cap, latency > 0 ? 1.0 / latency : 1.0, double(bytes));
}

}  // namespace fedgrid
