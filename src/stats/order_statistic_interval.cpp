#include "stats/order_statistic_interval.hpp"

#include <boost/math/distributions/binomial.hpp>

namespace synthaudit::stats {

std::size_t binomial_quantile(std::size_t n, double p, double q) {
  const boost::math::binomial_distribution<double> distribution(static_cast<double>(n), p);
  // Bisection on the cumulative distribution (boost's incomplete beta, accurate to a few ulp)
  // rather than boost's own discrete quantile, whose rounding policy would have to be matched to
  // scipy's definition.
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (boost::math::cdf(distribution, static_cast<double>(mid)) >= q)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

std::optional<OrderStatisticRanks> median_interval_ranks(std::size_t n, double confidence) {
  if (n == 0) return std::nullopt;
  const std::size_t lower = binomial_quantile(n, 0.5, (1.0 - confidence) / 2.0);
  if (lower == 0) return std::nullopt;
  return OrderStatisticRanks{lower, n + 1 - lower};
}

}  // namespace synthaudit::stats
