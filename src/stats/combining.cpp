#include "stats/combining.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
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
                      double level) {
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
    if (tf > 0) {
      variance = tf;
      df = (m - 1) * std::pow(1 - mo.within / ((1 + 1 / m) * mo.between), 2);
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
