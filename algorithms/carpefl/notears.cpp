// NOTEARS (Zheng et al., NeurIPS 2018) on second-order statistics, for CarPe-FL's server.
//
// Choices (the CarPe-FL paper gives no solver settings; these are the NOTEARS reference code's
// defaults): W0 = 0, rho0 = 1, alpha0 = 0, rho x10 while a subproblem lowers h by less than a
// factor 1/4, alpha += rho h after each, stop at h <= 1e-8 or rho >= 1e16 or 100 iterations.
// The diagonal is left out of the variables (the reference code pins it with bounds (0, 0)).
// The L-BFGS-B subproblem keeps the best point it evaluated: LBFGSpp throws when a line
// search fails (it does near the end, with rho at 1e10 and more) and its x is then a trial
// point, so the fit goes on from the best evaluated point instead.
#include "algorithms/carpefl/notears.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <LBFGSB.h>
#include <unsupported/Eigen/MatrixFunctions>

namespace fedgrid::carpefl {
namespace {

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;

// The subproblem's objective over x = [W+ offdiag, W- offdiag] (>= 0), as LBFGSpp calls it.
class Subproblem {
 public:
  Subproblem(const Matrix& s, double lambda, double rho, double alpha)
      : s_(s), d_(s.rows()), lambda_(lambda), rho_(rho), alpha_(alpha) {}

  double operator()(const Vector& x, Vector& grad) {
    ++evaluations;
    const Matrix w = adjacency(x);
    const Matrix residual_cov = s_ * (Matrix::Identity(d_, d_) - w);  // S (I - W)
    const double loss = 0.5 * ((Matrix::Identity(d_, d_) - w).array() * residual_cov.array()).sum();
    const Acyclicity a = acyclicity(w);
    const double value = loss + 0.5 * rho_ * a.h * a.h + alpha_ * a.h + lambda_ * x.sum();
    const Matrix smooth = -residual_cov + (rho_ * a.h + alpha_) * a.gradient;
    const int64_t m = x.size() / 2;
    int64_t k = 0;
    for (int64_t i = 0; i < d_; ++i)
      for (int64_t j = 0; j < d_; ++j) {
        if (i == j) continue;
        grad[k] = smooth(i, j) + lambda_;
        grad[m + k] = -smooth(i, j) + lambda_;
        ++k;
      }
    if (std::isfinite(value) && value < best_value) best_value = value, best_x = x;
    return value;
  }

  Matrix adjacency(const Vector& x) const {
    Matrix w = Matrix::Zero(d_, d_);
    const int64_t m = x.size() / 2;
    int64_t k = 0;
    for (int64_t i = 0; i < d_; ++i)
      for (int64_t j = 0; j < d_; ++j) {
        if (i == j) continue;
        w(i, j) = x[k] - x[m + k];
        ++k;
      }
    return w;
  }

  int64_t evaluations = 0;
  double best_value = std::numeric_limits<double>::infinity();
  Vector best_x;

 private:
  const Matrix& s_;
  int64_t d_;
  double lambda_, rho_, alpha_;
};

Matrix checked_statistics(const Matrix& covariance, bool standardize) {
  const int64_t d = covariance.rows();
  if (d < 1 || covariance.cols() != d) throw std::invalid_argument("NOTEARS needs a square covariance matrix");
  if (!covariance.allFinite()) throw std::invalid_argument("NOTEARS got a covariance with a non-finite value");
  if (!covariance.isApprox(covariance.transpose(), 1e-9)) throw std::invalid_argument("NOTEARS got a non-symmetric covariance");
  if (!standardize) return covariance;
  // Correlation; a constant latent (variance 0) stays an isolated node.
  Vector scale(d);
  for (int64_t i = 0; i < d; ++i) scale[i] = covariance(i, i) > 1e-12 ? 1.0 / std::sqrt(covariance(i, i)) : 0.0;
  return scale.asDiagonal() * covariance * scale.asDiagonal();
}

}  // namespace

Acyclicity acyclicity(const Matrix& w) {
  const Matrix e = w.cwiseProduct(w).exp();
  return {e.trace() - double(w.rows()), e.transpose().cwiseProduct(2.0 * w)};
}

double notears_eval_flops(int64_t d) { return 26.0 * double(d) * double(d) * double(d); }

NotearsFit fit_notears(const Matrix& covariance, const NotearsOptions& o) {
  const Matrix s = checked_statistics(covariance, o.standardize);
  const int64_t d = s.rows();
  const int64_t m = d * (d - 1);
  NotearsFit fit;
  fit.w = Matrix::Zero(d, d);
  if (m == 0) return fit;
  Vector x = Vector::Zero(2 * m);
  const Vector lower = Vector::Zero(2 * m);
  const Vector upper = Vector::Constant(2 * m, std::numeric_limits<double>::infinity());
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = o.max_inner;
  double rho = 1, alpha = 0, h = std::numeric_limits<double>::infinity();
  for (fit.outer = 0; fit.outer < o.max_outer;) {
    ++fit.outer;
    Vector x_new = x;
    double h_new = h;
    while (rho < o.rho_max) {
      Subproblem f(s, o.lambda, rho, alpha);
      LBFGSpp::LBFGSBSolver<double> solver(param);
      Vector trial = x;
      double value = 0;
      try {
        solver.minimize(f, trial, value, lower, upper);
      } catch (const std::exception&) {
        // A failed line search ends the subproblem; its best evaluated point stands (above).
      }
      fit.evaluations += f.evaluations;
      x_new = f.best_x.size() ? f.best_x : x;
      h_new = acyclicity(f.adjacency(x_new)).h;
      if (h_new > 0.25 * h) rho *= 10;
      else break;
    }
    x = x_new;
    h = h_new;
    alpha += rho * h;
    if (h <= o.h_tol || rho >= o.rho_max) break;
  }
  fit.w = Subproblem(s, o.lambda, rho, alpha).adjacency(x);
  fit.h = acyclicity(fit.w).h;
  fit.flops = double(fit.evaluations) * notears_eval_flops(d);
  return fit;
}

}  // namespace fedgrid::carpefl
