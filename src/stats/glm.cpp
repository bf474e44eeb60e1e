#include "stats/glm.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "stats/logistic.hpp"
#include "stats/ols.hpp"

namespace synthaudit::stats {

GlmLogisticFit fit_glm_logistic(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                const GlmLogisticOptions& options) {
  GlmLogisticFit fit;
  // The rank of X with the rule fit_ols uses, so that lm and glm_logit name aliased terms alike.
  if (!full_rank_or_report(factor_gram(gram(x)), fit)) return fit;
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
  if (!adopt_logistic_ending(lf, x.cols(), fit)) return fit;
  fit.beta = lf.coefficients;
  fit.se = lf.standard_errors;
  fit.covariance = lf.covariance;
  return fit;
}

}  // namespace synthaudit::stats

namespace synthaudit::stats {

namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double normal_density(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI); }

double link_function(GlmLink link, double mu) {
  switch (link) {
    case GlmLink::kLogit:
      return std::log(mu / (1.0 - mu));
    case GlmLink::kProbit:
      return boost::math::quantile(boost::math::normal(), mu);
    case GlmLink::kCloglog:
      return std::log(-std::log1p(-mu));
    case GlmLink::kLog:
      return std::log(mu);
    case GlmLink::kIdentity:
      return mu;
  }
  return mu;
}

// Unit deviance contributions, R's binomial()$dev.resids, poisson()$dev.resids, gaussian().
double unit_deviance(GlmFamily family, double y, double mu) {
  auto y_log_y_over = [](double a, double b) { return a > 0 ? a * std::log(a / b) : 0.0; };
  switch (family) {
    case GlmFamily::kBinomial:
      return 2.0 * (y_log_y_over(y, mu) + y_log_y_over(1.0 - y, 1.0 - mu));
    case GlmFamily::kPoisson:
      return 2.0 * (y_log_y_over(y, mu) - (y - mu));
    case GlmFamily::kGaussian:
      return (y - mu) * (y - mu);
  }
  return 0.0;
}

}  // namespace

double glm_inverse_link(GlmLink link, double eta) {
  switch (link) {
    case GlmLink::kLogit: {
      if (eta < -30.0) return kEpsilon;
      if (eta > 30.0) return 1.0 - kEpsilon;
      return 1.0 / (1.0 + std::exp(-eta));
    }
    case GlmLink::kProbit: {
      // R: η clamped at ±qnorm(ε) so μ stays inside (0, 1).
      const double threshold = 8.125890664701906;
      return normal_cdf(std::clamp(eta, -threshold, threshold));
    }
    case GlmLink::kCloglog:
      return std::clamp(-std::expm1(-std::exp(eta)), kEpsilon, 1.0 - kEpsilon);
    case GlmLink::kLog:
      return std::max(std::exp(eta), kEpsilon);
    case GlmLink::kIdentity:
      return eta;
  }
  return eta;
}

double glm_mu_eta(GlmLink link, double eta) {
  switch (link) {
    case GlmLink::kLogit: {
      if (eta > 30.0 || eta < -30.0) return kEpsilon;
      const double opexp = 1.0 + std::exp(eta);
      return std::exp(eta) / (opexp * opexp);
    }
    case GlmLink::kProbit:
      return std::max(normal_density(eta), kEpsilon);
    case GlmLink::kCloglog: {
      const double e = std::min(eta, 700.0);
      return std::max(std::exp(e) * std::exp(-std::exp(e)), kEpsilon);
    }
    case GlmLink::kLog:
      return std::max(std::exp(eta), kEpsilon);
    case GlmLink::kIdentity:
      return 1.0;
  }
  return 1.0;
}

double glm_variance(GlmFamily family, double mu) {
  switch (family) {
    case GlmFamily::kBinomial:
      return mu * (1.0 - mu);
    case GlmFamily::kPoisson:
      return mu;
    case GlmFamily::kGaussian:
      return 1.0;
  }
  return 1.0;
}

