// The MPI executor's messages and its communication thread (see job_exchange.hpp).
#include "sim/jobs/mpi/job_exchange.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace fedgrid {
namespace {

// A message: kind, job, then the outcome (kOutcome), the reason (kFailure) or nothing (kDone,
// a rank's last message: MPI keeps one sender's messages in order, so nothing of it follows).
enum Kind : uint8_t { kOutcome = 0, kFailure = 1, kDone = 2, kPart = 3, kPartFailure = 4 };
constexpr int kTag = 37;  // every message of the exchange

template <class T>
void put(std::vector<char>& out, const T& value) {
  const char* p = reinterpret_cast<const char*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}
template <class T>
void put_all(std::vector<char>& out, const std::vector<T>& values) {
  put(out, uint64_t(values.size()));
  const char* p = reinterpret_cast<const char*>(values.data());
  out.insert(out.end(), p, p + values.size() * sizeof(T));
}

struct Reader {
  const std::vector<char>& bytes;
  size_t at = 0;
  template <class T>
  T get() {
    if (at + sizeof(T) > bytes.size()) throw std::runtime_error("MPI executor: a message ends early");
    T value;
    std::memcpy(&value, bytes.data() + at, sizeof(T));
    at += sizeof(T);
    return value;
  }
  template <class T>
  std::vector<T> get_all() {
    const auto n = get<uint64_t>();
    if (at + n * sizeof(T) > bytes.size()) throw std::runtime_error("MPI executor: a message ends early");
    std::vector<T> values(n);
    std::memcpy(values.data(), bytes.data() + at, n * sizeof(T));
    at += n * sizeof(T);
    return values;
  }
};

std::vector<char> header(Kind kind, uint64_t job) {
  std::vector<char> out;
  put(out, uint8_t(kind));
  put(out, job);
  return out;
}

// What a signal handler prints: two buffers, the one in force named by an atomic pointer, so a
// handler never reads a line half written.
char state_lines[2][200];
std::atomic<const char*> state_line{nullptr};
std::atomic<int> state_next{0};

void say_state_and_die(int signal) {
  if (const char* line = state_line.load()) {
    const ssize_t written = write(STDERR_FILENO, line, std::strlen(line));
    (void)written;
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

std::unique_ptr<JobExchange> JobExchange::open_mpi() { return std::make_unique<JobExchange>(open_mpi_world()); }

JobExchange::JobExchange(std::unique_ptr<MpiWorld> world)
    : world_(std::move(world)), rank_(world_->rank()), ranks_(world_->size()),
      done_from_(size_t(ranks_), false) {
  done_from_[size_t(rank_)] = true;
  note_state("fedgrid: rank %d was stopped before its first training job%.0llu\n", 0);
  std::signal(SIGTERM, say_state_and_die);
  std::signal(SIGINT, say_state_and_die);
}

JobExchange::~JobExchange() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void JobExchange::note_state(const char* format, uint64_t job) {
  const int slot = state_next.fetch_xor(1);
  std::snprintf(state_lines[slot], sizeof state_lines[slot], format, rank_, static_cast<unsigned long long>(job),
                owner(job));
  state_line.store(state_lines[slot]);
}

std::optional<std::pair<int, std::string>> JobExchange::agree_set_up(bool failed, const std::string& message) {
  const int first = world_->min_over_ranks(failed ? rank_ : ranks_);  // ranks_: none failed
  if (first == ranks_) {
    thread_ = std::thread([this] { communicate(); });
    return std::nullopt;
  }
  const auto text = world_->broadcast(rank_ == first ? std::vector<char>(message.begin(), message.end())
                                                     : std::vector<char>(), first);
  return std::make_pair(first, std::string(text.begin(), text.end()));
}

size_t JobExchange::message_bytes(const TrainOutcome& o) {
  return 1 + 8 + 8 + 8 + 4 + 8 + o.weights.size() * sizeof(float) + 8 + o.batch_losses.size() * sizeof(double);
}

void JobExchange::publish(uint64_t job, const TrainOutcome& o) {
  std::vector<char> out = header(kOutcome, job);
  out.reserve(message_bytes(o));
  put(out, o.mean_loss), put(out, o.steps), put(out, int32_t(o.epochs));
  put_all(out, o.weights), put_all(out, o.batch_losses);
  queue(std::move(out));
}

void JobExchange::publish_part(uint64_t part, const EvalPart& p) {
  std::vector<char> out = header(kPart, part);
  put(out, p.correct);
  put_all(out, p.batch_losses), put_all(out, p.confusion), put_all(out, p.probabilities), put_all(out, p.labels);
  queue(std::move(out));
}

void JobExchange::publish_failure(uint64_t job, const std::string& what, bool evaluation_part) {
  std::vector<char> out = header(evaluation_part ? kPartFailure : kFailure, job);
  out.insert(out.end(), what.begin(), what.end());
  queue(std::move(out));
}

void JobExchange::queue(std::vector<char> bytes) {
  {
    std::lock_guard lock(mutex_);
    outbox_.push_back(std::make_shared<const std::vector<char>>(std::move(bytes)));
    ++published_;
  }
  wake_.notify_all();
}

std::future<TrainOutcome> JobExchange::expect(uint64_t job) {
  std::lock_guard lock(mutex_);
  return outcomes_.expect(job);
}

std::future<EvalPart> JobExchange::expect_part(uint64_t part) {
  std::lock_guard lock(mutex_);
  ++parts_from_others_;
  return parts_.expect(part);
}

void JobExchange::awaiting_part(uint64_t part) {
  std::lock_guard lock(mutex_);
  awaited_ = 0;
  note_state("fedgrid: rank %d was stopped while waiting on evaluation part %llu from rank %d\n", part);
}

void JobExchange::awaiting(uint64_t job) {
  std::lock_guard lock(mutex_);
  awaited_ = job;
  if (owns(job) || outcomes_.arrived(job))
    note_state("fedgrid: rank %d was stopped while training job %llu ran here (rank %d)\n", job);
  else
    note_state("fedgrid: rank %d was stopped while waiting on training job %llu from rank %d\n", job);
}

void JobExchange::deliver(int from, const std::vector<char>& bytes) {
  Reader in{bytes};
  const auto kind = Kind(in.get<uint8_t>());
  const auto job = in.get<uint64_t>();
  std::lock_guard lock(mutex_);
  if (kind == kDone) {
    done_from_[size_t(from)] = true;
    return;
  }
  const bool is_part = kind == kPart || kind == kPartFailure;
  std::string failure;
  if (kind == kFailure || kind == kPartFailure)
    failure = std::string(is_part ? "evaluation part " : "training job ") + std::to_string(job) + " failed on rank " +
              std::to_string(from) + ": " + std::string(bytes.begin() + long(in.at), bytes.end());
  if (is_part) {
    Mailbox<EvalPart>::Arrival arrival{std::nullopt, failure};
    if (kind == kPart) {
      EvalPart p;
      p.correct = in.get<int64_t>();
      p.batch_losses = in.get_all<double>(), p.confusion = in.get_all<int64_t>();
      p.probabilities = in.get_all<float>(), p.labels = in.get_all<int64_t>();
      arrival.value = std::move(p);
    }
    parts_.deliver(job, std::move(arrival));
    return;
  }
  Mailbox<TrainOutcome>::Arrival arrival{std::nullopt, failure};
  if (kind == kOutcome) {
    TrainOutcome o;
    o.mean_loss = in.get<double>(), o.steps = in.get<int64_t>(), o.epochs = in.get<int32_t>();
    o.weights = in.get_all<float>(), o.batch_losses = in.get_all<double>();
    arrival.value = std::move(o);
  }
  if (job == awaited_) note_state("fedgrid: rank %d was stopped after training job %llu arrived from rank %d\n", job);
  outcomes_.deliver(job, std::move(arrival));
}

// Sends what is queued, delivers what arrived, and sleeps a millisecond when there was
// neither (a job takes far longer): until stopped, or finishing and every rank's last
// message is in and every send done.
void JobExchange::communicate() {
  for (;;) {
    std::deque<std::shared_ptr<const std::vector<char>>> sending;
    bool finishing = false;
    {
      std::unique_lock lock(mutex_);
      if (stop_) return;
      sending.swap(outbox_);
      finishing = finishing_;
    }
    for (auto& bytes : sending)
      for (int to = 0; to < ranks_; ++to)
        if (to != rank_) world_->start_send(to, kTag, bytes);
    bool busy = !sending.empty();
    while (auto message = world_->poll(kTag)) {
      deliver(message->first, message->second);
      busy = true;
    }
    const bool sent = world_->sends_done();
    if (finishing && sent) {
      std::lock_guard lock(mutex_);
      if (outbox_.empty() && std::find(done_from_.begin(), done_from_.end(), false) == done_from_.end()) return;
    }
    if (!busy) {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, std::chrono::milliseconds(1), [&] { return stop_ || !outbox_.empty(); });
    }
  }
}

void JobExchange::finish() {
  {
    std::lock_guard lock(mutex_);
    outbox_.push_back(std::make_shared<const std::vector<char>>(header(kDone, published_)));
    finishing_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  world_->barrier();
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
  world_.reset();  // MPI_Finalize
}

void JobExchange::abort(int code) {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();  // MPI from one thread at a time
  std::fflush(stdout), std::fflush(stderr);
  world_->abort(code);
  std::abort();  // not reached; GCC does not see [[noreturn]] through a virtual call
}

}  // namespace fedgrid
