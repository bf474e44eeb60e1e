#include "stats/survey.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "stats/distribution.hpp"
#include "stats/logistic.hpp"
#include "stats/ols.hpp"

namespace synthaudit::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_lengths(std::span<const double> x, std::span<const double> w) {
  if (x.size() != w.size())
    throw std::invalid_argument("survey: values and weights differ in length");
}

// survey's na.rm = TRUE keeps the rows with a missing value in the design as rows of weight 0:
// they count in n and in the centring of the influence values but carry no estimate.
struct DesignRows {
  std::vector<double> x, w;
};
DesignRows design_rows(std::span<const double> x, std::span<const double> w) {
  check_lengths(x, w);
  DesignRows rows{std::vector<double>(x.begin(), x.end()), std::vector<double>(w.begin(), w.end())};
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i])) rows.x[i] = rows.w[i] = 0.0;
  return rows;
}

std::size_t present_count(std::span<const double> x) {
  return static_cast<std::size_t>(
      std::count_if(x.begin(), x.end(), [](double v) { return !std::isnan(v); }));
}

// The mean of x (NaN-free, rows of missing x carrying weight 0) with its design SE.
SurveyEstimate design_mean(const std::vector<double>& x, const std::vector<double>& w,
                           const SurveyDesign& design, std::span<const double> original) {
  SurveyEstimate result;
  result.n = x.size();
  double weight_sum = 0.0, weighted = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    weight_sum += w[i];
    weighted += w[i] * x[i];
  }
  if (!(weight_sum > 0)) return {kNaN, kNaN, result.n};
  result.estimate = weighted / weight_sum;
  if (x.size() < 2) {
    result.se = kNaN;
  } else if (design.replicated()) {
    std::vector<double> estimates(design.replicate_count());
    for (std::size_t r = 0; r < estimates.size(); ++r) {
      const auto wr = design.replicate_weights(r);
      double sum = 0.0, weighted_r = 0.0;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isnan(original[i])) {
          sum += wr[i];
          weighted_r += wr[i] * x[i];
        }
      estimates[r] = sum > 0 ? weighted_r / sum : kNaN;
    }
    result.se = std::sqrt(design.replicate_variance(estimates, result.estimate));
  } else {
    std::vector<double> z(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) z[i] = w[i] * (x[i] - result.estimate) / weight_sum;
    result.se = std::sqrt(design.linearised_variance(z));
  }
  return result;
}

// Rows of positive weight in ascending value order (ties in file order), with the plotting
// positions of qrule_hf7.
struct QuantileFunction {
  std::vector<double> value, position;
  double operator()(double p) const {
    if (value.empty()) return kNaN;
    if (value.size() == 1 || p <= position.front()) return value.front();
    if (p >= position.back()) return value.back();
    const auto hi = static_cast<std::size_t>(std::upper_bound(position.begin(), position.end(), p) -
                                             position.begin());
    const std::size_t lo = hi - 1;
    if (p == position[lo]) return value[lo];
    return value[lo] +
           (value[hi] - value[lo]) * ((p - position[lo]) / (position[hi] - position[lo]));
  }
};
QuantileFunction quantile_function(const std::vector<double>& x, const std::vector<double>& w) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (w[i] > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  QuantileFunction q;
  const std::size_t n = order.size();
  if (n == 0) return q;
  q.value.resize(n);
  q.position.resize(n);
  std::vector<double> cumulative(n);
  double running = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    q.value[k] = x[order[k]];
    running += w[order[k]];
    cumulative[k] = running;
  }
  if (n == 1) return q;
  const double scale = cumulative[n - 2];
  q.position[0] = 0.0;
  for (std::size_t k = 1; k < n; ++k) q.position[k] = cumulative[k - 1] / scale;
  return q;
}

Eigen::VectorXd mean_one_weights(const Eigen::VectorXd& w) { return w / w.mean(); }

}  // namespace

SurveyMoments survey_moments(std::span<const double> x, std::span<const double> w) {
  return survey_moments(x, x, w);
}

