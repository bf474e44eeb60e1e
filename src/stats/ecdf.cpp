#include "stats/ecdf.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/summary.hpp"

namespace synthaudit::stats {

std::vector<double> sorted_non_missing(std::span<const double> x) { return sorted_values(x); }

double ks_distance_sorted(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  double d = 0.0;
  while (i < a.size() && j < b.size()) {
    const double t = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == t) ++i;
    while (j < b.size() && b[j] == t) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  return d;
}

double ks_pvalue_asymptotic(double d, std::size_t n, std::size_t m) {
  if (std::isnan(d) || n == 0 || m == 0) return std::numeric_limits<double>::quiet_NaN();
  const double en =
      std::sqrt(static_cast<double>(n) * static_cast<double>(m) / static_cast<double>(n + m));
  const double lambda = en * d;
  if (lambda < 1e-3) return 1.0;
  // Kolmogorov survival function Q(λ) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²).
  double sum = 0.0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-16) break;
  }
  return std::clamp(2.0 * sum, 0.0, 1.0);
}

}  // namespace synthaudit::stats
