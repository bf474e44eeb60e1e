#pragma once
// Logistic regression (binomial GLM, logit link) by iteratively reweighted least squares, with
// standard errors from the inverse Fisher information (X'WX)⁻¹ at the estimate — what R's glm and
// statsmodels' GLM(Binomial) report.
//
// Note: src/stats/logistic.* (the propensity family) has its own IRLS for propensity scores; the
// two could be merged later. This one is general: X, y -> β, SE, converged, separation. Its
// names carry "Glm" so that they do not clash with logistic.hpp (same namespace).
#include <cstddef>
#include <vector>

#include "stats/eigen_dense.hpp"

namespace synthaudit::stats {

struct GlmLogisticOptions {
  int max_iterations = 100;
  // Converged when the deviance changes by less than this, relative (R's glm uses 1e-8; we go
  // further so that standard errors agree with a tightly converged reference to 1e-6).
  double tolerance = 1e-12;
  // |linear predictor| beyond which a fitted probability counts as numerically 0 or 1
  // (p < 1e-13); rows beyond it, all on the side of their outcome, mean separation.
  double separation_eta = 30.0;
};

struct GlmLogisticFit {
  Eigen::VectorXd beta, se;  // empty when the design is singular or the data separate
  Eigen::MatrixXd covariance;
  double deviance = 0.0;
  int iterations = 0;
  bool converged = false;
  // Complete or quasi-complete separation: the maximum-likelihood estimate does not exist
  // (some coefficients run off to ±infinity); `separated_rows` rows are fitted with probability
  // numerically 0 or 1.
  bool separation = false;
  std::size_t separated_rows = 0;
  std::vector<std::size_t> aliased;  // singular design (see GramFactor)
  std::vector<std::vector<std::size_t>> alias_of;
};

// y must be 0/1.
GlmLogisticFit fit_glm_logistic(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                const GlmLogisticOptions& options = {});

}  // namespace synthaudit::stats
