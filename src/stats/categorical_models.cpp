#include "stats/categorical_models.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "stats/ols.hpp"

namespace synthaudit::stats {

namespace {

// Row weights of a fit: empty when unweighted, else rescaled to mean 1.
Eigen::VectorXd row_weights(const CategoricalModelOptions& options, Eigen::Index rows) {
  if (options.weights.size() == 0) return {};
  if (options.weights.size() != rows)
    throw std::invalid_argument("categorical model: one weight per row expected");
  const double mean = options.weights.mean();
  return options.weights / mean;
}

// Newton-Raphson on a concave log-likelihood with step halving. `evaluate(theta, gradient,
// hessian, scores)` returns the log-likelihood (−∞ outside the parameter space) and fills the
// gradient and the Hessian when asked, and with them the rows' score contributions (one row per
// data row) when `scores` is given.
template <typename Evaluate>
void newton(Eigen::VectorXd theta, Evaluate evaluate, const CategoricalModelOptions& options,
            bool weighted, Eigen::Index rows, CategoricalModelFit& fit) {
  const Eigen::Index k = theta.size();
  Eigen::VectorXd gradient(k);
  Eigen::MatrixXd hessian(k, k);
  double loglik = evaluate(theta, &gradient, &hessian, nullptr);
  if (!std::isfinite(loglik)) return;
  auto step_of = [&](const Eigen::MatrixXd& h, const Eigen::VectorXd& g) {
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(-h);
    return Eigen::VectorXd(ldlt.solve(g));
  };
  for (int iteration = 1; iteration <= options.max_iterations; ++iteration) {
    fit.iterations = iteration;
    const Eigen::VectorXd step = step_of(hessian, gradient);
    if (!step.allFinite()) return;
    double scale = 1.0;
    Eigen::VectorXd candidate = theta + step;
    double next = evaluate(candidate, nullptr, nullptr, nullptr);
    for (int halving = 0;
         halving < 60 && !(std::isfinite(next) && next >= loglik - 1e-12 * std::abs(loglik));
         ++halving) {
      scale /= 2.0;
      candidate = theta + scale * step;
      next = evaluate(candidate, nullptr, nullptr, nullptr);
    }
    if (!std::isfinite(next)) return;
    const double change = std::abs(next - loglik) / (std::abs(2.0 * next) + 0.1) * 2.0;
    theta = candidate;
    loglik = evaluate(theta, &gradient, &hessian, nullptr);
    if (change < options.tolerance) {
      fit.converged = true;
      break;
    }
  }
  if (!fit.converged) return;
  const Eigen::VectorXd further = step_of(hessian, gradient);
  if (!further.allFinite() || further.cwiseAbs().maxCoeff() > 1e-3) {
    fit.converged = false;
    fit.diverging = true;
    return;
  }
  // Polish: one more Newton step (quadratic convergence makes it exact to rounding).
  theta += further;
  Eigen::MatrixXd scores;
  loglik = evaluate(theta, &gradient, &hessian, weighted ? &scores : nullptr);
  fit.theta = theta;
  fit.deviance = -2.0 * loglik;
  const Eigen::MatrixXd information = -hessian;
  const Eigen::MatrixXd inverse = information.ldlt().solve(Eigen::MatrixXd::Identity(k, k));
  if (weighted && options.design) {
    // Replicate designs: the covariance comes from the refits (replicated_covariance).
    fit.covariance =
        options.design->replicated()
            ? inverse
            : Eigen::MatrixXd(inverse * options.design->linearised_variance(scores, options.rows) *
                              inverse);
  } else if (weighted) {
    // Sandwich with the with-replacement design's meat over n = design_rows rows, the rows not in
    // x contributing a zero score: Σ (u_i − ū)(u_i − ū)' = Σ_x (u_i − ū)(u_i − ū)' + (n − m) ū ū'.
    const auto n = static_cast<double>(
        std::max<std::size_t>(options.design_rows, static_cast<std::size_t>(rows)));
    const Eigen::RowVectorXd mean = scores.colwise().sum() / n;
    const Eigen::MatrixXd centred = scores.rowwise() - mean;
    Eigen::MatrixXd meat =
        centred.transpose() * centred + (n - static_cast<double>(rows)) * mean.transpose() * mean;
    meat *= n / (n - 1.0);
    fit.covariance = inverse * meat * inverse;
  } else {
    fit.covariance = inverse;
  }
  fit.covariance = (fit.covariance + fit.covariance.transpose()) / 2.0;
  fit.se = fit.covariance.diagonal().array().sqrt();
}

bool check_rank(const Eigen::MatrixXd& x, CategoricalModelFit& fit) {
  if (x.cols() == 0) return true;
  return full_rank_or_report(factor_gram(gram(x)), fit);
}

double logistic(double t) {
  if (t == std::numeric_limits<double>::infinity()) return 1.0;
  if (t == -std::numeric_limits<double>::infinity()) return 0.0;
  return 1.0 / (1.0 + std::exp(-t));
}

CategoricalModelFit fit_multinomial_once(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                         std::size_t levels,
                                         const CategoricalModelOptions& options) {
  CategoricalModelFit fit;
  if (!check_rank(x, fit)) return fit;
  const Eigen::Index n = x.rows(), p = x.cols();
  const auto equations = static_cast<Eigen::Index>(levels) - 1;
  const Eigen::VectorXd weight = row_weights(options, n);
  const bool weighted = weight.size() > 0;
  auto evaluate = [&](const Eigen::VectorXd& theta, Eigen::VectorXd* gradient,
                      Eigen::MatrixXd* hessian, Eigen::MatrixXd* scores) {
    const Eigen::Map<const Eigen::MatrixXd> beta(theta.data(), p, equations);
    const Eigen::MatrixXd eta = x * beta;  // n × (K − 1)
    Eigen::MatrixXd prob(n, equations);
    double loglik = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      // log Σ_k exp(η_k) with η_reference = 0, shifted by the largest for stability.
      const double top = std::max(0.0, eta.row(i).maxCoeff());
      double denominator = std::exp(-top);
      for (Eigen::Index k = 0; k < equations; ++k) denominator += std::exp(eta(i, k) - top);
      const double log_denominator = top + std::log(denominator);
      for (Eigen::Index k = 0; k < equations; ++k)
        prob(i, k) = std::exp(eta(i, k) - log_denominator);
      const auto yi = static_cast<Eigen::Index>(y[i]);
      const double row = (yi == 0 ? 0.0 : eta(i, yi - 1)) - log_denominator;
      loglik += weighted ? weight[i] * row : row;
    }
    if (gradient) {
      Eigen::MatrixXd residual = -prob;
      for (Eigen::Index i = 0; i < n; ++i) {
        const auto yi = static_cast<Eigen::Index>(y[i]);
        if (yi > 0) residual(i, yi - 1) += 1.0;
      }
      if (weighted) residual = weight.asDiagonal() * residual;
      const Eigen::MatrixXd g = x.transpose() * residual;  // p × (K − 1)
      *gradient = Eigen::Map<const Eigen::VectorXd>(g.data(), p * equations);
      if (scores) {  // row i, equation a, column j at a·p + j (the order of theta)
        scores->resize(n, p * equations);
        for (Eigen::Index a = 0; a < equations; ++a)
          scores->middleCols(a * p, p) = residual.col(a).asDiagonal() * x;
      }
      hessian->resize(p * equations, p * equations);
      for (Eigen::Index a = 0; a < equations; ++a)
        for (Eigen::Index b = a; b < equations; ++b) {
          Eigen::VectorXd w(n);
          for (Eigen::Index i = 0; i < n; ++i)
            w[i] = prob(i, a) * ((a == b ? 1.0 : 0.0) - prob(i, b)) * (weighted ? weight[i] : 1.0);
          const Eigen::MatrixXd block = -(x.transpose() * w.asDiagonal() * x);
          hessian->block(a * p, b * p, p, p) = block;
          hessian->block(b * p, a * p, p, p) = block.transpose();
        }
    }
    return loglik;
  };
  newton(Eigen::VectorXd::Zero(p * equations), evaluate, options, weighted, n, fit);
  return fit;
}

CategoricalModelFit fit_proportional_odds_once(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                               std::size_t levels,
                                               const CategoricalModelOptions& options) {
  CategoricalModelFit fit;
  if (!check_rank(x, fit)) return fit;
  const Eigen::Index n = x.rows(), p = x.cols();
  const auto cuts = static_cast<Eigen::Index>(levels) - 1;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Eigen::VectorXd weight = row_weights(options, n);
  const bool weighted = weight.size() > 0;
  auto evaluate = [&](const Eigen::VectorXd& theta, Eigen::VectorXd* gradient,
                      Eigen::MatrixXd* hessian, Eigen::MatrixXd* scores) {
    const Eigen::VectorXd beta = theta.head(p);
    const Eigen::VectorXd zeta = theta.tail(cuts);
    for (Eigen::Index k = 1; k < cuts; ++k)
      if (!(zeta[k] > zeta[k - 1])) return -kInf;
    const Eigen::VectorXd eta = p > 0 ? Eigen::VectorXd(x * beta) : Eigen::VectorXd::Zero(n);
    if (gradient) {
      gradient->setZero(p + cuts);
      hessian->setZero(p + cuts, p + cuts);
    }
    if (scores) scores->setZero(n, p + cuts);
    double loglik = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto yi = static_cast<Eigen::Index>(y[i]);
      // P(Y = y) = F(a) − F(b), a = ζ_y − η, b = ζ_{y−1} − η (ζ_0 = −∞, ζ_K = +∞).
      const double a = yi < cuts ? zeta[yi] - eta[i] : kInf;
      const double b = yi > 0 ? zeta[yi - 1] - eta[i] : -kInf;
      const double fa = logistic(a), fb = logistic(b);
      // F(a) − F(b) without cancellation: F(a)(1 − F(b))(1 − e^{b − a}).
      const double prob = yi < cuts && yi > 0 ? fa * (1.0 - fb) * -std::expm1(b - a) : fa - fb;
      if (!(prob > 0)) return -kInf;
      const double wi = weighted ? weight[i] : 1.0;
      loglik += weighted ? wi * std::log(prob) : std::log(prob);
      if (!gradient) continue;
      const double da = fa * (1.0 - fa), db = fb * (1.0 - fb);  // densities
      double la = da / prob, lb = -db / prob;                   // ∂ℓ/∂a, ∂ℓ/∂b
      double laa = da * (1.0 - 2.0 * fa) / prob - la * la;
      double lbb = -db * (1.0 - 2.0 * fb) / prob - lb * lb;
      double lab = -la * lb;
      if (weighted) {
        la *= wi;
        lb *= wi;
        laa *= wi;
        lbb *= wi;
        lab *= wi;
      }
      // ∂a/∂β = ∂b/∂β = −x; ∂a/∂ζ_y = 1; ∂b/∂ζ_{y−1} = 1.
      Eigen::VectorXd ga = Eigen::VectorXd::Zero(p + cuts), gb = ga;
      if (yi < cuts) {
        ga.head(p) = -x.row(i).transpose();
        ga[p + yi] = 1.0;
      }
      if (yi > 0) {
        gb.head(p) = -x.row(i).transpose();
        gb[p + yi - 1] = 1.0;
      }
      *gradient += la * ga + lb * gb;
      if (scores) scores->row(i) = (la * ga + lb * gb).transpose();
      hessian->noalias() += laa * ga * ga.transpose() + lbb * gb * gb.transpose() +
                            lab * (ga * gb.transpose() + gb * ga.transpose());
    }
    return loglik;
  };
  // Start: β = 0, ζ the logits of the cumulative shares of the levels.
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(p + cuts);
  std::vector<double> counts(levels, 0.0);
  for (Eigen::Index i = 0; i < n; ++i)
    counts[static_cast<std::size_t>(y[i])] += weighted ? weight[i] : 1.0;
  const double total = weighted ? weight.sum() : static_cast<double>(n);
  double cumulative = 0.0;
  for (Eigen::Index k = 0; k < cuts; ++k) {
    cumulative += counts[static_cast<std::size_t>(k)];
    const double share = std::clamp(cumulative / total, 1e-6, 1.0 - 1e-6);
    theta[p + k] = std::log(share / (1.0 - share)) + 1e-6 * static_cast<double>(k);
  }
  newton(theta, evaluate, options, weighted, n, fit);
  return fit;
}