SurveyMoments survey_moments(std::span<const double> x, std::span<const double> y,
                             std::span<const double> w) {
  check_lengths(x, w);
  check_lengths(y, w);
  SurveyMoments m;
  double weight_sum = 0, sum_x = 0, sum_y = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i]) || !(w[i] > 0)) continue;
    ++m.n;
    weight_sum += w[i];
    sum_x += w[i] * x[i];
    sum_y += w[i] * y[i];
  }
  if (m.n == 0) {
    m.mean_x = m.mean_y = m.variance_x = m.variance_y = m.covariance = m.correlation = kNaN;
    m.central2 = m.central3 = m.central4 = kNaN;
    return m;
  }
  m.mean_x = sum_x / weight_sum;
  m.mean_y = sum_y / weight_sum;
  double sxx = 0, syy = 0, sxy = 0, s3 = 0, s4 = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i]) || !(w[i] > 0)) continue;
    const double dx = x[i] - m.mean_x, dy = y[i] - m.mean_y;
    sxx += w[i] * dx * dx;
    syy += w[i] * dy * dy;
    sxy += w[i] * dx * dy;
    s3 += w[i] * dx * dx * dx;
    s4 += w[i] * dx * dx * dx * dx;
  }
  m.central2 = sxx / weight_sum;
  m.central3 = s3 / weight_sum;
  m.central4 = s4 / weight_sum;
  if (m.n < 2) {
    m.variance_x = m.variance_y = m.covariance = m.correlation = kNaN;
    return m;
  }
  const double factor = static_cast<double>(m.n) / static_cast<double>(m.n - 1) / weight_sum;
  m.variance_x = factor * sxx;
  m.variance_y = factor * syy;
  m.covariance = factor * sxy;
  m.correlation = sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : kNaN;
  return m;
}

std::vector<std::uint32_t> weighted_rank_order(std::span<const double> x,
                                               std::span<const double> w) {
  check_lengths(x, w);
  if (x.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("weighted_rank_order: more than 2^32 rows");
  std::vector<std::uint32_t> order;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isnan(x[i]) && w[i] > 0) order.push_back(static_cast<std::uint32_t>(i));
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return x[a] < x[b]; });
  return order;
}

std::vector<double> weighted_mid_ranks(std::span<const double> x, std::span<const double> w,
                                       const std::vector<std::uint32_t>& order,
                                       std::span<const double> mask) {
  check_lengths(x, w);
  if (!mask.empty()) check_lengths(mask, w);
  std::vector<double> ranks(x.size(), kNaN);
  auto used = [&](std::size_t k) { return mask.empty() || !std::isnan(mask[order[k]]); };
  double below = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    double tied = 0;
    for (; j < order.size() && x[order[j]] == x[order[i]]; ++j)
      if (used(j)) tied += w[order[j]];
    for (std::size_t k = i; k < j; ++k)
      if (used(k)) ranks[order[k]] = below + tied / 2;
    below += tied;
    i = j;
  }
  return ranks;
}

std::vector<double> weighted_mid_ranks(std::span<const double> x, std::span<const double> w,
                                       std::span<const double> mask) {
  return weighted_mid_ranks(x, w, weighted_rank_order(x, w), mask);
}

double survey_spearman(std::span<const double> x, std::span<const double> y,
                       std::span<const double> w, const std::vector<std::uint32_t>& order_x,
                       const std::vector<std::uint32_t>& order_y) {
  const auto rx = weighted_mid_ranks(x, w, order_x, y);
  const auto ry = weighted_mid_ranks(y, w, order_y, x);
  return std::clamp(survey_moments(rx, ry, w).correlation, -1.0, 1.0);
}

double survey_spearman(std::span<const double> x, std::span<const double> y,
                       std::span<const double> w) {
  return survey_spearman(x, y, w, weighted_rank_order(x, w), weighted_rank_order(y, w));
}

namespace {

// The variance a simple random sample without replacement would give the mean of x (svymean's
// deff denominator), and Σw: see SurveyEstimate::deff.
struct SimpleRandomVariance {
  double of_mean = kNaN, population = 0.0;
};
SimpleRandomVariance simple_random_variance(std::span<const double> x, const SurveyDesign& design) {
  const auto w = design.weights();
  const SurveyMoments m = survey_moments(x, w);
  double population = 0.0, rows = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) continue;
    population += w[i];
    // svrepdesign's na.rm drops rows; svydesign's gives them weight 0 and counts weights != 0.
    rows += (design.replicated() || w[i] > 0) ? 1.0 : 0.0;
  }
  SimpleRandomVariance out;
  out.population = population;
  if (population > rows && rows > 0)
    out.of_mean = m.variance_x * (population - rows) / (population * rows);
  return out;
}

}  // namespace

SurveyEstimate survey_mean(std::span<const double> x, const SurveyDesign& design) {
  const DesignRows rows = design_rows(x, design.weights());
  SurveyEstimate result = design_mean(rows.x, rows.w, design, x);
  result.n = present_count(x);
  result.deff = result.se * result.se / simple_random_variance(x, design).of_mean;
  return result;
}

SurveyEstimate survey_mean(std::span<const double> x, std::span<const double> w) {
  check_lengths(x, w);
  return survey_mean(x, SurveyDesign::simple(w));
}

