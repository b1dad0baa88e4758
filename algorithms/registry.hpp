#pragma once
// Algorithms by name. A new algorithm is one file plus one line in registry.cpp.
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fedgrid {
class Federation;
}

namespace fedgrid::algorithms {

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual void run(Federation& fed) = 0;
};

struct AlgorithmInfo {
  std::string name, description;
  std::function<std::unique_ptr<Algorithm>()> make;
  // Which models the scenario may give: one for all (model.arch), one per tier (model.<tier>),
  // or also one per hospital group (platform.hospitals[].model).
  enum class Models { Shared, PerTier, PerHospital } models = Models::Shared;
  bool counts_epochs = false;  // sizes local work in epochs itself (rejects training.local_steps)
};

const std::vector<AlgorithmInfo>& registry();
const AlgorithmInfo* find_algorithm(const std::string& name);
std::string algorithm_names();

// Factories, defined in each algorithm's file.
std::unique_ptr<Algorithm> make_fedavg();
std::unique_ptr<Algorithm> make_fedprox();
std::unique_ptr<Algorithm> make_unifed();
std::unique_ptr<Algorithm> make_fedseq();
std::unique_ptr<Algorithm> make_local();
std::unique_ptr<Algorithm> make_centralized();
std::unique_ptr<Algorithm> make_heterofl();
std::unique_ptr<Algorithm> make_dynamicfl();
std::unique_ptr<Algorithm> make_feddf();
std::unique_ptr<Algorithm> make_fedrolex();
std::unique_ptr<Algorithm> make_fedskd();
std::unique_ptr<Algorithm> make_fedcross();
std::unique_ptr<Algorithm> make_fedbn();

}  // namespace fedgrid::algorithms
