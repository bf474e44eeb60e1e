#pragma once
// Regression models for a categorical outcome with K ≥ 2 levels, fitted by Newton-Raphson on the
// exact log-likelihood with analytic gradient and Hessian, converged to a relative change of the
// deviance below `tolerance`; covariance = the inverse of the observed information at the
// estimate.
// - Multinomial (baseline-category) logit as nnet::multinom (Venables & Ripley 2002): the first
//   level is the reference; log(P(Y = k)/P(Y = 1)) = x'β_k for k = 2..K. Coefficients ordered by
//   level, then by design column.
// - Proportional-odds (cumulative logit) model as MASS::polr: logit P(Y ≤ k) = ζ_k − x'β for
//   k = 1..K−1, x without an intercept, ζ increasing. Coefficients β first, then ζ.
//
// Design-weighted fits (options.weights, one sampling weight per row of x): the estimate maximises
// the weighted log-likelihood Σ w_i log P(y_i | x_i) (nnet::multinom(weights =), and
// survey::svyolr for polr), and the covariance is the linearisation (sandwich) estimator of a
// one-stage design drawn with replacement, svydesign(ids = ~1, weights = ~w): A⁻¹ B A⁻¹ with A the
// information of the weighted log-likelihood and B = n/(n − 1) Σ (u_i − ū)(u_i − ū)', u_i = w_i
// ∂log P(y_i)/∂θ the weighted score of row i, n = options.design_rows (rows of the design the
// complete cases came from; rows dropped for a missing value count with u_i = 0, as svyolr's and
// svyglm's designs keep them). survey has no multinomial model; the same formula is what svyolr
// computes for polr (its svyrecvar of the influence functions u_i A⁻¹). Weights are rescaled to
// mean 1 (neither the estimate nor the sandwich depends on their scale).
#include <cstddef>
#include <vector>

#include "stats/eigen_dense.hpp"
#include "stats/survey_design.hpp"

namespace synthaudit::stats {

struct CategoricalModelOptions {
  int max_iterations = 200;
  double tolerance = 1e-12;
  Eigen::VectorXd weights;      // empty: unweighted (inverse observed information)
  std::size_t design_rows = 0;  // weighted fits: n of the sandwich; 0 = the rows of x
  // A declared design (weights must then be the design's at `rows`, row k of x being design row
  // rows[k]): the meat is the design's variance of the score contributions, or, for a replicate
  // design, the fit is redone with each replicate's weights and the covariance is their svrVar
  // (as svyolr on a replicate design). Null: the one-stage design above.
  const SurveyDesign* design = nullptr;
  std::vector<std::size_t> rows;
};

struct CategoricalModelFit {
  Eigen::VectorXd theta, se;  // empty when singular or not converged
  Eigen::MatrixXd covariance;
  double deviance = 0.0;  // −2 log-likelihood
  int iterations = 0;
  bool converged = false;
  // The estimate runs off to infinity (an outcome level separated by the predictors, or a level
  // absent from the data): one more Newton step after convergence still moves it.
  bool diverging = false;
  std::vector<std::size_t> aliased;  // singular design (see GramFactor)
  std::vector<std::vector<std::size_t>> alias_of;
};

// y: level index 0..levels−1 per row; x includes the intercept column (as model.matrix).
CategoricalModelFit fit_multinomial_logit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                          std::size_t levels,
                                          const CategoricalModelOptions& options = {});

// y: level index 0..levels−1 per row; x without the intercept column.
CategoricalModelFit fit_proportional_odds(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                          std::size_t levels,
                                          const CategoricalModelOptions& options = {});

}  // namespace synthaudit::stats
