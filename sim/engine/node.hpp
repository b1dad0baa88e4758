#pragma once
// The machines of the federation as algorithms and the engine's parts see them: Node (the
// server or a hospital) and Hospital (its data, and its own training). Apart from the
// Federation (federation.hpp), so that the parts that only name machines (cohorts, transport,
// training jobs, ...) do not include the class they are parts of.
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "data/partition.hpp"
#include "sim/core/model.hpp"
#include "sim/jobs/local_work.hpp"

namespace simgrid::s4u {
class Host;
}

namespace fedgrid {

class Federation;

// A machine of the federation: the server or a hospital.
class Node {
 public:
  int id() const { return id_; }  // hospitals 0..N-1; the server is -1
  const std::string& name() const { return name_; }
  const std::string& tier() const { return tier_; }
  bool is_server() const { return id_ < 0; }
  simgrid::s4u::Host* host() const { return host_; }

 protected:
  Node(int id, std::string name, std::string tier, simgrid::s4u::Host* host)
      : id_(id), name_(std::move(name)), tier_(std::move(tier)), host_(host) {}
  friend class Federation;

 private:
  int id_;
  std::string name_, tier_;
  simgrid::s4u::Host* host_;
};

class Hospital : public Node {
 public:
  const data::HospitalSplit& split() const { return *split_; }  // empty in timing-only runs without data
  int64_t train_samples() const { return train_samples_; }
  // Runs `work` (the algorithm's local job: plain training, FedProx's proximal step, ...) from
  // `model` on this hospital's training split: real LibTorch work on the executor, charged as
  // work.cost() on this hospital's host.
  Update train(const Model& model, LocalWork& work);
  Update train(const Model& model, LocalWork&& work) { return train(model, work); }
  // As train(), for an update the algorithm only hands to the server's aggregate
  // (weighted_average): the charge is taken now and the real job runs when the aggregate
  // reaches this update (sim/jobs/deferred_training.hpp), so a round holds a few trained models
  // at a time, not one per hospital. `model` must stay alive and unchanged until then. Trains
  // at once where the job cannot wait: timing-only runs, works charged after they run, under
  // faults (a guarded job may be cut), and with compression.* (its weights are encoded as sent).
  template <class W>
  Update train_later(const Model& model, W&& work) {
    return train_on_later(model, std::make_unique<std::decay_t<W>>(std::forward<W>(work)));
  }

 private:
  Hospital(Federation* fed, int id, std::string name, std::string tier, simgrid::s4u::Host* host,
           const data::HospitalSplit* split, int64_t train_samples)
      : Node(id, std::move(name), std::move(tier), host), fed_(fed), split_(split), train_samples_(train_samples) {}
  friend class Federation;
  Update train_on_later(const Model& model, std::unique_ptr<LocalWork> work);
  Federation* fed_;
  const data::HospitalSplit* split_;
  int64_t train_samples_;
};

}  // namespace fedgrid
