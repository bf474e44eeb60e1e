#pragma once
// Small summaries of distance distributions shared by the distance-disclosure metrics:
// quantiles (R type 7 / numpy 'linear' / pandas), equal-width histograms and the ROC/AUC of a
// score that separates two groups.
#include <cstddef>
#include <span>
#include <vector>

#include "stats/roc.hpp"

namespace synthaudit::stats {

// Quantile of an ascending sample by linear interpolation between order statistics (R type 7,
// numpy.quantile default, pandas Series.quantile); p in [0, 1]. NaN when empty.
double quantile_sorted(std::span<const double> sorted, double p);

struct HistogramBin {
  double start, end;
  std::size_t count;
};
// `bins` equal-width bins over [lo, hi] (the last bin closed); values outside are clamped.
// When hi <= lo the bins have width 1 / bins starting at lo.
std::vector<HistogramBin> histogram(std::span<const double> values, double lo, double hi,
                                    std::size_t bins);

// Area under the ROC curve of `score` (higher = more likely positive) for labels `positive`:
// the Mann–Whitney probability P(score_pos > score_neg) + ½ P(tie). NaN when a class is empty.
double roc_auc(std::span<const double> score, std::span<const char> positive);

// ROC points (fpr, tpr) for every distinct threshold "positive when score >= t", from (0, 0) to
// (1, 1), in increasing order.
std::vector<RocPoint> roc_curve(std::span<const double> score, std::span<const char> positive);

}  // namespace synthaudit::stats
