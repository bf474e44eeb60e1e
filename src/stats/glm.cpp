#include "stats/glm.hpp"

#include <cmath>

#include "stats/logistic.hpp"
#include "stats/ols.hpp"

namespace synthaudit::stats {

GlmLogisticFit fit_glm_logistic(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                const GlmLogisticOptions& options) {
  GlmLogisticFit fit;
  // The rank of X with the rule fit_ols uses, so that lm and glm_logit name aliased terms alike.
  const GramFactor factor = factor_gram(gram(x));
  if (!factor.full_rank()) {
    fit.aliased = factor.aliased;
    fit.alias_of = factor.alias_of;
    return fit;
  }
  LogisticOptions lo;
  lo.max_iterations = options.max_iterations;
  lo.tolerance = options.tolerance;
  lo.check_divergence = true;
  const LogisticFit lf = fit_logistic(x, y, lo);
  fit.deviance = lf.deviance;
  fit.iterations = lf.iterations;
  const double p_edge = 1.0 / (1.0 + std::exp(options.separation_eta / 2));
  for (Eigen::Index i = 0; i < lf.fitted.size(); ++i)
    if (lf.fitted[i] < p_edge || lf.fitted[i] > 1.0 - p_edge) ++fit.separated_rows;
  if (lf.rank < static_cast<int>(x.cols())) {
    // Full rank by the rule above but not by fit_logistic's stricter one: report the columns it
    // dropped as aliased rather than return estimates with holes.
    for (std::size_t j = 0; j < lf.aliased.size(); ++j)
      if (lf.aliased[j]) {
        fit.aliased.push_back(j);
        fit.alias_of.emplace_back();
      }
    return fit;
  }
  if (lf.diverging) {
    fit.separation = true;
    return fit;
  }
  fit.converged = lf.converged;
  if (!fit.converged) return fit;
  fit.beta = lf.coefficients;
  fit.se = lf.standard_errors;
  fit.covariance = lf.covariance;
  return fit;
}

}  // namespace synthaudit::stats
