#include "stats/ols.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/threads.hpp"

namespace synthaudit::stats {

namespace {

// Rows per chunk: fixed, so that the summation order (and the result) does not depend on the
// number of threads.
constexpr Eigen::Index kChunkRows = 16384;

Eigen::Index chunk_count(Eigen::Index n) { return (n + kChunkRows - 1) / kChunkRows; }

}  // namespace

// Hand-written chunking around Eigen's SYRK: Eigen alone would parallelise only inside one
// product and its reduction over rows is not split across threads for a tall-skinny X'X.
Eigen::MatrixXd gram(const Eigen::MatrixXd& x, const Eigen::VectorXd* w) {
  const Eigen::Index n = x.rows(), p = x.cols();
  const Eigen::Index chunks = chunk_count(n);
  std::vector<Eigen::MatrixXd> partial(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1) num_threads(parallel_threads())
  for (Eigen::Index c = 0; c < chunks; ++c) {
    const Eigen::Index start = c * kChunkRows, len = std::min(kChunkRows, n - start);
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(p, p);
    if (w == nullptr) {
      g.selfadjointView<Eigen::Lower>().rankUpdate(x.middleRows(start, len).transpose());
    } else {
      const Eigen::MatrixXd xw =
          x.middleRows(start, len).array().colwise() * w->segment(start, len).array().sqrt();
      g.selfadjointView<Eigen::Lower>().rankUpdate(xw.transpose());
    }
    partial[static_cast<std::size_t>(c)] = std::move(g);
  }
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(p, p);
  for (const auto& part : partial) g += part;
  return g.selfadjointView<Eigen::Lower>();
}

Eigen::VectorXd cross(const Eigen::MatrixXd& x, const Eigen::VectorXd& v) {
  const Eigen::Index n = x.rows(), p = x.cols();
  const Eigen::Index chunks = chunk_count(n);
  std::vector<Eigen::VectorXd> partial(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1) num_threads(parallel_threads())
  for (Eigen::Index c = 0; c < chunks; ++c) {
    const Eigen::Index start = c * kChunkRows, len = std::min(kChunkRows, n - start);
    partial[static_cast<std::size_t>(c)] =
        x.middleRows(start, len).transpose() * v.segment(start, len);
  }
  Eigen::VectorXd out = Eigen::VectorXd::Zero(p);
  for (const auto& part : partial) out += part;
  return out;
}

Eigen::VectorXd multiply(const Eigen::MatrixXd& x, const Eigen::VectorXd& b) {
  const Eigen::Index n = x.rows();
  Eigen::VectorXd out(n);
  const Eigen::Index chunks = chunk_count(n);
#pragma omp parallel for schedule(static) if (chunks > 1) num_threads(parallel_threads())
  for (Eigen::Index c = 0; c < chunks; ++c) {
    const Eigen::Index start = c * kChunkRows, len = std::min(kChunkRows, n - start);
    out.segment(start, len).noalias() = x.middleRows(start, len) * b;
  }
  return out;
}

GramFactor factor_gram(const Eigen::MatrixXd& g, double tolerance) {
  const Eigen::Index p = g.rows();
  GramFactor f;
  f.scale.resize(p);
  for (Eigen::Index j = 0; j < p; ++j) f.scale[j] = g(j, j) > 0 ? 1.0 / std::sqrt(g(j, j)) : 0.0;
  const Eigen::MatrixXd gs = f.scale.asDiagonal() * g * f.scale.asDiagonal();
  // In-order Cholesky over the columns kept so far (the rank check).
  std::vector<Eigen::Index> kept;
  Eigen::MatrixXd l = Eigen::MatrixXd::Zero(p, p);  // rows/cols indexed by position in `kept`
  for (Eigen::Index j = 0; j < p; ++j) {
    const auto k = static_cast<Eigen::Index>(kept.size());
    // Solve L c = gs[kept, j] (forward substitution).
    Eigen::VectorXd c(k);
    for (Eigen::Index a = 0; a < k; ++a) {
      double s = gs(kept[static_cast<std::size_t>(a)], j);
      for (Eigen::Index b = 0; b < a; ++b) s -= l(a, b) * c[b];
      c[a] = s / l(a, a);
    }
    const double d = (f.scale[j] == 0.0 ? 0.0 : gs(j, j)) - c.squaredNorm();
    if (d < tolerance) {
      // Coefficients of column j on the kept columns: solve L' coef = c.
      Eigen::VectorXd coef(k);
      for (Eigen::Index a = k - 1; a >= 0; --a) {
        double s = c[a];
        for (Eigen::Index b = a + 1; b < k; ++b) s -= l(b, a) * coef[b];
        coef[a] = s / l(a, a);
      }
      const double largest = k ? coef.cwiseAbs().maxCoeff() : 0.0;
      std::vector<std::size_t> of;
      for (Eigen::Index a = 0; a < k; ++a)
        if (largest > 0 && std::abs(coef[a]) > 1e-6 * largest)
          of.push_back(static_cast<std::size_t>(kept[static_cast<std::size_t>(a)]));
      f.aliased.push_back(static_cast<std::size_t>(j));
      f.alias_of.push_back(std::move(of));
      continue;
    }
    for (Eigen::Index b = 0; b < k; ++b) l(k, b) = c[b];
    l(k, k) = std::sqrt(d);
    kept.push_back(j);
  }
  if (f.full_rank()) f.llt.compute(gs);
  return f;
}

Eigen::VectorXd GramFactor::solve(const Eigen::VectorXd& b) const {
  return scale.asDiagonal() * llt.solve(scale.asDiagonal() * b);
}

Eigen::MatrixXd GramFactor::inverse() const {
  const auto p = scale.size();
  const Eigen::MatrixXd inv = llt.solve(Eigen::MatrixXd::Identity(p, p));
  return scale.asDiagonal() * inv * scale.asDiagonal();
}

OlsFit fit_ols(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  OlsFit fit;
  const GramFactor f = factor_gram(gram(x));
  if (!full_rank_or_report(f, fit)) return fit;
  fit.beta = f.solve(cross(x, y));
  Eigen::VectorXd residual = y - multiply(x, fit.beta);
  fit.beta += f.solve(cross(x, residual));  // one step of iterative refinement
  residual = y - multiply(x, fit.beta);
  fit.rss = residual.squaredNorm();
  const auto n = static_cast<double>(x.rows()), p = static_cast<double>(x.cols());
  fit.df_residual = n - p;
  fit.sigma2 = n > p ? fit.rss / (n - p) : std::numeric_limits<double>::quiet_NaN();
  fit.covariance = fit.sigma2 * f.inverse();
  fit.se = fit.covariance.diagonal().cwiseSqrt();
  return fit;
}

}  // namespace synthaudit::stats
