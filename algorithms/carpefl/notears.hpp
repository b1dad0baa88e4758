#pragma once
// NOTEARS (X. Zheng, B. Aragam, P. Ravikumar, E. P. Xing, "DAGs with NO TEARS: Continuous
// Optimization for Structure Learning", NeurIPS 2018), linear least squares, fitted from
// second-order statistics: CarPe-FL's hospitals send only the mean and covariance of their
// latents, and the server fits one sparse DAG per hospital to them. Eigen only, no torch.
#include <cstdint>

#include <Eigen/Dense>

namespace fedgrid::carpefl {

// h(W) = tr(exp(W o W)) - d, zero exactly when W is the weighted adjacency of a DAG, and its
// gradient exp(W o W)^T o 2W (NOTEARS, Theorem 1 and Eq. 7).
struct Acyclicity {
  double h = 0;
  Eigen::MatrixXd gradient;
};
Acyclicity acyclicity(const Eigen::MatrixXd& w);

struct NotearsOptions {
  double lambda = 0.1;        // L1 weight (the reference code's lambda1)
  double h_tol = 1e-8;        // stop once h(W) is this small
  double rho_max = 1e16;      // stop once the penalty weight passes this
  int max_outer = 100;        // augmented-Lagrangian iterations
  int max_inner = 500;        // L-BFGS-B iterations per subproblem
  bool standardize = true;    // fit to the correlation matrix instead of the covariance
};

struct NotearsFit {
  Eigen::MatrixXd w;        // weighted adjacency, W[u][v] != 0: an edge u -> v; diagonal 0
  double h = 0;             // h(W) at the end
  int outer = 0;            // augmented-Lagrangian iterations run
  int64_t evaluations = 0;  // objective + gradient evaluations (what the server is charged for)
  double flops = 0;         // their floating-point work (notears_eval_flops each)
};

// argmin_W 0.5 tr((I - W)^T S (I - W)) + lambda ||W||_1 subject to h(W) = 0, diag(W) = 0,
// where S is `covariance` (or its correlation matrix when `standardize`). This is NOTEARS's
// (1/2n)||X - XW||_F^2 written with S = X^T X / n of centred X, so only S is needed. Solved as
// the reference code does: W = W+ - W- with W+, W- >= 0 (the L1 term turns linear), an
// augmented Lagrangian (rho x10 while h falls by less than 1/4; alpha += rho h), each
// subproblem by bound-constrained L-BFGS (LBFGSpp's LBFGSB). Throws std::invalid_argument for
// a covariance that is not square, symmetric and finite.
NotearsFit fit_notears(const Eigen::MatrixXd& covariance, const NotearsOptions& options = {});

// FLOPs of one objective + gradient evaluation for d nodes: the matrix exponential (scaling
// and squaring with a degree-13 Pade approximant: about 12 d x d products at 2 d^3 each) and
// the loss's two products S(I - W) and (I - W)^T S(I - W) (2 d^3 each).
double notears_eval_flops(int64_t d);

}  // namespace fedgrid::carpefl
