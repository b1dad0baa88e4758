#pragma once
// Classification and fairness metrics, torch-free so they can be checked by hand.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fedgrid {

struct MacroMetrics {
  double f1 = 0, sensitivity = 0, specificity = 0, precision = 0;  // macro averages over the classes counted
  int classes_counted = 0;
};

// `confusion[t * classes + p]` counts samples of true class t predicted as p. Macro averages
// run over the classes that occur among the true labels or the predictions (scikit-learn's
// default label set), each class weighted equally; a class never predicted has precision 0
// and a class with no samples recall 0 (zero_division=0). Specificity of class c is
// TN / (TN + FP). Empty matrix: nullopt.
std::optional<MacroMetrics> macro_metrics(const std::vector<int64_t>& confusion, int classes);

// Macro one-vs-rest ROC AUC (scikit-learn's roc_auc_score(multi_class="ovr", average="macro")):
// `scores` is samples x classes row-major (e.g. softmax outputs). For each class that has both
// samples and non-samples among `labels`, the probability that a random sample of the class
// scores higher on it than a random sample of another class (ties count half); the mean over
// those classes. Classes absent from the labels are left out (scikit-learn refuses them; a
// hospital's own test split often lacks classes). nullopt when no class qualifies.
std::optional<double> macro_auc_ovr(const std::vector<float>& scores, const std::vector<int64_t>& labels, int classes);
// Balanced accuracy (scikit-learn's balanced_accuracy_score): the mean recall over the classes
// that occur among the true labels. nullopt for an empty matrix.
std::optional<double> balanced_accuracy(const std::vector<int64_t>& confusion, int classes);
// The smallest of the values present (nullopt when none is).
std::optional<double> min_present(const std::vector<std::optional<double>>& values);
// Mean of the values present (nullopt when none is).
std::optional<double> mean_present(const std::vector<std::optional<double>>& values);

// Fairness between tiers: best minus worst tier accuracy among the tiers that have one
// (nullopt when none has).
std::optional<double> accuracy_gap(const std::vector<std::pair<std::string, std::optional<double>>>& tier_accuracy);
// Population standard deviation of the values present (nullopt when none is).
std::optional<double> population_std(const std::vector<std::optional<double>>& values);

}  // namespace fedgrid
