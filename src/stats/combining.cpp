#include "stats/combining.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "stats/quantile.hpp"

namespace synthaudit::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Moments {
  double mean = 0.0, between = kNaN, within = 0.0;
};

Moments moments(std::span<const double> q, std::span<const double> v) {
  Moments m;
  const double count = static_cast<double>(q.size());
  for (double x : q) m.mean += x;
  m.mean /= count;
  if (q.size() > 1) {
    double ss = 0.0;
    for (double x : q) ss += (x - m.mean) * (x - m.mean);
    m.between = ss / (count - 1);
  }
  for (double x : v) m.within += x;
  m.within /= count;
  return m;
}

}  // namespace

double t_quantile(double probability, double df) {
  if (std::isnan(df) || std::isnan(probability)) return kNaN;
  if (!std::isfinite(df) || df > 1e12)
    return boost::math::quantile(boost::math::normal_distribution<double>(), probability);
  try {
    return boost::math::quantile(boost::math::students_t_distribution<double>(df), probability);
  } catch (const std::overflow_error&) {
    // Tiny df (e.g. ν_f near 0): the quantile is beyond the double range.
    return probability > 0.5 ? std::numeric_limits<double>::infinity()
                             : -std::numeric_limits<double>::infinity();
  }
}

double Inference::standard_error() const { return std::sqrt(variance); }

Inference make_inference(double estimate, double variance, double df, double level) {
  Inference r;
  r.estimate = estimate;
  r.variance = variance;
  r.df = df;
  const double half = t_quantile(0.5 + level / 2.0, df) * std::sqrt(variance);
  r.interval = {estimate - half, estimate + half};
  return r;
}

Combined combine_partial(std::span<const double> q, std::span<const double> v, double level) {
  Combined c;
  c.m = q.size();
  if (q.empty()) return c;
  const Moments mo = moments(q, v);
  c.between = mo.between;
  c.within = mo.within;
  const double m = static_cast<double>(c.m);
  double variance, df;
  if (c.m == 1) {
    variance = mo.within;
    df = kInfiniteDf;
    c.note =
        "m = 1: the between-replicate variance b cannot be estimated; T_p = v̄ with a normal "
        "interval, which ignores the synthesis variance";
  } else if (mo.between == 0.0) {
    variance = mo.within;
    df = kInfiniteDf;
    c.note = "b = 0 (the replicates agree exactly): ν_p is infinite, normal interval";
  } else {
    variance = mo.between / m + mo.within;
    df = (m - 1) * std::pow(1 + mo.within / (mo.between / m), 2);
  }
  c.raw_variance = variance;
  static_cast<Inference&>(c) = make_inference(mo.mean, variance, df, level);
  return c;
}

Combined combine_full(std::span<const double> q, std::span<const double> v, double n_syn_over_n,
                      double level, double min_df) {
  Combined c;
  c.m = q.size();
  if (q.empty()) return c;
  const Moments mo = moments(q, v);
  c.between = mo.between;
  c.within = mo.within;
  const double m = static_cast<double>(c.m);
  double variance, df;
  if (c.m == 1) {
    c.raw_variance = kNaN;
    variance = n_syn_over_n * mo.within;
    df = kInfiniteDf;
    c.variance_adjusted = true;
    c.note =
        "m = 1: b cannot be estimated, so T_f cannot be; T_f* = (n_syn/n) v̄ with a normal "
        "interval";
  } else {
    const double tf = (1 + 1 / m) * mo.between - mo.within;
    c.raw_variance = tf;
    const double df_f =
        tf > 0 ? (m - 1) * std::pow(1 - mo.within / ((1 + 1 / m) * mo.between), 2) : kNaN;
    if (tf > 0 && df_f >= min_df) {
      variance = tf;
      df = df_f;
    } else if (tf > 0) {
      variance = tf + n_syn_over_n * mo.within;
      df = kInfiniteDf;
      c.variance_adjusted = true;
      char buffer[96];
      std::snprintf(buffer, sizeof buffer, "%.3g", df_f);
      c.note = std::string("ν_f = ") + buffer +
               " is too small for a usable t interval: T_f* = T_f + (n_syn/n) v̄ (δ = 1) with a "
               "normal interval";
    } else {
      variance = n_syn_over_n * mo.within;
      df = kInfiniteDf;
      c.variance_adjusted = true;
      c.note = "T_f ≤ 0: Reiter's non-negative T_f* = (n_syn/n) v̄ with a normal interval";
    }
  }
  static_cast<Inference&>(c) = make_inference(mo.mean, variance, df, level);
  return c;
}

