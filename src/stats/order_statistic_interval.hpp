#pragma once
// Distribution-free confidence intervals for a population median from two order statistics of
// an i.i.d. sample (Conover, 1999, Practical Nonparametric Statistics, 3rd ed., section 3.2;
// Hahn & Meeker, 1991, Statistical Intervals, chapter 5): the number of sample values below the
// median is Binomial(n, 1/2), whatever the distribution, so binomial ranks bound the median.
#include <cstddef>
#include <optional>

namespace synthaudit::stats {

// Smallest k in [0, n] with P(B <= k) >= q for B ~ Binomial(n, p): scipy.stats.binom.ppf(q, n, p).
// p and q in [0, 1].
std::size_t binomial_quantile(std::size_t n, double p, double q);

// 1-based ranks (lower < upper) of the order statistics x(lower) <= median <= x(upper).
struct OrderStatisticRanks {
  std::size_t lower = 0;
  std::size_t upper = 0;
};

// Ranks of a two-sided interval for the median with coverage at least `confidence` (0 < c < 1):
// lower = binomial_quantile(n, 1/2, (1 - c) / 2) and upper = n + 1 - lower, so that
// P(x(lower) > median) = P(x(upper) < median) = P(B <= lower - 1) < (1 - c) / 2; the coverage is
// exact-or-conservative for continuous data and at least as large with ties. Nullopt when the
// sample is too small for any such interval (n <= 5 at 95 %).
std::optional<OrderStatisticRanks> median_interval_ranks(std::size_t n, double confidence);

}  // namespace synthaudit::stats
