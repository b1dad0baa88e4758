#include "bench/emulator/schedules.hpp"

#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "algorithms/asynchronous.hpp"
#include "bench/emulator/clock.hpp"

namespace fedgrid::algorithms {
// algorithms/fedasync.cpp's mix, (1 - alpha_t) x + alpha_t x_new in double stored as float.
std::vector<float> fedasync_mix(const std::vector<float>& x, const std::vector<float>& x_new, double alpha_t);
}  // namespace fedgrid::algorithms

namespace fedgrid::emulator {
namespace {

// The server's sends of one FedAvg round, all begun at one instant (as fedgrid starts them);
// they share its uplink.
void broadcast(Host& host, int round, const std::vector<float>& model) {
  const int n = int(host.options.hospitals.size());
  const int64_t start = now_ns();
  std::vector<std::exception_ptr> errors(host.options.hospitals.size());
  std::vector<std::thread> senders;
  for (int i = 0; i < n; ++i)
    senders.emplace_back([&, i] {
      try {
        host.send(hospital_host(i), round, model, 0, 0, start);
      } catch (...) {
        errors[size_t(i)] = std::current_exception();
      }
    });
  for (auto& t : senders) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

void fedavg_server(Host& host, std::vector<float> global) {
  const auto& o = host.options;
  const int n = int(o.hospitals.size());
  for (int round = 1; round <= o.rounds; ++round) {
    broadcast(host, round, global);
    std::vector<std::vector<float>> models;
    std::vector<int64_t> samples;
    for (int i = 0; i < n; ++i) {
      Message m = host.receive(hospital_host(i), round);
      models.push_back(std::move(m.weights));
      samples.push_back(m.header.samples);
    }
    const double flops = average_flops(o, models.size());
    const int64_t start = now_ns();
    global = average(o, std::move(models), samples);
    const int64_t end = now_ns();
    host.parts->event(start, end, host.name(), "server", "", 0, flops, round);
    host.parts->round_end(round, end);
  }
}

void fedseq_server(Host& host, std::vector<float> model) {
  const auto& o = host.options;
  for (int round = 1; round <= o.rounds; ++round) {
    int64_t last = 0;
    for (int i = 0; i < int(o.hospitals.size()); ++i) {
      host.send(hospital_host(i), round, model);
      Message m = host.receive(hospital_host(i), round);
      model = std::move(m.weights);
      last = m.end_ns;
    }
    host.parts->round_end(round, last);
  }
}

// Trains and records the compute; `end` receives when it finished.
TrainResult train(Host& host, LocalTrainer& trainer, const std::vector<float>& model, int round, int64_t& end) {
  const int64_t start = now_ns();
  TrainResult r = trainer.train(model, round);
  end = now_ns();
  host.parts->event(start, end, host.name(), "compute", "", 0, trainer.flops(), round);
  return r;
}

void via_server(Host& host, LocalTrainer& trainer) {
  const auto& o = host.options;
  const int64_t samples = o.hospitals[size_t(host.me - 1)].samples;
  for (int round = 1; round <= o.rounds; ++round) {
    const Message m = host.receive(0, round);
    int64_t end = 0;
    const TrainResult r = train(host, trainer, m.weights, round, end);
    host.send(0, round, r.weights, samples, r.loss);
  }
}

void fedcross_hospital(Host& host, LocalTrainer& trainer, std::vector<float> model) {
  const auto& o = host.options;
  const int n = int(o.hospitals.size()), i = host.me - 1;
  const int previous = hospital_host((i + n - 1) % n), next = hospital_host((i + 1) % n);
  const int64_t samples = o.hospitals[size_t(i)].samples;
  for (int round = 1; round <= o.rounds; ++round) {
    if (n > 1 && !(round == 1 && i == 0)) model = host.receive(previous, round).weights;
    int64_t end = 0;
    TrainResult r = train(host, trainer, model, round, end);
    model = std::move(r.weights);
    if (i == n - 1) host.parts->round_end(round, end);
    const int next_round = i == n - 1 ? round + 1 : round;  // the hop into the next round counts there
    if (n > 1 && next_round <= o.rounds) host.send(next, next_round, model, samples, r.loss);
  }
}

// FedAsync as fedgrid runs it with its defaults (algorithms/fedasync.cpp, asynchronous.cpp):
// alpha 0.7, staleness weight polynomial (d + 1)^-0.5, every hospital training at once.
constexpr double kAlpha = 0.7, kStalenessA = 0.5, kStalenessB = 4;
// On the wire a FedAsync message's round is its model's version, Algorithm 1's time stamp:
// the server sends version t (0: the initial model), the push trained from it carries t back.
// Each hospital gets distinct versions, so (sender, version) names one message. Version
// kStop, with no values, tells a hospital the run is over.
constexpr int kStop = -1;

// The server's sends to each hospital, each on a thread so that the server takes and mixes
// pushes meanwhile. A hospital gets its next model only after pushing, so it has at most one
// send under way.
class Sends {
 public:
  explicit Sends(Host& host) : host_(host), threads_(host.options.hospitals.size()) {}
  ~Sends() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  void start(int hospital, int version, std::shared_ptr<const std::vector<float>> model, int64_t start_ns) {
    auto& t = threads_[size_t(hospital)];
    if (t.joinable()) t.join();  // done: the hospital has pushed since
    t = std::thread([this, hospital, version, model = std::move(model), start_ns] {
      try {
        host_.send(hospital_host(hospital), version, *model, 0, 0, start_ns);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
    });
  }
  void check() {
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  Host& host_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::exception_ptr error_;
};

// The updater: each push mixed in order of arrival, one at a time; after mix t < rounds the
// new model goes to the hospital just mixed (with every hospital at once, the only idle one,
// so the one fedgrid's scheduler triggers). A round is one mix, reported when it is made.
void fedasync_server(Host& host, const std::vector<float>& initial) {
  const auto& o = host.options;
  const int n = int(o.hospitals.size());
  const double flops = 3.0 * double(initial.size());  // fedgrid's charge: two multiplies, one add
  auto x = std::make_shared<const std::vector<float>>(initial);
  std::set<int> hospitals;
  for (int i = 0; i < n; ++i) hospitals.insert(hospital_host(i));
  Sends sends(host);
  const int64_t start = now_ns();  // the initial model goes to all at once, sharing the uplink
  for (int i = 0; i < n; ++i) sends.start(i, 0, x, start);
  std::set<int> training = hospitals;
  for (int t = 0; t < o.rounds;) {
    Message m = host.inbox->take_any(hospitals);
    sends.check();
    const int from = m.header.from;
    const int stale = (t + 1) - m.header.round;  // t - tau of the version being made
    const double alpha_t = kAlpha * algorithms::staleness_weight(algorithms::StalenessFunction::Polynomial, stale,
                                                                 kStalenessA, kStalenessB);
    const int64_t mix_start = now_ns();
    x = std::make_shared<const std::vector<float>>(algorithms::fedasync_mix(*x, m.weights, alpha_t));
    const int64_t mix_end = now_ns();
    ++t;
    // The send begins as the mix ends, as in fedgrid; a thread started late (the server's
    // quota spent on the mix) catches up within the pacer's allowance. Recording comes after.
    if (t < o.rounds)
      sends.start(from - 1, t, x, mix_end);
    else
      training.erase(from);
    host.parts->event(m.header.start_ns, m.end_ns, host.topology.host(from).name, "send", host.name(), m.bytes(), 0,
                      kPlacedByTime);
    host.parts->event(mix_start, mix_end, host.name(), "server", "", 0, flops, t);
    host.parts->round_end(t, mix_end);
  }
  // fedgrid drops the jobs under way: their pushes are taken here and discarded, unrecorded,
  // and every hospital is told to stop.
  for (const int h : hospitals)
    if (!training.count(h)) host.send(h, kStop, {});
  while (!training.empty()) {
    const int from = host.inbox->take_any(training).header.from;
    training.erase(from);
    host.send(from, kStop, {});
  }
  sends.check();
}

// A hospital: take the server's model, train, push, until told to stop.
void fedasync_hospital(Host& host, LocalTrainer& trainer) {
  const auto& o = host.options;
  const int n = int(o.hospitals.size()), i = host.me - 1;
  const int64_t samples = o.hospitals[size_t(i)].samples;
  for (;;) {
    Message m = host.inbox->take_any({0});
    const int version = m.header.round;
    if (version == kStop) return;
    host.parts->event(m.header.start_ns, m.end_ns, host.topology.host(0).name, "send", host.name(), m.bytes(), 0,
                      kPlacedByTime);
    // fedgrid's job number (its shuffling seed): the first n jobs, one per hospital in id
    // order, start from version 0; the one triggered by mix t, the only one given version t,
    // is job n + t - 1.
    const uint64_t job = version == 0 ? uint64_t(i) : uint64_t(n + version - 1);
    const int64_t start = now_ns();
    TrainResult r = trainer.train_job(m.weights, job);
    host.parts->event(start, now_ns(), host.name(), "compute", "", 0, trainer.flops(), kPlacedByTime);
    host.send(0, version, r.weights, samples, r.loss);
  }
}

}  // namespace

void warm_up_fedasync(const std::vector<float>& model) { algorithms::fedasync_mix(model, model, kAlpha); }

void run_server(Host& host, std::vector<float> model) {
  if (host.options.schedule == "fedasync")
    fedasync_server(host, model);
  else if (host.options.schedule == "fedavg")
    fedavg_server(host, std::move(model));
  else
    fedseq_server(host, std::move(model));
}

void run_hospital(Host& host, LocalTrainer& trainer, std::vector<float> model) {
  if (host.options.schedule == "fedcross")
    fedcross_hospital(host, trainer, std::move(model));
  else if (host.options.schedule == "fedasync")
    fedasync_hospital(host, trainer);
  else
    via_server(host, trainer);
}

}  // namespace fedgrid::emulator
