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

namespace synthaudit::stats {

// Generalised linear models beyond the logistic one, as R's glm.fit: binomial with a logit,
// probit or complementary log-log link, Poisson with a log link, Gaussian with an identity
// link. Fisher scoring (IRLS) from R's starting values, converged to a relative deviance change
// of `tolerance`, with step halving when the deviance is not finite or grows. Standard errors
// from φ(X'WX)⁻¹ at the estimate, φ = 1 for the binomial and Poisson families and the Pearson
// estimate RSS/(n − p) for the Gaussian one (summary.glm).
enum class GlmFamily { kBinomial, kPoisson, kGaussian };
enum class GlmLink { kLogit, kProbit, kCloglog, kLog, kIdentity };

struct GlmFit {
  Eigen::VectorXd beta, se;  // empty when singular, separated or not converged
  Eigen::MatrixXd covariance;
  Eigen::VectorXd fitted;  // μ of the rows, when converged
  Eigen::VectorXd eta;
  double deviance = 0.0;
  double dispersion = 1.0;
  int iterations = 0;
  bool converged = false;
  // The estimate runs off to infinity: one more scoring step after convergence still moves the
  // linear predictor (binomial separation; a Poisson count of 0 in every row of a level).
  bool diverging = false;
  std::vector<std::size_t> aliased;
  std::vector<std::vector<std::size_t>> alias_of;
};

// `prior_weights` (optional, one per row, ≥ 0) are R's glm weights: svyglm passes the sampling
// weights rescaled to mean 1 through them. y: 0/1 for the binomial family, ≥ 0 for Poisson.
GlmFit fit_glm(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, GlmFamily family, GlmLink link,
               const Eigen::VectorXd* prior_weights = nullptr,
               const GlmLogisticOptions& options = {});

// The inverse link μ(η) and dμ/dη, as R's make.link (the binomial ones clamped as R does).
double glm_inverse_link(GlmLink link, double eta);
double glm_mu_eta(GlmLink link, double eta);
// The variance function V(μ) of the family.
double glm_variance(GlmFamily family, double mu);

}  // namespace synthaudit::stats
