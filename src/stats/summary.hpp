#pragma once
// Univariate and bivariate summaries of numeric samples: moments, type-7 quantiles, pairwise
// covariance. Missing values are NaN and are skipped everywhere (each function says how).
#include <cstddef>
#include <span>
#include <vector>

namespace synthaudit::stats {

// Moments of the non-missing values of a sample, computed in two passes (mean first, then the
// central sums), which is accurate where the one-pass textbook formula cancels.
struct Moments {
  std::size_t n = 0;        // non-missing values
  std::size_t missing = 0;  // NaN values
  std::size_t zeros = 0;    // values exactly 0
  double mean = 0;          // NaN when n == 0
  double variance = 0;  // sample variance, divisor n − 1 (R var, numpy ddof=1); NaN when n < 2
  double sd = 0;        // sqrt(variance)
  // Sample skewness g1 = m3 / m2^{3/2} and excess kurtosis g2 = m4 / m2² − 3 with the biased
  // central moments m_k = Σ(x − x̄)^k / n: scipy.stats.skew / kurtosis with bias=True (the
  // defaults). NaN when n == 0 or m2 == 0.
  double skewness_g1 = 0;
  double excess_kurtosis_g2 = 0;
  double min = 0, max = 0;  // NaN when n == 0
};

Moments moments(std::span<const double> x);

// Mean and sample variance (divisor n − 1) of x over the rows where both x and y are non-missing,
// and their covariance (divisor n − 1) and Pearson correlation: R's cov/cor with
// use = "pairwise.complete.obs", pandas DataFrame.cov/corr. NaN where fewer than 2 complete
// rows or (correlation) a zero variance.
struct PairwiseCovariance {
  std::size_t n = 0;  // complete rows
  double covariance = 0;
  double correlation = 0;
};
PairwiseCovariance pairwise_covariance(std::span<const double> x, std::span<const double> y);

// The non-missing values of x in ascending order (same result as std::sort; −0 and +0 compare
// equal, and the order of −0 and +0 among themselves is their input order). Hand-written LSD radix
// sort on the order-preserving 64-bit image of each double (11-bit digits, passes where every key
// has the same digit skipped): several times faster than std::sort on the 10^6-row columns the
// marginal metrics sort; std::sort below 2048 values.
std::vector<double> sorted_values(std::span<const double> x);

// The non-missing values of every column in `columns` sorted (sorted_values), one task per column
// in an OpenMP loop; each output depends only on its column, so results do not depend on the
// thread count.
std::vector<std::vector<double>> sorted_columns(
    const std::vector<std::span<const double>>& columns);

// Arithmetic mean of the non-missing values (NaN when none).
double mean_non_missing(std::span<const double> x);

}  // namespace synthaudit::stats
