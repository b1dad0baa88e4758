#include "bench/emulator/schedules.hpp"

#include <exception>
#include <thread>

#include "bench/emulator/clock.hpp"

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

}  // namespace

void run_server(Host& host, std::vector<float> model) {
  if (host.options.schedule == "fedavg")
    fedavg_server(host, std::move(model));
  else
    fedseq_server(host, std::move(model));
}

void run_hospital(Host& host, LocalTrainer& trainer, std::vector<float> model) {
  if (host.options.schedule == "fedcross")
    fedcross_hospital(host, trainer, std::move(model));
  else
    via_server(host, trainer);
}

}  // namespace fedgrid::emulator
