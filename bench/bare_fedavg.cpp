// The training work of a fedgrid FedAvg run with no simulation at all: the same model, data,
// partition, initial weights, shuffling, epochs, batch size and threads, as a plain LibTorch
// loop over hospitals on a pool of std::threads. The yardstick for fedgrid's overhead
// (bench/overhead_vs_bare.sh). It reuses fedgrid's data readers and model definitions, and
// writes its own loop: nothing of sim/ is linked in.
//
// usage: bare_fedavg HOSPITALS ROUNDS WORKERS THREADS_PER_WORKER [SEED]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "data/partition.hpp"
#include "data/rng.hpp"
#include "data/sources.hpp"
#include "models/nets.hpp"
#include "sim/core/seed_streams.hpp"

using namespace fedgrid;

namespace {

struct Result {
  std::vector<float> weights;
  int64_t samples = 0;
};

Result train_hospital(const models::ModelSpec& spec, const std::vector<float>& global, const data::Dataset& d,
                      data::Indices order, uint64_t seed) {
  static thread_local std::shared_ptr<models::Net> net = models::make_net(spec);
  models::load_state(*net, global);
  net->train();
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  auto images = torch::from_blob(const_cast<float*>(d.images.data()),
                                 {d.size(), d.shape.channels, d.shape.height, d.shape.width});
  auto labels = torch::from_blob(const_cast<int64_t*>(d.labels.data()), {d.size()}, torch::kInt64);
  Rng(mix_seed(seed, 0)).shuffle(order);  // epoch 0
  const int64_t n = int64_t(order.size());
  for (int64_t start = 0; start < n; start += 32) {
    auto idx = torch::from_blob(order.data() + start, {std::min<int64_t>(32, n - start)}, torch::kInt64);
    sgd.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(images.index_select(0, idx)),
                                                     labels.index_select(0, idx));
    loss.backward();
    sgd.step();
    (void)loss.item<double>();  // fedgrid reads every batch loss too
  }
  return {models::flatten_state(*net), n};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: bare_fedavg HOSPITALS ROUNDS WORKERS THREADS_PER_WORKER [SEED]\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const int hospitals = std::atoi(argv[1]), rounds = std::atoi(argv[2]), workers = std::atoi(argv[3]),
            threads = std::atoi(argv[4]);
  const uint64_t seed = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 42;

  auto data = data::load_idx_dir(data::kFashionMnistDir, "fashion-mnist");
  data::PartitionOptions po;
  po.scheme = data::PartitionScheme::Iid, po.seed = mix_seed(seed, seed_streams::kPartition);
  auto held = data::partition(data.train.labels, 10, hospitals, po);
  std::vector<data::Indices> train, test;
  for (int h = 0; h < hospitals; ++h) {
    auto split = data::split_stratified(held[size_t(h)], data.train.labels, {},
                                        mix_seed(seed, seed_streams::kSplit, uint64_t(h)));
    train.push_back(std::move(split.train));
    test.push_back(std::move(split.test));
  }
  const models::ModelSpec spec{"cnn", 1, 28, 28, 10};
  torch::manual_seed(mix_seed(seed, seed_streams::kModelInit));
  std::vector<float> global = models::flatten_state(*models::make_net(spec));

  for (int round = 1; round <= rounds; ++round) {
    std::vector<Result> results(static_cast<size_t>(hospitals));
    std::vector<std::thread> pool;
    for (int w = 0; w < workers; ++w)
      pool.emplace_back([&, w] {
        torch::set_num_threads(threads);
        for (int h = w; h < hospitals; h += workers)
          results[size_t(h)] = train_hospital(spec, global, data.train, train[size_t(h)],
                                              mix_seed(seed, seed_streams::kTrain, uint64_t(h + 1), uint64_t(round)));
      });
    for (auto& t : pool) t.join();
    double total = 0;
    for (auto& r : results) total += double(r.samples);
    std::vector<double> sum(global.size(), 0.0);
    for (auto& r : results)
      for (size_t i = 0; i < sum.size(); ++i) sum[i] += double(r.samples) / total * double(r.weights[i]);
    for (size_t i = 0; i < sum.size(); ++i) global[i] = float(sum[i]);
  }

  // Scored as fedgrid scores the last round: the global test set and every hospital's own test
  // split, in batches of 1,000, on every core.
  torch::NoGradGuard no_grad;
  torch::set_num_threads(workers * threads);
  auto net = models::make_net(spec);
  models::load_state(*net, global);
  net->eval();
  auto count_correct = [&](const data::Dataset& d, const data::Indices* subset) {
    auto x = torch::from_blob(const_cast<float*>(d.images.data()), {d.size(), 1, 28, 28});
    auto y = torch::from_blob(const_cast<int64_t*>(d.labels.data()), {d.size()}, torch::kInt64);
    const int64_t n = subset ? int64_t(subset->size()) : d.size();
    int64_t correct = 0;
    for (int64_t start = 0; start < n; start += 1000) {
      const int64_t len = std::min<int64_t>(1000, n - start);
      torch::Tensor xb = x.narrow(0, start, len), yb = y.narrow(0, start, len);
      if (subset) {
        auto idx = torch::from_blob(const_cast<int64_t*>(subset->data()) + start, {len}, torch::kInt64);
        xb = x.index_select(0, idx), yb = y.index_select(0, idx);
      }
      correct += net->forward(xb).argmax(1).eq(yb).sum().item<int64_t>();
    }
    return correct;
  };
  const double accuracy = double(count_correct(data.test, nullptr)) / double(data.test.size());
  for (const auto& t : test) (void)count_correct(data.train, &t);  // per-hospital accuracy, as fedgrid reports
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("bare_fedavg: %d hospitals, %d rounds, accuracy %.6f, wall %.2f s\n", hospitals, rounds, accuracy, wall);
  return 0;
}
