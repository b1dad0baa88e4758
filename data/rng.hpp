#pragma once
// Deterministic random numbers whose values are fixed by this file alone (std::mt19937_64 is
// specified by the standard; the distributions on top of it are written here because the
// standard library's are implementation-defined). Same seed => same numbers everywhere.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace fedgrid {

// SplitMix64 finaliser: derives independent stream seeds from (seed, a, b, c).
inline uint64_t mix_seed(uint64_t seed, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0) {
  uint64_t x = seed;
  for (uint64_t v : {a, b, c}) {
    x += 0x9E3779B97F4A7C15ULL + v;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
  }
  return x;
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t next() { return engine_(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(engine_() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, n).
  uint64_t below(uint64_t n) { return uint64_t(uniform() * double(n)); }
  double normal() {  // Box-Muller
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  // Marsaglia-Tsang; shape < 1 via the boost gamma(a) = gamma(a+1) * U^(1/a).
  double gamma(double shape) {
    if (shape < 1.0) return gamma(shape + 1.0) * std::pow(uniform() + 1e-300, 1.0 / shape);
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x = normal(), v = 1.0 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      double u = uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
      if (std::log(u + 1e-300) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
  }
  std::vector<double> dirichlet(double beta, size_t n) {
    std::vector<double> p(n);
    double sum = 0;
    for (auto& x : p) sum += (x = gamma(beta));
    for (auto& x : p) x /= sum;
    return p;
  }
  template <class T>
  void shuffle(std::vector<T>& v) {  // Fisher-Yates
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace fedgrid