// A replicate design's covariance: the fit redone with each replicate's weights at the design
// rows, the coefficients' svrVar.
template <typename Fit>
void replicated_covariance(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, std::size_t levels,
                           const CategoricalModelOptions& options, CategoricalModelFit& fit,
                           Fit refit) {
  if (!options.design || !options.design->replicated() || !fit.converged) return;
  const SurveyDesign& design = *options.design;
  Eigen::MatrixXd replicates(static_cast<Eigen::Index>(design.replicate_count()), fit.theta.size());
  for (std::size_t r = 0; r < design.replicate_count(); ++r) {
    CategoricalModelOptions again;
    again.max_iterations = options.max_iterations;
    again.tolerance = options.tolerance;
    again.weights.resize(x.rows());
    const auto weights = design.replicate_weights(r);
    for (std::size_t k = 0; k < options.rows.size(); ++k)
      again.weights[static_cast<Eigen::Index>(k)] = weights[options.rows[k]];
    const CategoricalModelFit other =
        again.weights.sum() > 0 ? refit(x, y, levels, again) : CategoricalModelFit{};
    replicates.row(static_cast<Eigen::Index>(r)) =
        (other.converged && other.theta.size() == fit.theta.size())
            ? Eigen::RowVectorXd(other.theta.transpose())
            : Eigen::RowVectorXd::Constant(fit.theta.size(),
                                           std::numeric_limits<double>::quiet_NaN());
  }
  fit.covariance = design.replicate_variance(replicates, fit.theta);
  fit.se = fit.covariance.diagonal().array().sqrt();
}

}  // namespace

CategoricalModelFit fit_multinomial_logit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                          std::size_t levels,
                                          const CategoricalModelOptions& options) {
  CategoricalModelFit fit = fit_multinomial_once(x, y, levels, options);
  replicated_covariance(x, y, levels, options, fit, fit_multinomial_once);
  return fit;
}

CategoricalModelFit fit_proportional_odds(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                          std::size_t levels,
                                          const CategoricalModelOptions& options) {
  CategoricalModelFit fit = fit_proportional_odds_once(x, y, levels, options);
  replicated_covariance(x, y, levels, options, fit, fit_proportional_odds_once);
  return fit;
}

}  // namespace synthaudit::stats
