#include "stats/distribution.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "stats/summary.hpp"

namespace synthaudit::stats {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double wasserstein1_sorted(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return kNaN;
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  double total = 0.0;
  // At each pooled distinct value t (ascending), step both CDFs past t, then add
  // |F_a − F_b| · (next value − t).
  while (i < a.size() || j < b.size()) {
    double t;
    if (i == a.size())
      t = b[j];
    else if (j == b.size())
      t = a[i];
    else
      t = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == t) ++i;
    while (j < b.size() && b[j] == t) ++j;
    if (i == a.size() && j == b.size()) break;
    double next;
    if (i == a.size())
      next = b[j];
    else if (j == b.size())
      next = a[i];
    else
      next = std::min(a[i], b[j]);
    total += std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb) * (next - t);
  }
  return total;
}

double student_t_quantile(double p, double df) {
  if (!(df > 0) || !(p > 0 && p < 1)) return kNaN;
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

double student_t_two_sided_pvalue(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  if (std::isinf(t)) return 0.0;
  const boost::math::students_t_distribution<double> dist(df);
  return std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::abs(t))));
}

MeanInterval mean_interval(std::span<const double> x, double alpha, bool normal) {
  MeanInterval out;
  const Moments m = moments(x);
  out.n = m.n;
  out.mean = m.mean;
  out.sd = m.sd;
  if (m.n < 2) {
    out.se = out.lower = out.upper = out.critical = kNaN;
    return out;
  }
  const double n = static_cast<double>(m.n);
  out.se = m.sd / std::sqrt(n);
  out.critical =
      normal ? boost::math::quantile(boost::math::normal_distribution<double>(), 1.0 - alpha / 2.0)
             : student_t_quantile(1.0 - alpha / 2.0, n - 1.0);
  out.lower = out.mean - out.critical * out.se;
  out.upper = out.mean + out.critical * out.se;
  return out;
}

PairedTTest paired_t_test(std::span<const double> x, std::span<const double> y) {
  PairedTTest out;
  const std::size_t rows = std::min(x.size(), y.size());
  std::vector<double> d;
  d.reserve(rows);
  for (std::size_t i = 0; i < rows; ++i)
    if (!std::isnan(x[i]) && !std::isnan(y[i])) d.push_back(y[i] - x[i]);
  const Moments m = moments(d);
  out.n = m.n;
  out.mean_difference = m.mean;
  out.sd_difference = m.sd;
  if (m.n < 2) {
    out.t = out.df = out.p_value = kNaN;
    out.df = m.n == 1 ? 0.0 : kNaN;
    return out;
  }
  out.df = static_cast<double>(m.n) - 1.0;
  if (m.sd == 0.0) {
    if (m.mean == 0.0) {
      out.t = out.p_value = kNaN;
    } else {
      out.t = m.mean > 0 ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
      out.p_value = 0.0;
    }
    return out;
  }
  out.t = m.mean / (m.sd / std::sqrt(static_cast<double>(m.n)));
  out.p_value = student_t_two_sided_pvalue(out.t, out.df);
  return out;
}

double fisher_exact_greater(double a, double n, double c, double m) {
  const double total = n + m, violations = a + c;
  if (n == 0 || m == 0 || violations == 0) return 1.0;
  auto log_choose = [](double k_of, double k) {
    return std::lgamma(k_of + 1) - std::lgamma(k + 1) - std::lgamma(k_of - k + 1);
  };
  const double log_denominator = log_choose(total, n);
  const double top = std::min(violations, n);
  const double mode = std::floor((n + 1) * (violations + 1) / (total + 2));
  double p = 0.0;
  for (double x = a; x <= top; x += 1.0) {
    if (total - violations < n - x) continue;  // impossible: more non-violations drawn than exist
    const double term = std::exp(log_choose(violations, x) + log_choose(total - violations, n - x) -
                                 log_denominator);
    p += term;
    // Past the mode the terms fall geometrically: stop once they no longer change the sum.
    if (x > mode && term < p * 1e-17) break;
  }
  return std::min(1.0, p);
}

}  // namespace synthaudit::stats
