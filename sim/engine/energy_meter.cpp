#include "sim/engine/energy_meter.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace fedgrid {
namespace sg4 = simgrid::s4u;

struct EnergyMeter::Meters {
  struct Host {
    double idle_w, one_core_w, all_cores_w, off_w;
    int cores;
    int running = 0;  // computations under way
    bool on = true;
    double joules = 0, since = 0;

    // The plugin's power law: idle, one core busy, then linear in busy cores up to all.
    double power() const {
      if (!on) return off_w;
      if (running == 0) return idle_w;
      if (cores <= 1) return all_cores_w;
      const int busy = std::min(running, cores);
      return one_core_w + (all_cores_w - one_core_w) * double(busy - 1) / double(cores - 1);
    }
    void bring_up_to(double now) {
      joules += power() * (now - since);
      since = now;
    }
  };
  std::vector<Host> hosts;                              // one meter per distinct host
  std::unordered_map<const sg4::Host*, size_t> index;   // host -> its meter
  std::vector<size_t> listed;  // the meter of each host as listed (a cohort's host stands for each member)

  Host* find(const sg4::Host* h) {
    auto it = index.find(h);
    return it == index.end() ? nullptr : &hosts[it->second];
  }
};

namespace {

// A host's power figures at its pstate, read from its properties as SimGrid's energy plugin
// reads them: wattage_per_state "idle:epsilon:all cores" (or "idle:all cores", epsilon = idle)
// per pstate, comma-separated; wattage_off. No figures: 0 W (fedgrid sets them from the tier
// catalog for every host it uses, and XML platforms are checked before they load).
struct Power {
  double idle = 0, one_core = 0, all_cores = 0, off = 0;
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t end; (end = text.find(sep, at)) != std::string::npos; at = end + 1) out.push_back(text.substr(at, end - at));
  out.push_back(text.substr(at));
  return out;
}

Power power_of(const sg4::Host* h) {
  Power p;
  if (const char* off = h->get_property("wattage_off")) p.off = std::stod(off);
  const char* states = h->get_property("wattage_per_state");
  if (!states) return p;
  const auto per_state = split(states, ',');
  const auto v = split(per_state.at(std::min(per_state.size() - 1, size_t(h->get_pstate()))), ':');
  p.idle = std::stod(v.at(0));
  p.one_core = v.size() == 2 ? p.idle : std::stod(v.at(1));
  p.all_cores = std::stod(v.back());
  return p;
}

}  // namespace

EnergyMeter::EnergyMeter(const std::vector<sg4::Host*>& hosts) : meters_(std::make_shared<Meters>()) {
  for (auto* h : hosts) {
    auto [it, fresh] = meters_->index.emplace(h, meters_->hosts.size());
    meters_->listed.push_back(it->second);
    if (!fresh) continue;
    const Power p = power_of(h);
    meters_->hosts.push_back({p.idle, p.one_core, p.all_cores, p.off, h->get_core_count()});
  }
  std::weak_ptr<Meters> weak = meters_;
  auto change = [weak](const sg4::Host* h, int running_delta) {
    auto m = weak.lock();
    if (!m) return;
    if (auto* host = m->find(h)) {
      host->bring_up_to(sg4::Engine::get_clock());
      host->running += running_delta;
    }
  };
  sg4::Exec::on_start_cb([change](const sg4::Exec& e) { change(e.get_host(), +1); });
  sg4::Activity::on_completion_cb([change](const sg4::Activity& a) {
    if (const auto* e = dynamic_cast<const sg4::Exec*>(&a)) change(e->get_host(), -1);
  });
  sg4::Host::on_state_change_cb([weak](const sg4::Host& h) {
    auto m = weak.lock();
    if (!m) return;
    if (auto* host = m->find(&h)) {
      host->bring_up_to(sg4::Engine::get_clock());
      host->on = h.is_on();
    }
  });
}

double EnergyMeter::total_j(double now) {
  // Reading brings every host up to `now`, as the plugin's reading does: the same partial
  // sums, hence the same bits, as the plugin gave before this meter replaced it.
  for (auto& h : meters_->hosts) h.bring_up_to(now);
  double total = 0;
  for (size_t i : meters_->listed) total += meters_->hosts[i].joules;
  return total;
}

void EnergyMeter::set_on(const sg4::Host* h, bool on) {
  if (auto* host = meters_->find(h)) {
    host->bring_up_to(sg4::Engine::get_clock());
    host->on = on;
  }
}

EnergyMeter::Readings EnergyMeter::readings() const {
  Readings r;
  for (const auto& h : meters_->hosts) {
    if (h.running != 0) throw std::logic_error("energy meter read while a host computes");
    r.joules.push_back(h.joules), r.since.push_back(h.since);
  }
  return r;
}

void EnergyMeter::restore(const Readings& r) {
  if (r.joules.size() != meters_->hosts.size() || r.since.size() != meters_->hosts.size())
    throw std::invalid_argument("checkpoint meters " + std::to_string(r.joules.size()) + " hosts, the run has " +
                                std::to_string(meters_->hosts.size()));
  for (size_t i = 0; i < r.joules.size(); ++i) meters_->hosts[i].joules = r.joules[i], meters_->hosts[i].since = r.since[i];
}

}  // namespace fedgrid
