#pragma once
#include <span>
#include <vector>

namespace synthaudit::stats {

// Non-missing values of x, sorted ascending (stats::sorted_values: radix sort).
std::vector<double> sorted_non_missing(std::span<const double> x);

// Two-sample Kolmogorov–Smirnov distance D = sup_t |F_a(t) − F_b(t)| between two sorted samples
// (empirical CDFs, right-continuous; ties handled by stepping over equal values together, as
// scipy.stats.ks_2samp). NaN when either sample is empty.
double ks_distance_sorted(std::span<const double> a, std::span<const double> b);

// Asymptotic two-sided p-value of the two-sample KS statistic (Kolmogorov distribution with
// effective size n·m/(n+m), as scipy's method='asymp'). Assumes independent samples.
double ks_pvalue_asymptotic(double d, std::size_t n, std::size_t m);

}  // namespace synthaudit::stats
