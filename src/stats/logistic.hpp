#pragma once
// Logistic regression by iteratively reweighted least squares (IRLS), written by hand on Eigen.
// General API: a design matrix (the caller adds the intercept column if wanted) and 0/1 responses
// in, coefficients, Fisher-information standard errors, fitted probabilities and diagnostics out.
// The design is a dense matrix or a BlockedDesign (factors as level codes, for designs with
// many-level factors at millions of rows); both go through the same IRLS loop.
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
  // How a blocked design's X'WX and X'Wz are summed; the estimates agree up to rounding.
  // kByGroup: rows whose sparse nonzeros fall in the same design columns form a group, each
  // group's weighted cross-products of its distinct row values are summed with one dense rank-one
  // update per row, and placed into X'WX once per group (few groups: factors and their
  // interactions with few levels). kByRow: every sparse nonzero of every row is added to X'WX on
  // its own (many groups: a many-level factor). kAutomatic: kByGroup when the used rows fall into
  // at most one group per kMinRowsPerGroup rows (and the per-group sums fit in a bounded buffer),
  // else kByRow. A dense design is always summed by dense rank updates.
  enum class Accumulation { kAutomatic, kByRow, kByGroup };
  Accumulation accumulation = Accumulation::kAutomatic;
};

// kAutomatic's threshold: fewer rows per group than this and the per-group placement into X'WX
// costs about as much as adding each row's nonzeros on their own.
inline constexpr std::size_t kMinRowsPerGroup = 64;

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

// How a logistic fit ended, copied into a fit reported as R's glm reports it: columns aliased by
// fit_logistic's rank rule (stricter than factor_gram's, so a design can pass that one and fail
// this), no maximum-likelihood estimate (`separation`), or no convergence. True when the
// estimates can be reported; the caller then copies them.
template <class Fit>
bool adopt_logistic_ending(const LogisticFit& logistic, Eigen::Index columns, Fit& fit) {
  if (logistic.rank < static_cast<int>(columns)) {
    for (std::size_t j = 0; j < logistic.aliased.size(); ++j)
      if (logistic.aliased[j]) {
        fit.aliased.push_back(j);
        fit.alias_of.emplace_back();
      }
    return false;
  }
  if (logistic.diverging) {
    fit.separation = true;
    return false;
  }
  fit.converged = logistic.converged;
  return fit.converged;
}

// Columns of a design with at most one nonzero per row, stored as that nonzero's position and
// value: the indicators of a factor's levels (one-hot implied by the level code), a factor's
// indicators times a numeric value, the indicators of a factor-by-factor interaction. The block's
// columns are design columns first .. first + width - 1.
struct SparseColumnBlock {
  std::size_t first = 0;
  std::size_t width = 0;
  std::vector<std::int32_t>
      column;                 // per row: column within the block holding the nonzero; -1 none
  std::vector<double> value;  // per row: the nonzero; empty = every nonzero is 1 (or see below)
  // When >= 0 (and `value` is empty), the nonzero of row i is the design's dense column
  // `dense_value` at row i: a factor's indicators times a numeric column or product that is also a
  // dense column of the design, stored once. The fit then also knows the two carry equal values.
  std::ptrdiff_t dense_value = -1;
};

// An N x p design matrix stored by blocks, so a many-level factor costs one code per row instead
// of one double per row and level: dense columns (numeric values, their products, the intercept)
// plus sparse blocks. X'WX is formed by row groups or by row (LogisticOptions::accumulation).
struct BlockedDesign {
  std::size_t rows = 0;
  std::size_t columns = 0;
  Eigen::MatrixXd dense;                   // rows x dense_columns.size()
  std::vector<std::size_t> dense_columns;  // design column of each dense column
  std::vector<SparseColumnBlock> sparse;

  // The nonzero of `block` in row i (meaningful where block.column[i] >= 0).
  double sparse_value(const SparseColumnBlock& block, std::size_t i) const {
    return block.dense_value >= 0 ? dense(static_cast<Eigen::Index>(i), block.dense_value)
           : block.value.empty()  ? 1.0
                                  : block.value[i];
  }
  // Row i of the design times beta (p).
  double row_dot(std::size_t i, const Eigen::VectorXd& beta) const;
  // The same matrix stored densely (N x p), for tests and small data.
  Eigen::MatrixXd to_dense() const;
  // Throws std::invalid_argument when the blocks do not tile columns 0..p-1 exactly once, a
  // block's per-row vectors do not have `rows` entries, or its dense_value is not a dense column
  // (or comes with a `value` vector).
  void check() const;
};

// X: N x p design (column-major), y: N values in {0, 1}. Throws std::invalid_argument on
// mismatched sizes. Deterministic for any thread count: the N rows are cut into a fixed number of
// blocks whose partial X'WX are added in block order.
LogisticFit fit_logistic(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                         const LogisticOptions& options = {});

// The same fit on a blocked design, restricted to `rows` (ascending or not; empty = all rows), so
// cross-validation folds need no copy of the design. y, options.weights and the fitted
// probabilities have one entry per used row, in the order of `rows`. Same estimates as the dense
// fit of the same matrix up to rounding (the sums are grouped differently). Without case weights
// the first IRLS step solves with the aliasing check's X'X (every row starts with the same
// working weight), so the rows are read once fewer.
LogisticFit fit_logistic(const BlockedDesign& X, const Eigen::VectorXd& y,
                         const LogisticOptions& options = {},
                         const std::vector<std::size_t>& rows = {});

// Columns of X (in order) that are aliased on the earlier ones, by the rule above.
std::vector<bool> aliased_columns(const Eigen::MatrixXd& X, double rank_tolerance = 1e-9);
std::vector<bool> aliased_columns(const BlockedDesign& X, double rank_tolerance = 1e-9,
                                  const std::vector<std::size_t>& rows = {});

}  // namespace synthaudit::stats
