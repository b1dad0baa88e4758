#include "sim/engine/peer_mail.hpp"

#include <mutex>

namespace fedgrid {

void PeerMail::open() {
  if (!mutex_) mutex_ = simgrid::s4u::Mutex::create(), delivered_ = simgrid::s4u::ConditionVariable::create();
}

void PeerMail::deliver(int to, int round, Model model) {
  open();
  std::unique_lock lock(*mutex_);
  inbox_.insert_or_assign({to, round}, std::move(model));
  delivered_->notify_all();
}

std::optional<Model> PeerMail::collect(int at, int round, int from) {
  open();
  std::unique_lock lock(*mutex_);
  const std::pair<int, int> key{at, round};
  delivered_->wait(lock, [&] {
    return closed_ || inbox_.count(key) || lost_senders_.count({from, round}) || lost_posts_.count({from, at, round});
  });
  auto it = inbox_.find(key);
  if (it == inbox_.end()) return std::nullopt;
  Model model = std::move(it->second);
  inbox_.erase(it);
  return model;
}

void PeerMail::lost(int from, int round) {
  open();
  std::unique_lock lock(*mutex_);
  lost_senders_.insert({from, round});
  delivered_->notify_all();
}

void PeerMail::lost(int from, int to, int round) {
  open();
  std::unique_lock lock(*mutex_);
  lost_posts_.insert({from, to, round});
  delivered_->notify_all();
}

void PeerMail::close() {
  closed_ = true;
  if (delivered_) delivered_->notify_all();
}

}  // namespace fedgrid
