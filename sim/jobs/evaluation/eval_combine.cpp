// Evaluation parts -> one outcome, torch-free: the same arithmetic, in the same order, as one
// pass over all the batches, so a split evaluation gives its figures to the bit.
#include <stdexcept>

#include "sim/jobs/compute.hpp"
#include "sim/jobs/evaluation/metrics.hpp"

namespace fedgrid {

EvalOutcome combine_evaluation(const std::vector<EvalPart>& parts, int classes) {
  EvalOutcome out;
  double loss_sum = 0;
  int64_t correct = 0;
  std::vector<float> scores;
  std::vector<int64_t> labels;
  for (const EvalPart& p : parts) {
    if (p.labels.empty()) continue;
    if (p.confusion.size() != size_t(classes) * size_t(classes) || p.probabilities.size() != p.labels.size() * size_t(classes))
      throw std::invalid_argument("combine_evaluation: a part does not match the class count");
    for (double l : p.batch_losses) loss_sum += l;  // batch after batch, as one pass adds them
    correct += p.correct;
    if (out.confusion.empty()) out.confusion.assign(p.confusion.size(), 0);
    for (size_t i = 0; i < p.confusion.size(); ++i) out.confusion[i] += p.confusion[i];
    scores.insert(scores.end(), p.probabilities.begin(), p.probabilities.end());
    labels.insert(labels.end(), p.labels.begin(), p.labels.end());
  }
  const int64_t n = int64_t(labels.size());
  if (n == 0) return {};
  out.accuracy = double(correct) / double(n);
  out.loss = loss_sum / double(n);
  out.samples = n;
  out.auc = macro_auc_ovr(scores, labels, classes);
  return out;
}

}  // namespace fedgrid
