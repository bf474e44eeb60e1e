#pragma once
// The project's one binning of numeric values: cut points (quantile or equal-width) and the
// interval a value falls in, and equal-width histograms for plots. Contingency tables (synthpop
// utility.tab, SDMetrics), key coding for disclosure measures (synthpop disclosure, SDMetrics
// DisclosureProtection) and the histogram plots all use it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace synthaudit::stats {

// synthpop group_num / classInt style "quantile": the type-7 quantiles (R's arithmetic) at
// probabilities i·(1/ngroups), i = 0..ngroups, of the values (no NaN), duplicates removed
// (unique()). Empty when there are no values. Reorders `values`.
std::vector<double> quantile_breaks(std::vector<double>& values, int ngroups);

// numpy.histogram_bin_edges(x, bins) for x without NaN: bins + 1 equal-width edges
// i·(max − min)/bins + min (numpy.linspace; last = max); range (v − 0.5, v + 0.5) when all values
// equal v. Empty when there are no values.
std::vector<double> equal_width_edges(std::span<const double> values, int bins);
// The same from the smallest and largest value (lo <= hi), without a pass over the values.
std::vector<double> equal_width_edges(double lo, double hi, int bins);

// Breaks b_0 < ... < b_k without their ends: the cuts b_1..b_{k-1} (empty when k < 2). With
// IntervalClosure::kLeft these put values below b_0 or above b_k in the outer intervals: R's
// cut(right = FALSE, include.lowest = TRUE) on quantile breaks, numpy.digitize on equal-width
// edges whose ends are replaced by −∞ and +∞ (SDMetrics).
std::span<const double> interior(std::span<const double> breaks);

enum class IntervalClosure {
  kLeft,   // [c_i, c_{i+1}): a cut opens the interval above it
  kRight,  // (c_i, c_{i+1}]: a cut closes the interval below it (pandas.cut, R's cut default)
};

// Index 0..k of the interval of x among ascending cuts c_1 < ... < c_k, which split the line into
// k + 1 intervals with open outer ends: the number of cuts ≤ x (kLeft) or < x (kRight). With the
// distinct values of a column as cuts, kRight gives the index of a value among them.
std::uint32_t interval_index(double x, std::span<const double> cuts, IntervalClosure closure);

struct HistogramBin {
  double start, end;
  std::size_t count;
};
// `bins` equal-width bins from lo to hi (the last bin closed, ending at hi); NaN is skipped and
// values outside go to the outer bins. When hi <= lo the bins have width 1 / bins from lo.
std::vector<HistogramBin> histogram(std::span<const double> values, double lo, double hi,
                                    std::size_t bins);

}  // namespace synthaudit::stats
