#pragma once
// Distances between distributions and t-based intervals and tests.
#include <cstddef>
#include <span>

namespace synthaudit::stats {

// Wasserstein-1 (earth mover's) distance between the empirical distributions of two ascending
// samples: W1 = ∫ |F_a(t) − F_b(t)| dt = ∫_0^1 |Q_a(u) − Q_b(u)| du, computed exactly by a merge
// walk over the pooled distinct values (as scipy.stats.wasserstein_distance). NaN when either
// sample is empty.
double wasserstein1_sorted(std::span<const double> a, std::span<const double> b);

// Quantile of Student's t distribution with `df` degrees of freedom (Boost.Math).
double student_t_quantile(double p, double df);
// Two-sided p-value 2·P(T_df ≥ |t|).
double student_t_two_sided_pvalue(double t, double df);

// Confidence interval for a mean from n non-missing values: x̄ ± q·s/√n with q the t quantile
// t_{n−1}(1 − α/2) (or the normal quantile z_{1−α/2} when `normal`). NaN bounds when n < 2.
struct MeanInterval {
  std::size_t n = 0;
  double mean = 0, sd = 0, se = 0, lower = 0, upper = 0, critical = 0;
};
MeanInterval mean_interval(std::span<const double> x, double alpha, bool normal = false);

// Paired t-test of H0: E[y − x] = 0 over the rows where both are non-missing (scipy.stats.ttest_rel
// with nan_policy='omit'): d̄ / (s_d/√n), df = n − 1, two-sided p-value. t = ±∞ (p = 0) when all
// differences are equal and non-zero, NaN when all are zero or n < 2.
struct PairedTTest {
  std::size_t n = 0;
  double mean_difference = 0, sd_difference = 0, t = 0, df = 0, p_value = 0;
};
PairedTTest paired_t_test(std::span<const double> x, std::span<const double> y);

// One-sided Fisher exact test that the first sample's rate (a of n) exceeds the second's (c of
// m): the hypergeometric upper tail P(X >= a) with N = n + m records, K = a + c events and n
// drawn, conditional on the margins (Fisher 1935); as scipy.stats.fisher_exact with
// alternative="greater" (tests/golden/edit_rules). 1 when a sample is empty or nothing happened.
double fisher_exact_greater(double a, double n, double c, double m);

}  // namespace synthaudit::stats
