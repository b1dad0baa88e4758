#include "algorithms/unifed/unifed_steps.hpp"

#include <algorithm>
#include <stdexcept>


namespace fedgrid::algorithms {

double loss_slope(const std::vector<double>& losses) {
  const size_t n = losses.size();
  if (n < 2) return 0;
  const double mean_b = double(n - 1) / 2;
  double mean_l = 0;
  for (double l : losses) mean_l += l;
  mean_l /= double(n);
  double num = 0, den = 0;
  for (size_t b = 0; b < n; ++b) {
    num += (double(b) - mean_b) * (losses[b] - mean_l);
    den += (double(b) - mean_b) * (double(b) - mean_b);
  }
  return num / den;
}

std::vector<int> order_by_score(std::vector<int> ids, const std::map<int, double>& score) {
  std::sort(ids.begin(), ids.end(), [&](int a, int b) {
    auto sa = score.find(a), sb = score.find(b);
    if (sa == score.end() || sb == score.end())
      return sa != score.end() ? true : sb != score.end() ? false : a < b;
    return sa->second != sb->second ? sa->second < sb->second : a < b;
  });
  return ids;
}

Model mix(double alpha, const Model& k, const Model& s) {
  if (!(k.spec == s.spec) || k.values() != s.values()) throw std::logic_error("mix: models of different shapes");
  if (!k.holds_state()) return shape_only_model(k.spec, k.values());
  Model out{k.spec, std::vector<float>(k.weights.size())};
  for (size_t i = 0; i < out.weights.size(); ++i)
    out.weights[i] = float(alpha * double(k.weights[i]) + (1 - alpha) * double(s.weights[i]));
  return out;
}

double mix_flops(const Model& m) { return 3.0 * double(m.values()); }

}  // namespace fedgrid::algorithms
