#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace synthaudit::stats {

// Non-missing values of x, sorted ascending (stats::sorted_values: radix sort).
std::vector<double> sorted_non_missing(std::span<const double> x);

// Two-sample Kolmogorov–Smirnov distance D = sup_t |F_a(t) − F_b(t)| between two sorted samples
// (empirical CDFs, right-continuous; ties handled by stepping over equal values together, as
// scipy.stats.ks_2samp). NaN when either sample is empty.
double ks_distance_sorted(std::span<const double> a, std::span<const double> b);

// The non-missing values of x as (value, count) in ascending order of value (−0 counted as 0),
// or nullopt as soon as more than `max_distinct` distinct values are seen. One pass over x.
std::optional<std::vector<std::pair<double, std::size_t>>> value_counts_if_few(
    std::span<const double> x, std::size_t max_distinct);

// ks_distance_sorted from both samples' value_counts_if_few: the same D, bit for bit (the same
// cumulative counts at the same distinct values), without sorting the samples.
double ks_distance_counted(std::span<const std::pair<double, std::size_t>> a,
                           std::span<const std::pair<double, std::size_t>> b);

// Asymptotic two-sided p-value of the two-sample KS statistic (Kolmogorov distribution with
// effective size n·m/(n+m), as scipy's method='asymp'). Assumes independent samples.
double ks_pvalue_asymptotic(double d, std::size_t n, std::size_t m);

}  // namespace synthaudit::stats