namespace {
double overlap_raw(Interval c, Interval s) {
  const double li = std::max(c.lower, s.lower), ui = std::min(c.upper, s.upper);
  const double wc = c.upper - c.lower, ws = s.upper - s.lower;
  if (!(wc > 0) || !(ws > 0)) return kNaN;
  return (ui - li) / (2 * wc) + (ui - li) / (2 * ws);
}
}  // namespace

double ci_overlap(Interval confidential, Interval synthetic) {
  const double o = overlap_raw(confidential, synthetic);
  if (std::isnan(o)) return o;
  return std::max(confidential.lower, synthetic.lower) <=
                 std::min(confidential.upper, synthetic.upper)
             ? o
             : 0.0;
}

double ci_overlap_signed(Interval confidential, Interval synthetic) {
  return overlap_raw(confidential, synthetic);
}

bool significant(Interval interval) { return interval.lower > 0 || interval.upper < 0; }

bool sso_match(double confidential_estimate, Interval confidential, double synthetic_estimate,
               Interval synthetic) {
  const bool same_sign = (confidential_estimate > 0) == (synthetic_estimate > 0) &&
                         (confidential_estimate < 0) == (synthetic_estimate < 0);
  const bool same_significance = significant(confidential) == significant(synthetic);
  const bool overlap = std::max(confidential.lower, synthetic.lower) <=
                       std::min(confidential.upper, synthetic.upper);
  return same_sign && same_significance && overlap;
}

SynthpopCombined combine_synthpop(std::span<const double> q, double base_variance,
                                  const SynthpopSetting& setting, double level) {
  SynthpopCombined c;
  if (q.empty()) return c;
  const std::vector<double> no_variances(q.size(), 0.0);
  const Moments mo = moments(q, no_variances);
  c.between = mo.between;
  const double m = static_cast<double>(q.size());
  double variance = base_variance;
  if (setting.population_inference) {
    if (setting.incomplete && q.size() > 1) {
      variance = mo.between / m + base_variance;
    } else {
      if (setting.incomplete)
        c.note =
            "m = 1: the between-replicate variance cannot be estimated, so the complete-synthesis "
            "variance is used (as synthpop does)";
      const double n_over_k = setting.n / setting.k;
      variance = base_variance * (1 + (setting.proper ? n_over_k + 1 : n_over_k) / m);
    }
  }
  static_cast<Inference&>(c) = make_inference(mo.mean, variance, kInfiniteDf, level);
  return c;
}

Eigen::MatrixXd pseudo_inverse(const Eigen::MatrixXd& a) {
  if (a.size() == 0) return Eigen::MatrixXd(a.cols(), a.rows());
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(a, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Eigen::VectorXd& s = svd.singularValues();
  const double cutoff = std::max(std::sqrt(std::numeric_limits<double>::epsilon()) * s[0], 0.0);
  Eigen::VectorXd inverse_s = Eigen::VectorXd::Zero(s.size());
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s[i] > cutoff) inverse_s[i] = 1.0 / s[i];
  return svd.matrixV() * inverse_s.asDiagonal() * svd.matrixU().transpose();
}

