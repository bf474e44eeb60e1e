// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 kernels
// (_mm512_extractf64x4_pd) when built with -march=native; nothing here is uninitialised.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "stats/logistic.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/threads.hpp"

namespace synthaudit::stats {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// R's logit link inverse and derivative (family.c): eta clamped at +-30 so mu stays in
// [eps, 1 - eps] and the working weights stay positive.
inline double inverse_logit(double eta) {
  if (eta < -30.0) return kEps;
  if (eta > 30.0) return 1.0 - kEps;
  return 1.0 / (1.0 + std::exp(-eta));
}
inline double mu_eta(double eta) {
  const double opexp = 1.0 + std::exp(eta);
  return (eta > 30.0 || eta < -30.0) ? kEps : std::exp(eta) / (opexp * opexp);
}

struct Blocks {
  std::size_t count;
  std::size_t n;
  std::size_t begin(std::size_t b) const { return n * b / count; }
  std::size_t end(std::size_t b) const { return n * (b + 1) / count; }
};

// Fixed partition of the rows, independent of the thread count.
Blocks make_blocks(std::size_t n) {
  const std::size_t count = std::clamp<std::size_t>(n / 2048, 1, 64);
  return {count, n};
}

constexpr std::size_t kChunk = 1024;

}  // namespace

std::vector<bool> aliased_columns(const Eigen::MatrixXd& X, double rank_tolerance) {
  const auto p = static_cast<std::size_t>(X.cols());
  const auto n = static_cast<std::size_t>(X.rows());
  // Gram matrix X'X by blocks (deterministic order).
  const Blocks blocks = make_blocks(n);
  std::vector<Eigen::MatrixXd> partial(
      blocks.count,
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p)));
#pragma omp parallel for schedule(dynamic, 1) if (blocks.count > 1) num_threads(parallel_threads())
  for (std::size_t b = 0; b < blocks.count; ++b) {
    const auto r0 = static_cast<Eigen::Index>(blocks.begin(b));
    const auto len = static_cast<Eigen::Index>(blocks.end(b) - blocks.begin(b));
    partial[b].selfadjointView<Eigen::Lower>().rankUpdate(X.middleRows(r0, len).transpose());
  }
  Eigen::MatrixXd G =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  for (const auto& part : partial) G += part;
  G = G.selfadjointView<Eigen::Lower>();
  // Cholesky in column order; a column whose pivot falls below rank_tolerance * G_jj is aliased.
  std::vector<bool> aliased(p, false);
  Eigen::MatrixXd L =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  std::vector<Eigen::Index> kept;
  for (std::size_t jj = 0; jj < p; ++jj) {
    const auto j = static_cast<Eigen::Index>(jj);
    const double gjj = G(j, j);
    if (!(gjj > 0.0)) {
      aliased[jj] = true;
      continue;
    }
    double d = gjj;
    for (std::size_t a = 0; a < kept.size(); ++a) {
      const Eigen::Index k = kept[a];
      double s = G(j, k);
      for (std::size_t c = 0; c < a; ++c) s -= L(j, kept[c]) * L(k, kept[c]);
      L(j, k) = s / L(k, k);
      d -= L(j, k) * L(j, k);
    }
    if (d <= rank_tolerance * gjj) {
      aliased[jj] = true;
      continue;
    }
    L(j, j) = std::sqrt(d);
    kept.push_back(j);
  }
  return aliased;
}

