#include "stats/glm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/ols.hpp"

namespace synthaudit::stats {

namespace {

double softplus(double t) { return t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t)); }

// Binomial deviance −2 Σ [y log μ + (1 − y) log(1 − μ)] from η, without forming μ (stable for
// large |η|). Summed in row order: deterministic.
double deviance(const Eigen::VectorXd& eta, const Eigen::VectorXd& y) {
  // Fixed chunks added in order: deterministic for any thread count.
  constexpr Eigen::Index kChunk = 65536;
  const Eigen::Index n = eta.size(), chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks), 0.0);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (Eigen::Index c = 0; c < chunks; ++c) {
    double d = 0.0;
    for (Eigen::Index i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i)
      d += softplus(y[i] > 0.5 ? -eta[i] : eta[i]);
    partial[static_cast<std::size_t>(c)] = d;
  }
  double d = 0.0;
  for (double p : partial) d += p;
  return 2.0 * d;
}

// Working weights w = μ(1 − μ) and the working right-hand side wz = wη + (y − μ).
void working(const Eigen::VectorXd& eta, const Eigen::VectorXd& y, Eigen::VectorXd& w,
             Eigen::VectorXd& wz) {
  const Eigen::Index n = eta.size();
  w.resize(n);
  wz.resize(n);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (Eigen::Index i = 0; i < n; ++i) {
    // One exp: t = e^(−|η|), μ and 1 − μ from it without cancellation.
    const double t = std::exp(-std::abs(eta[i]));
    const double mu = eta[i] >= 0 ? 1.0 / (1.0 + t) : t / (1.0 + t);
    const double one_minus = eta[i] >= 0 ? t / (1.0 + t) : 1.0 / (1.0 + t);
    w[i] = mu * one_minus;
    wz[i] = w[i] * eta[i] + (y[i] > 0.5 ? one_minus : -mu);
  }
}

}  // namespace

GlmLogisticFit fit_glm_logistic(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                const GlmLogisticOptions& options) {
  GlmLogisticFit fit;
  const Eigen::Index n = x.rows();
  // R's starting values: μ = (y + 0.5)/2.
  Eigen::VectorXd eta(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double mu = (y[i] + 0.5) / 2.0;
    eta[i] = std::log(mu / (1.0 - mu));
  }
  Eigen::VectorXd beta, w, wz;
  GramFactor last;
  double dev = deviance(eta, y);
  int extra = -1;  // Newton steps taken after convergence (the separation check)
  double max_eta_change = 0.0;
  for (int it = 1; it <= options.max_iterations + 1; ++it) {
    working(eta, y, w, wz);
    GramFactor f = factor_gram(gram(x, &w));
    if (!f.full_rank()) {
      if (it == 1) {
        // The starting weights are all 3/16, so this is the rank check of X itself.
        fit.aliased = f.aliased;
        fit.alias_of = f.alias_of;
        return fit;
      }
      // X has full rank, so the information matrix degenerates only when fitted probabilities
      // reach 0 or 1 along some direction: separation.
      fit.separation = true;
      break;
    }
    Eigen::VectorXd beta_new = f.solve(cross(x, wz));
    last = std::move(f);
    Eigen::VectorXd eta_new = multiply(x, beta_new);
    double dev_new = deviance(eta_new, y);
    // Step halving when the deviance is not finite or goes up (as R's glm.fit).
    for (int half = 0;
         half < 30 && beta.size() && !(std::isfinite(dev_new) && dev_new <= dev * (1 + 1e-12));
         ++half) {
      beta_new = 0.5 * (beta_new + beta);
      eta_new = multiply(x, beta_new);
      dev_new = deviance(eta_new, y);
    }
    max_eta_change = (eta_new - eta).cwiseAbs().maxCoeff();
    const double change = std::abs(dev_new - dev) / (std::abs(dev_new) + 0.1);
    beta = std::move(beta_new);
    eta = std::move(eta_new);
    dev = dev_new;
    fit.iterations = it;
    if (extra >= 0) {
      // A finite MLE does not move once converged; under separation each Newton step still
      // pushes the linear predictor of the separated rows by about 1.
      if (max_eta_change > 1e-3) {
        fit.separation = true;
        break;
      }
      if (++extra == 1) break;
    } else if (change < options.tolerance) {
      fit.converged = true;
      extra = 0;
    } else if (it >= options.max_iterations) {
      fit.separation = max_eta_change > 1e-3 && eta.cwiseAbs().maxCoeff() > options.separation_eta;
      break;
    }
  }
  fit.deviance = dev;
  for (Eigen::Index i = 0; i < n; ++i)
    if (std::abs(eta[i]) > options.separation_eta / 2) ++fit.separated_rows;
  if (fit.separation || !fit.converged) {
    fit.converged = false;
    if (fit.separation) {
      fit.beta.resize(0);
      return fit;
    }
  }
  // Fisher information from the last step's weights: that step started at the converged
  // estimate (the check step moved η by < 1e-3, in practice ~1e-10), saving one pass over X.
  fit.beta = beta;
  fit.covariance = last.inverse();
  fit.se = fit.covariance.diagonal().cwiseSqrt();
  return fit;
}

}  // namespace synthaudit::stats
