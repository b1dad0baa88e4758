#include "sim/jobs/evaluation/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace fedgrid {

std::optional<double> macro_auc_ovr(const std::vector<float>& scores, const std::vector<int64_t>& labels, int classes) {
  const size_t n = labels.size(), c = size_t(classes);
  if (classes <= 0 || scores.size() != n * c)
    throw std::invalid_argument("macro_auc_ovr: scores are not samples x classes");
  double sum = 0;
  int counted = 0;
  std::vector<size_t> order(n);
  for (size_t k = 0; k < c; ++k) {
    const int64_t positives = std::count(labels.begin(), labels.end(), int64_t(k));
    const int64_t negatives = int64_t(n) - positives;
    if (positives == 0 || negatives == 0) continue;
    // Mann-Whitney U: the positives' rank sum (ties share their average rank).
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a * c + k] < scores[b * c + k]; });
    double positive_rank_sum = 0;
    for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j < n && scores[order[j] * c + k] == scores[order[i] * c + k]) ++j;
      const double rank = 0.5 * double(i + 1 + j);  // mean of ranks i+1..j
      for (size_t t = i; t < j; ++t)
        if (labels[order[t]] == int64_t(k)) positive_rank_sum += rank;
      i = j;
    }
    const double p = double(positives), q = double(negatives);
    sum += (positive_rank_sum - p * (p + 1) / 2) / (p * q);
    ++counted;
  }
  if (counted == 0) return std::nullopt;
  return sum / counted;
}

std::optional<double> mean_present(const std::vector<std::optional<double>>& values) {
  double sum = 0;
  int count = 0;
  for (const auto& v : values)
    if (v) sum += *v, ++count;
  if (count == 0) return std::nullopt;
  return sum / count;
}

std::optional<double> min_present(const std::vector<std::optional<double>>& values) {
  std::optional<double> low;
  for (const auto& v : values)
    if (v && (!low || *v < *low)) low = v;
  return low;
}

std::optional<double> balanced_accuracy(const std::vector<int64_t>& confusion, int classes) {
  if (classes <= 0 || confusion.size() != size_t(classes) * size_t(classes))
    throw std::invalid_argument("balanced_accuracy: confusion matrix is not classes x classes");
  double recall = 0;
  int counted = 0;
  for (size_t t = 0; t < size_t(classes); ++t) {
    int64_t row = 0;
    for (size_t p = 0; p < size_t(classes); ++p) row += confusion[t * size_t(classes) + p];
    if (row == 0) continue;
    recall += double(confusion[t * size_t(classes) + t]) / double(row);
    ++counted;
  }
  if (counted == 0) return std::nullopt;
  return recall / counted;
}

std::optional<MacroMetrics> macro_metrics(const std::vector<int64_t>& confusion, int classes) {
  if (classes <= 0 || confusion.size() != size_t(classes) * size_t(classes))
    throw std::invalid_argument("macro_metrics: confusion matrix is not classes x classes");
  const size_t c = size_t(classes);
  std::vector<int64_t> actual(c, 0), predicted(c, 0);
  int64_t total = 0;
  for (size_t t = 0; t < c; ++t)
    for (size_t p = 0; p < c; ++p) {
      const int64_t n = confusion[t * c + p];
      actual[t] += n, predicted[p] += n, total += n;
    }
  if (total == 0) return std::nullopt;
  MacroMetrics m;
  for (size_t k = 0; k < c; ++k) {
    if (actual[k] == 0 && predicted[k] == 0) continue;
    const int64_t tp = confusion[k * c + k], fp = predicted[k] - tp, fn = actual[k] - tp;
    const int64_t tn = total - tp - fp - fn;
    const double precision = predicted[k] ? double(tp) / double(predicted[k]) : 0.0;
    const double recall = actual[k] ? double(tp) / double(actual[k]) : 0.0;
    m.f1 += precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
    m.sensitivity += recall;
    m.precision += precision;
    m.specificity += tn + fp > 0 ? double(tn) / double(tn + fp) : 0.0;
    ++m.classes_counted;
  }
  m.f1 /= m.classes_counted, m.sensitivity /= m.classes_counted, m.specificity /= m.classes_counted;
  m.precision /= m.classes_counted;
  return m;
}

std::optional<double> accuracy_gap(const std::vector<std::pair<std::string, std::optional<double>>>& tier_accuracy) {
  std::optional<double> best, worst;
  for (const auto& [tier, acc] : tier_accuracy) {
    if (!acc) continue;
    if (!best || *acc > *best) best = acc;
    if (!worst || *acc < *worst) worst = acc;
  }
  if (!best) return std::nullopt;
  return *best - *worst;
}

std::optional<double> population_std(const std::vector<std::optional<double>>& values) {
  double sum = 0, sum_sq = 0;
  int n = 0;
  for (const auto& v : values)
    if (v) sum += *v, ++n;
  if (n == 0) return std::nullopt;
  const double mean = sum / n;
  for (const auto& v : values)
    if (v) sum_sq += (*v - mean) * (*v - mean);
  return std::sqrt(sum_sq / n);
}

}  // namespace fedgrid