SurveyEstimate survey_total(std::span<const double> x, const SurveyDesign& design) {
  const DesignRows rows = design_rows(x, design.weights());
  SurveyEstimate result;
  result.n = present_count(x);
  std::vector<double> z(rows.x.size());
  for (std::size_t i = 0; i < z.size(); ++i) {
    z[i] = rows.w[i] * rows.x[i];
    result.estimate += z[i];
  }
  if (z.size() < 2) {
    result.se = kNaN;
  } else if (design.replicated()) {
    std::vector<double> estimates(design.replicate_count(), 0.0);
    for (std::size_t r = 0; r < estimates.size(); ++r) {
      const auto wr = design.replicate_weights(r);
      for (std::size_t i = 0; i < z.size(); ++i) estimates[r] += wr[i] * rows.x[i];
    }
    result.se = std::sqrt(design.replicate_variance(estimates, result.estimate));
  } else {
    result.se = std::sqrt(design.linearised_variance(z));
  }
  const auto simple = simple_random_variance(x, design);
  result.deff = result.se * result.se / (simple.of_mean * simple.population * simple.population);
  return result;
}

SurveyEstimate survey_total(std::span<const double> x, std::span<const double> w) {
  check_lengths(x, w);
  return survey_total(x, SurveyDesign::simple(w));
}

double weighted_quantile_hf7(std::span<const double> x, std::span<const double> w, double p) {
  const DesignRows rows = design_rows(x, w);
  return quantile_function(rows.x, rows.w)(p);
}

SurveyQuantile survey_quantile(std::span<const double> x, const SurveyDesign& design, double p,
                               double alpha) {
  const DesignRows rows = design_rows(x, design.weights());
  const QuantileFunction quantile = quantile_function(rows.x, rows.w);
  SurveyQuantile result;
  result.n = present_count(x);
  result.estimate = quantile(p);
  result.se = result.lower = result.upper = kNaN;
  if (quantile.value.size() < 2) return result;
  std::vector<double> below(rows.x.size());
  for (std::size_t i = 0; i < below.size(); ++i)
    below[i] = std::isnan(x[i]) ? kNaN : (rows.x[i] <= result.estimate ? 1.0 : 0.0);
  const SurveyEstimate share = survey_mean(below, design);
  const double df = design.degrees_of_freedom([&](std::size_t row) { return !std::isnan(x[row]); });
  const double critical = student_t_quantile(1.0 - alpha / 2.0, df);
  // As R's confint: estimate + se·qt(α/2) and estimate + se·qt(1 − α/2).
  const double p_lower = share.estimate + share.se * student_t_quantile(alpha / 2.0, df);
  const double p_upper = share.estimate + share.se * critical;
  result.lower = (std::isnan(p_lower) || p_lower < 0) ? kNaN : quantile(p_lower);
  result.upper = (std::isnan(p_upper) || p_upper > 1) ? kNaN : quantile(p_upper);
  result.se = (result.upper - result.lower) / (2.0 * critical);
  return result;
}

SurveyQuantile survey_quantile(std::span<const double> x, std::span<const double> w, double p,
                               double alpha) {
  check_lengths(x, w);
  return survey_quantile(x, SurveyDesign::simple(w), p, alpha);
}

namespace {

// A point fit of one of svyglm's families at the given row weights (rescaled to mean 1 inside),
// with the score contributions and bread of its sandwich.
struct PointFit {
  SurveyRegressionFit fit;
  Eigen::VectorXd score;  // per row of x: the factor multiplying x_i in u_i
  Eigen::MatrixXd bread;
};

PointFit point_fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const Eigen::VectorXd& w,
                   GlmFamily family, GlmLink link) {
  PointFit out;
  SurveyRegressionFit& fit = out.fit;
  const Eigen::VectorXd weight = mean_one_weights(w);
  if (family == GlmFamily::kGaussian && link == GlmLink::kIdentity) {
    if (!full_rank_or_report(factor_gram(gram(x)), fit)) return out;
    const GramFactor factor = factor_gram(gram(x, &weight));
    if (!full_rank_or_report(factor, fit)) return out;
    const Eigen::VectorXd wy = weight.cwiseProduct(y);
    Eigen::VectorXd beta = factor.solve(cross(x, wy));
    // One step of iterative refinement, as fit_ols, for QR accuracy.
    const Eigen::VectorXd residual0 = y - multiply(x, beta);
    beta += factor.solve(cross(x, Eigen::VectorXd(weight.cwiseProduct(residual0))));
    const Eigen::VectorXd residual = y - multiply(x, beta);
    fit.beta = beta;
    fit.converged = true;
    fit.iterations = 1;
    out.score = weight.cwiseProduct(residual);
    out.bread = factor.inverse();
    return out;
  }
  if (family == GlmFamily::kBinomial && link == GlmLink::kLogit) {
    if (!full_rank_or_report(factor_gram(gram(x)), fit)) return out;
    LogisticOptions options;
    options.tolerance = 1e-12;
    options.check_divergence = true;
    options.weights.assign(weight.data(), weight.data() + weight.size());
    const LogisticFit lf = fit_logistic(x, y, options);
    fit.iterations = lf.iterations;
    if (!adopt_logistic_ending(lf, x.cols(), fit)) return out;
    fit.beta = lf.coefficients;
    out.score = weight.cwiseProduct(y - lf.fitted);
    out.bread = lf.covariance;
    return out;
  }
  const GlmFit gf = fit_glm(x, y, family, link, &weight);
  fit.iterations = gf.iterations;
  fit.aliased = gf.aliased;
  fit.alias_of = gf.alias_of;
  fit.separation = gf.diverging;
  fit.converged = gf.converged;
  if (!fit.converged) return out;
  fit.beta = gf.beta;
  out.score.resize(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    out.score[i] = weight[i] * (y[i] - gf.fitted[i]) * glm_mu_eta(link, gf.eta[i]) /
                   glm_variance(family, gf.fitted[i]);
  out.bread = gf.covariance / gf.dispersion;
  return out;
}

}  // namespace