LogisticFit fit_logistic(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                         const LogisticOptions& options) {
  const auto n = static_cast<std::size_t>(X.rows());
  const auto p = static_cast<std::size_t>(X.cols());
  if (static_cast<std::size_t>(y.size()) != n)
    throw std::invalid_argument("fit_logistic: X and y differ in rows");
  if (!options.weights.empty() && options.weights.size() != n)
    throw std::invalid_argument("fit_logistic: weights and y differ in length");
  auto case_weight = [&](std::size_t i) {
    return options.weights.empty() ? 1.0 : options.weights[i];
  };

  LogisticFit fit;
  fit.aliased = aliased_columns(X, options.rank_tolerance);
  std::vector<Eigen::Index> kept;
  for (std::size_t j = 0; j < p; ++j)
    if (!fit.aliased[j]) kept.push_back(static_cast<Eigen::Index>(j));
  const auto k = static_cast<Eigen::Index>(kept.size());
  fit.rank = static_cast<int>(k);
  fit.coefficients = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(p), std::nan(""));
  fit.standard_errors = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(p), std::nan(""));
  fit.fitted = Eigen::VectorXd(static_cast<Eigen::Index>(n));

  // Null deviance (intercept-only fit: mu = weighted mean of y).
  double sw = 0.0, swy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sw += case_weight(i);
    swy += case_weight(i) * y[static_cast<Eigen::Index>(i)];
  }
  auto deviance_term = [](double yi, double mu) {
    return -2.0 * (yi > 0.5 ? std::log(mu) : std::log(1.0 - mu));
  };
  if (n > 0 && sw > 0.0) {
    const double ybar = swy / sw;
    for (std::size_t i = 0; i < n; ++i)
      if (ybar > 0.0 && ybar < 1.0)
        fit.null_deviance += case_weight(i) * deviance_term(y[static_cast<Eigen::Index>(i)], ybar);
  }

  Eigen::VectorXd eta(static_cast<Eigen::Index>(n));
  // glm.fit's start: mustart = (w*y + 0.5) / (w + 1).
  for (std::size_t i = 0; i < n; ++i) {
    const double w = case_weight(i);
    const double mu = (w * y[static_cast<Eigen::Index>(i)] + 0.5) / (w + 1.0);
    eta[static_cast<Eigen::Index>(i)] = std::log(mu / (1.0 - mu));
  }
  const Blocks blocks = make_blocks(n);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(k), beta_old = beta;
  double dev_old = std::numeric_limits<double>::infinity();
  Eigen::MatrixXd A(k, k);
  Eigen::LLT<Eigen::MatrixXd> llt;
  bool have_beta = false;

  // One pass: accumulate X'WX and X'Wz from the current eta.
  auto accumulate = [&](Eigen::MatrixXd& out_a, Eigen::VectorXd& out_b) {
    std::vector<Eigen::MatrixXd> pa(blocks.count);
    std::vector<Eigen::VectorXd> pb(blocks.count);
#pragma omp parallel for schedule(dynamic, 1) if (blocks.count > 1) num_threads(parallel_threads())
    for (std::size_t b = 0; b < blocks.count; ++b) {
      pa[b] = Eigen::MatrixXd::Zero(k, k);
      pb[b] = Eigen::VectorXd::Zero(k);
      Eigen::MatrixXd ws(static_cast<Eigen::Index>(kChunk), k);
      Eigen::VectorXd zs(static_cast<Eigen::Index>(kChunk));
      for (std::size_t r0 = blocks.begin(b); r0 < blocks.end(b); r0 += kChunk) {
        const std::size_t len = std::min(kChunk, blocks.end(b) - r0);
        const auto l = static_cast<Eigen::Index>(len);
        for (std::size_t t = 0; t < len; ++t) {
          const auto i = static_cast<Eigen::Index>(r0 + t);
          const double e = eta[i];
          const double mu = inverse_logit(e);
          const double d = mu_eta(e);
          const double w = case_weight(r0 + t) * d * d / (mu * (1.0 - mu));
          const double z = e + (y[i] - mu) / d;
          const double sq = std::sqrt(w);
          zs[static_cast<Eigen::Index>(t)] = sq * z;
          ws(static_cast<Eigen::Index>(t), 0) = sq;  // placeholder, overwritten below
          for (Eigen::Index c = 0; c < k; ++c)
            ws(static_cast<Eigen::Index>(t), c) = sq * X(i, kept[static_cast<std::size_t>(c)]);
        }
        pa[b].selfadjointView<Eigen::Lower>().rankUpdate(ws.topRows(l).transpose());
        pb[b].noalias() += ws.topRows(l).transpose() * zs.head(l);
      }
    }
    out_a.setZero(k, k);
    out_b.setZero(k);
    for (std::size_t b = 0; b < blocks.count; ++b) {
      out_a += pa[b];
      out_b += pb[b];
    }
    out_a = out_a.selfadjointView<Eigen::Lower>();
  };
  auto update_eta = [&](const Eigen::VectorXd& coef) -> double {
    double dev = 0.0;
    std::vector<double> partial(blocks.count, 0.0);
#pragma omp parallel for schedule(dynamic, 1) if (blocks.count > 1) num_threads(parallel_threads())
    for (std::size_t b = 0; b < blocks.count; ++b) {
      double s = 0.0;
      for (std::size_t i = blocks.begin(b); i < blocks.end(b); ++i) {
        const auto ii = static_cast<Eigen::Index>(i);
        double e = 0.0;
        for (Eigen::Index c = 0; c < k; ++c)
          e += X(ii, kept[static_cast<std::size_t>(c)]) * coef[c];
        eta[ii] = e;
        s += case_weight(i) * deviance_term(y[ii], inverse_logit(e));
      }
      partial[b] = s;
    }
    for (double s : partial) dev += s;
    return dev;
  };

  Eigen::VectorXd rhs(k);
  if (k > 0) {
    for (fit.iterations = 1; fit.iterations <= options.max_iterations; ++fit.iterations) {
      accumulate(A, rhs);
      llt.compute(A);
      if (llt.info() != Eigen::Success) break;
      Eigen::VectorXd next = llt.solve(rhs);
      double dev = update_eta(next);
      // Step halving when the deviance is not finite or increases (glm.fit halves on
      // non-finite deviance; halving on increase too keeps IRLS monotone).
      for (int halve = 0;
           have_beta && (!std::isfinite(dev) || dev > dev_old * (1 + 1e-12) + 1e-12) && halve < 30;
           ++halve) {
        next = 0.5 * (next + beta);
        dev = update_eta(next);
      }
      beta_old = beta;
      beta = next;
      have_beta = true;
      const bool done = std::abs(dev - dev_old) / (std::abs(dev) + 0.1) < options.tolerance;
      dev_old = dev;
      fit.deviance = dev;
      if (done) {
        fit.converged = true;
        break;
      }
    }
    if (fit.iterations > options.max_iterations) fit.iterations = options.max_iterations;
    // Fisher information at the final coefficients.
    accumulate(A, rhs);
    llt.compute(A);
    fit.covariance = Eigen::MatrixXd::Constant(static_cast<Eigen::Index>(p),
                                               static_cast<Eigen::Index>(p), std::nan(""));
    if (llt.info() == Eigen::Success) {
      const Eigen::MatrixXd inv = llt.solve(Eigen::MatrixXd::Identity(k, k));
      for (Eigen::Index c = 0; c < k; ++c) {
        fit.standard_errors[kept[static_cast<std::size_t>(c)]] = std::sqrt(inv(c, c));
        for (Eigen::Index d = 0; d < k; ++d)
          fit.covariance(kept[static_cast<std::size_t>(c)], kept[static_cast<std::size_t>(d)]) =
              inv(c, d);
      }
      if (options.check_divergence && fit.converged) {
        // The Newton step from the estimate, with the system just factored.
        const Eigen::VectorXd eta_at_estimate = eta;
        update_eta(llt.solve(rhs));
        fit.diverging = (eta - eta_at_estimate).cwiseAbs().maxCoeff() > 1e-3;
        eta = eta_at_estimate;
      }
    } else if (options.check_divergence) {
      // The information matrix degenerated: fitted probabilities reached 0 or 1 along some
      // direction of a full-rank design.
      fit.diverging = true;
    }
    for (Eigen::Index c = 0; c < k; ++c)
      fit.coefficients[kept[static_cast<std::size_t>(c)]] = beta[c];
  } else {
    fit.deviance = update_eta(beta);
    fit.converged = true;
  }
  if (fit.covariance.size() == 0)
    fit.covariance = Eigen::MatrixXd::Constant(static_cast<Eigen::Index>(p),
                                               static_cast<Eigen::Index>(p), std::nan(""));
  for (std::size_t i = 0; i < n; ++i) {
    const double e = eta[static_cast<Eigen::Index>(i)];
    const double mu = 1.0 / (1.0 + std::exp(-e));
    fit.fitted[static_cast<Eigen::Index>(i)] = mu;
    if (mu < 1e-10 || mu > 1.0 - 1e-10) ++fit.separated_rows;
  }
  fit.separation = fit.separated_rows > 0;
  return fit;
}

}  // namespace synthaudit::stats