LackOfFit synthpop_lack_of_fit(const Eigen::VectorXd& difference,
                               const Eigen::MatrixXd& confidential_covariance,
                               const Eigen::MatrixXd& replicate_estimates,
                               const SynthpopSetting& setting) {
  LackOfFit r;
  const auto p = difference.size();
  const auto m = replicate_estimates.rows();
  if (p == 0 || m == 0 || !difference.allFinite()) {
    r.note = "no finite coefficient difference";
    return r;
  }
  const double pd = static_cast<double>(p), md = static_cast<double>(m);
  if (setting.incomplete) {
    if (m <= p) {
      r.note =
          "the response was not synthesised, so the test estimates the coefficients' "
          "covariance from the replicates: it needs more replicates (m = " +
          std::to_string(m) + ") than coefficients (" + std::to_string(p) + ")";
      return r;
    }
    const Eigen::RowVectorXd mean = replicate_estimates.colwise().mean();
    const Eigen::MatrixXd centred = replicate_estimates.rowwise() - mean;
    const Eigen::MatrixXd v = centred.transpose() * centred / (md - 1) / md;
    if (!v.allFinite()) {
      r.note = "the replicates' coefficients are not finite";
      return r;
    }
    const double t2 = difference.dot(pseudo_inverse(v) * difference);
    r.statistic = t2 * (md - pd) / pd / (md - 1);
    r.df = pd;
    r.df2 = md - pd;
    if (std::isfinite(r.statistic))
      r.p_value = 1 - boost::math::cdf(boost::math::fisher_f_distribution<double>(r.df, r.df2),
                                       std::max(r.statistic, 0.0));
    return r;
  }
  const Eigen::MatrixXd v = confidential_covariance * (setting.n / setting.k / md);
  if (!v.allFinite()) {
    r.note = "the confidential covariance matrix is not finite";
    return r;
  }
  r.statistic = difference.dot(pseudo_inverse(v) * difference);
  r.df = pd;
  if (std::isfinite(r.statistic))
    r.p_value = 1 - boost::math::cdf(boost::math::chi_squared_distribution<double>(r.df),
                                     std::max(r.statistic, 0.0));
  return r;
}

Estimate estimate_mean(std::span<const double> x) {
  Estimate e;
  double sum = 0.0;
  for (double v : x)
    if (!std::isnan(v)) {
      sum += v;
      ++e.n;
    }
  if (e.n == 0) return {kNaN, kNaN, 0};
  e.q = sum / static_cast<double>(e.n);
  double ss = 0.0;
  for (double v : x)
    if (!std::isnan(v)) ss += (v - e.q) * (v - e.q);
  e.v = e.n > 1 ? ss / static_cast<double>(e.n - 1) / static_cast<double>(e.n) : kNaN;
  return e;
}

Estimate estimate_quantile(std::span<const double> x, double probability) {
  std::vector<double> s;
  s.reserve(x.size());
  for (double v : x)
    if (!std::isnan(v)) s.push_back(v);
  Estimate e;
  e.n = s.size();
  if (s.size() < 2) return {s.empty() ? kNaN : s[0], kNaN, s.size()};
  std::sort(s.begin(), s.end());
  e.q = quantile_type7(s, probability, QuantileArithmetic::kNumpy);
  const double n = static_cast<double>(s.size());
  const Estimate mean = estimate_mean(s);
  const double sd = std::sqrt(mean.v * n);
  const double iqr = quantile_type7(s, 0.75, QuantileArithmetic::kNumpy) -
                     quantile_type7(s, 0.25, QuantileArithmetic::kNumpy);
  double lo = std::min(sd, iqr / 1.34);
  if (!(lo > 0)) lo = sd > 0 ? sd : (s[0] != 0 ? std::abs(s[0]) : 1.0);  // as R's bw.nrd0
  const double h = 0.9 * lo * std::pow(n, -0.2);
  double density = 0.0;
  for (double v : s) {
    const double z = (e.q - v) / h;
    density += std::exp(-0.5 * z * z);
  }
  density /= n * h * std::sqrt(2 * std::numbers::pi);
  e.v = probability * (1 - probability) / (n * density * density);
  return e;
}

}  // namespace synthaudit::stats
