#pragma once
// Logistic regression by iteratively reweighted least squares (IRLS), written by hand on Eigen.
// General API: a design matrix (the caller adds the intercept column if wanted) and 0/1 responses
// in, coefficients, Fisher-information standard errors, fitted probabilities and diagnostics out.
// The one IRLS logistic fit of the project: the propensity-score metrics call it directly; the
// specific-utility analyses call it through fit_glm_logistic (stats/glm.hpp), which adds the
// rank check and the messages of R's glm.
//
// Aliased (linearly dependent) columns are detected once, in column order, on the unweighted
// Gram matrix, as R's glm does through its QR with limited pivoting: a column whose residual
// after projection on the earlier kept columns is negligible gets coefficient NaN and is left out
// of the fit. Fitted probabilities do not depend on which of a set of aliased columns is dropped.
#include <cstdint>
#include <string>
#include <vector>

#include "stats/eigen_dense.hpp"

namespace synthaudit::stats {

struct LogisticOptions {
  int max_iterations = 100;
  // Stop when |dev - dev_old| / (|dev| + 0.1) < tolerance (glm.fit's rule, tighter default).
  double tolerance = 1e-12;
  // Column j is aliased when its squared residual norm is below rank_tolerance times its squared
  // norm (relative to the columns kept before it).
  double rank_tolerance = 1e-9;
  // Optional case weights (frequency weights); empty = all 1.
  std::vector<double> weights;
  // After convergence, take one more Newton step and report whether it still moves the linear
  // predictor (by more than 1e-3): a finite maximum-likelihood estimate does not move, under
  // (quasi-)complete separation each step pushes the separated records' predictor by about 1.
  // Costs one more pass over the data.
  bool check_divergence = false;
};

struct LogisticFit {
  Eigen::VectorXd coefficients;     // p; NaN for aliased columns
  Eigen::VectorXd standard_errors;  // p; sqrt(diag((X'WX)^-1)); NaN for aliased columns
  Eigen::MatrixXd covariance;       // p x p; (X'WX)^-1; NaN rows and columns for aliased ones
  Eigen::VectorXd fitted;           // N fitted probabilities
  std::vector<bool> aliased;        // p
  int rank = 0;                     // number of estimated (non-aliased) coefficients
  int iterations = 0;
  bool converged = false;
  // Quasi-complete separation suspected: some fitted probabilities reached 0 or 1 within 1e-10
  // (coefficients then diverge and standard errors are meaningless).
  bool separation = false;
  std::size_t separated_rows = 0;
  // With check_divergence: the Newton step after convergence still moved the linear predictor, so
  // the maximum-likelihood estimate does not exist (separation in the strict sense).
  bool diverging = false;
  double deviance = 0.0;
  double null_deviance = 0.0;
};

// X: N x p design (column-major), y: N values in {0, 1}. Throws std::invalid_argument on
// mismatched sizes. Deterministic for any thread count: the N rows are cut into a fixed number of
// blocks whose partial X'WX are added in block order.
LogisticFit fit_logistic(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                         const LogisticOptions& options = {});

// Columns of X (in order) that are aliased on the earlier ones, by the rule above.
std::vector<bool> aliased_columns(const Eigen::MatrixXd& X, double rank_tolerance = 1e-9);

}  // namespace synthaudit::stats
