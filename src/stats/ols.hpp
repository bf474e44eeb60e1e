#pragma once
// Ordinary least squares with classical standard errors, and the Gram-matrix kernels it shares
// with the logistic fit (src/stats/glm.hpp).
//
// Method: normal equations on column-scaled data (X'X scaled to unit diagonal), an in-order
// Cholesky that doubles as the rank check, and one step of iterative refinement on the residual
// (β += (X'X)⁻¹X'(y − Xβ)), which brings the estimate to QR accuracy for well-posed designs while
// reading X only three times. X'X is the only O(n p²) step; it is accumulated over fixed row
// chunks in parallel and the chunks are added in order, so results do not depend on the thread
// count.
#include <cstddef>
#include <vector>

#include "stats/eigen_dense.hpp"

namespace synthaudit::stats {

// X'WX (w == nullptr: X'X), lower and upper triangles filled. Deterministic for any thread count.
Eigen::MatrixXd gram(const Eigen::MatrixXd& x, const Eigen::VectorXd* w = nullptr);
// X'v, deterministic for any thread count.
Eigen::VectorXd cross(const Eigen::MatrixXd& x, const Eigen::VectorXd& v);
// Xb, row-parallel.
Eigen::VectorXd multiply(const Eigen::MatrixXd& x, const Eigen::VectorXd& b);

// Cholesky of a Gram matrix G scaled to unit diagonal, taken in column order. A column whose
// squared residual on the earlier columns (1 − R², after scaling) is below `tolerance` is aliased:
// (numerically) a linear combination of earlier columns, as R's lm reports it.
struct GramFactor {
  Eigen::VectorXd scale;  // 1/sqrt(G_jj) (0 for an all-zero column)
  Eigen::LLT<Eigen::MatrixXd> llt;
  std::vector<std::size_t> aliased;                // aliased columns, in order
  std::vector<std::vector<std::size_t>> alias_of;  // for each: the earlier columns it combines
  bool full_rank() const { return aliased.empty(); }
  Eigen::VectorXd solve(const Eigen::VectorXd& b) const;  // G⁻¹b
  Eigen::MatrixXd inverse() const;                        // G⁻¹
};
GramFactor factor_gram(const Eigen::MatrixXd& g, double tolerance = 1e-11);

// Every fit reports a singular design the same way (R's lm names the aliased terms and estimates
// nothing): copies `factor`'s aliased columns into `fit` and returns false when X is singular.
template <class Fit>
bool full_rank_or_report(const GramFactor& factor, Fit& fit) {
  if (factor.full_rank()) return true;
  fit.aliased = factor.aliased;
  fit.alias_of = factor.alias_of;
  return false;
}

struct OlsFit {
  // Empty beta when the design is singular; see aliased / alias_of.
  Eigen::VectorXd beta, se;
  Eigen::MatrixXd covariance;  // σ²(X'X)⁻¹
  double rss = 0.0;
  double sigma2 = 0.0;  // rss / (n − p); NaN when n ≤ p
  double df_residual = 0.0;
  std::vector<std::size_t> aliased;
  std::vector<std::vector<std::size_t>> alias_of;
};
OlsFit fit_ols(const Eigen::MatrixXd& x, const Eigen::VectorXd& y);

}  // namespace synthaudit::stats