GlmFit fit_glm(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, GlmFamily family, GlmLink link,
               const Eigen::VectorXd* prior_weights, const GlmLogisticOptions& options) {
  const Eigen::Index n = x.rows(), p = x.cols();
  if (y.size() != n || (prior_weights && prior_weights->size() != n))
    throw std::invalid_argument("fit_glm: design, response and weights differ in length");
  const Eigen::VectorXd prior =
      prior_weights ? *prior_weights : Eigen::VectorXd(Eigen::VectorXd::Ones(n));
  GlmFit fit;
  if (!full_rank_or_report(factor_gram(gram(x)), fit)) return fit;

  // R's starting values (family$initialize).
  Eigen::VectorXd eta(n), mu(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    double start = y[i];
    if (family == GlmFamily::kBinomial)
      start = (prior[i] * y[i] + 0.5) / (prior[i] + 1.0);
    else if (family == GlmFamily::kPoisson)
      start = y[i] + 0.1;
    eta[i] = link_function(link, start);
    mu[i] = glm_inverse_link(link, eta[i]);
  }
  auto deviance_of = [&](const Eigen::VectorXd& m) {
    double d = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) d += prior[i] * unit_deviance(family, y[i], m[i]);
    return d;
  };
  auto valid_mu = [&](double m) {
    if (!std::isfinite(m)) return false;
    if (family == GlmFamily::kBinomial) return m > 0.0 && m < 1.0;
    if (family == GlmFamily::kPoisson) return m > 0.0;
    return true;
  };
  // One scoring step from the current η: the weighted least-squares solution for the working
  // response, or nothing when the working weights give a singular system.
  Eigen::VectorXd w(n);
  auto scoring_step = [&](const Eigen::VectorXd& at_eta, const Eigen::VectorXd& at_mu,
                          GramFactor* factor_out) -> std::optional<Eigen::VectorXd> {
    Eigen::VectorXd z(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double d = glm_mu_eta(link, at_eta[i]);
      w[i] = prior[i] * d * d / glm_variance(family, at_mu[i]);
      z[i] = at_eta[i] + (y[i] - at_mu[i]) / d;
    }
    GramFactor factor = factor_gram(gram(x, &w));
    if (!factor.full_rank()) return std::nullopt;
    Eigen::VectorXd beta = factor.solve(cross(x, Eigen::VectorXd(w.cwiseProduct(z))));
    // One step of iterative refinement, as fit_ols.
    const Eigen::VectorXd residual = z - multiply(x, beta);
    beta += factor.solve(cross(x, Eigen::VectorXd(w.cwiseProduct(residual))));
    if (factor_out) *factor_out = std::move(factor);
    return beta;
  };

  double deviance = deviance_of(mu);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(p);
  bool have_beta = false;
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    fit.iterations = iteration;
    auto next = scoring_step(eta, mu, nullptr);
    if (!next) return fit;  // working weights vanished: not converged
    Eigen::VectorXd candidate = *next;
    Eigen::VectorXd new_eta = multiply(x, candidate);
    Eigen::VectorXd new_mu(n);
    double new_deviance = 0.0;
    // Step halving (R's glm.fit halves for a non-finite deviance or invalid μ; halving also when
    // the deviance grows keeps the iteration monotone without changing the optimum).
    for (int halving = 0; halving < 60; ++halving) {
      bool valid = true;
      for (Eigen::Index i = 0; i < n && valid; ++i) {
        new_mu[i] = glm_inverse_link(link, new_eta[i]);
        valid = valid_mu(new_mu[i]);
      }
      new_deviance = valid ? deviance_of(new_mu) : std::numeric_limits<double>::infinity();
      if (std::isfinite(new_deviance) &&
          (!have_beta || new_deviance <= deviance * (1.0 + 1e-15) + 1e-300))
        break;
      if (!have_beta && std::isfinite(new_deviance)) break;
      candidate =
          have_beta ? Eigen::VectorXd((candidate + beta) / 2.0) : Eigen::VectorXd(candidate / 2.0);
      new_eta = multiply(x, candidate);
    }
    if (!std::isfinite(new_deviance)) return fit;
    const double change = std::abs(new_deviance - deviance) / (std::abs(new_deviance) + 0.1);
    beta = candidate;
    have_beta = true;
    eta = new_eta;
    mu = new_mu;
    deviance = new_deviance;
    if (change < options.tolerance) {
      fit.converged = true;
      break;
    }
  }
  fit.deviance = deviance;
  if (!fit.converged) return fit;

  GramFactor factor;
  auto further = scoring_step(eta, mu, &factor);
  if (!further) {
    fit.converged = false;
    return fit;
  }
  // A finite maximum-likelihood estimate does not move; a diverging one moves by about 1.
  const Eigen::VectorXd moved = multiply(x, *further) - eta;
  if (family != GlmFamily::kGaussian && moved.cwiseAbs().maxCoeff() > 1e-3) {
    fit.diverging = true;
    fit.converged = false;
    return fit;
  }
  double positive = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) positive += prior[i] > 0 ? 1.0 : 0.0;
  if (family == GlmFamily::kGaussian) {
    double pearson = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) pearson += prior[i] * (y[i] - mu[i]) * (y[i] - mu[i]);
    fit.dispersion = pearson / (positive - static_cast<double>(p));
  }
  // The information at the estimate, from the working weights of the final η (R's summary.glm
  // uses the weights of the last iteration, which agree at convergence).
  fit.beta = beta;
  fit.covariance = fit.dispersion * factor.inverse();
  fit.se = fit.covariance.diagonal().array().sqrt();
  fit.fitted = mu;
  fit.eta = eta;
  return fit;
}

}  // namespace synthaudit::stats