SurveyRegressionFit survey_glm(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                               const SurveyDesign& design, std::span<const std::size_t> rows,
                               GlmFamily family, GlmLink link) {
  if (x.rows() != y.size() || static_cast<std::size_t>(x.rows()) != rows.size())
    throw std::invalid_argument("survey_glm: design, response and rows differ in length");
  const auto weights_at = [&](std::span<const double> all) {
    Eigen::VectorXd w(x.rows());
    for (std::size_t k = 0; k < rows.size(); ++k) w[static_cast<Eigen::Index>(k)] = all[rows[k]];
    return w;
  };
  PointFit full = point_fit(x, y, weights_at(design.weights()), family, link);
  SurveyRegressionFit& fit = full.fit;
  if (!fit.converged || fit.beta.size() == 0) return fit;
  if (design.replicated()) {
    Eigen::MatrixXd replicates(static_cast<Eigen::Index>(design.replicate_count()),
                               fit.beta.size());
    for (std::size_t r = 0; r < design.replicate_count(); ++r) {
      const Eigen::VectorXd wr = weights_at(design.replicate_weights(r));
      const PointFit again = wr.sum() > 0 ? point_fit(x, y, wr, family, link) : PointFit{};
      replicates.row(static_cast<Eigen::Index>(r)) =
          (again.fit.converged && again.fit.beta.size() == fit.beta.size())
              ? Eigen::RowVectorXd(again.fit.beta.transpose())
              : Eigen::RowVectorXd::Constant(fit.beta.size(), kNaN);
    }
    fit.covariance = design.replicate_variance(replicates, fit.beta);
  } else {
    const Eigen::MatrixXd u = x.array().colwise() * full.score.array();
    fit.covariance = full.bread * design.linearised_variance(u, rows) * full.bread;
  }
  fit.se = fit.covariance.diagonal().array().sqrt();
  return fit;
}

namespace {

// The one-stage with-replacement design of the (x, w, design_rows) signatures: x's rows are the
// first rows of a design of max(design_rows, rows) rows; the others carry weight 0.
SurveyRegressionFit one_stage(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                              const Eigen::VectorXd& w, std::size_t design_rows, GlmFamily family,
                              GlmLink link, const char* name) {
  if (x.rows() != y.size() || x.rows() != w.size())
    throw std::invalid_argument(std::string(name) +
                                ": design, response and weights differ in length");
  const auto used = static_cast<std::size_t>(x.rows());
  std::vector<double> all(std::max(used, design_rows), 0.0);
  for (std::size_t k = 0; k < used; ++k) all[k] = w[static_cast<Eigen::Index>(k)];
  std::vector<std::size_t> rows(used);
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return survey_glm(x, y, SurveyDesign::simple(all), rows, family, link);
}

}  // namespace

SurveyRegressionFit survey_lm(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                              const Eigen::VectorXd& w, std::size_t design_rows) {
  return one_stage(x, y, w, design_rows, GlmFamily::kGaussian, GlmLink::kIdentity, "survey_lm");
}

SurveyRegressionFit survey_logit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                 const Eigen::VectorXd& w, std::size_t design_rows) {
  return one_stage(x, y, w, design_rows, GlmFamily::kBinomial, GlmLink::kLogit, "survey_logit");
}

SurveyRegressionFit survey_glm(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                               const Eigen::VectorXd& w, GlmFamily family, GlmLink link,
                               std::size_t design_rows) {
  return one_stage(x, y, w, design_rows, family, link, "survey_glm");
}

}  // namespace synthaudit::stats
