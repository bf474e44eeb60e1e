#pragma once
// Logistic regression for declared analyses (binomial GLM, logit link), with standard errors from
// the inverse Fisher information (X'WX)⁻¹ at the estimate — what R's glm and statsmodels'
// GLM(Binomial) report. The fit itself is fit_logistic (stats/logistic.hpp, the project's one
// IRLS); this layer adds what an analysis needs around it: the rank check with the OLS rule
// (aliased terms named, no estimates), and separation in the strict sense (the
// maximum-likelihood estimate does not exist: no estimates, an error upstream).
#include <cstddef>
#include <vector>

#include "stats/eigen_dense.hpp"

namespace synthaudit::stats {

struct GlmLogisticOptions {
  int max_iterations = 100;
  // Converged when the deviance changes by less than this, relative (R's glm uses 1e-8; we go
  // further so that standard errors agree with a tightly converged reference to 1e-6).
  double tolerance = 1e-12;
  // Rows whose fitted probability is beyond 1/(1 + e^(separation_eta/2)) of 0 or 1 (|linear
  // predictor| > 15) are counted in separated_rows, for the message.
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
