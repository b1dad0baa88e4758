#pragma once
// output.*: where a run writes and what.
#include <string>

namespace fedgrid {

struct OutputSection {
  std::string dir;
  bool trace = true;
  int eval_every = 1;
  bool global_test = true;  // local models: each also scored on every hospital's test split
  int checkpoint_every = 0;  // rounds between checkpoints (0: none)
  bool site_metrics = false;  // per-site macro-F1, balanced accuracy, AUROC: mean and worst site
  bool critical_path = false;  // what ended each round (sim/engine/critical_path.hpp)
};

}  // namespace fedgrid
