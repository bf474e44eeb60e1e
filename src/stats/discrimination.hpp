#pragma once
// How well a score separates two groups (group 1 = synthetic, group 0 = confidential in the
// propensity metrics): pMSE, KS distance between the groups' score distributions, share of
// correct 50% classifications, Mann–Whitney U, AUC and the ROC curve. One sort serves them all.
#include <cstdint>
#include <vector>

#include "stats/roc.hpp"

namespace synthaudit::stats {

struct DiscriminationSummary {
  std::size_t n0 = 0, n1 = 0;
  double pmse = 0.0;  // sum (p - c)^2 / N
  double ks = 0.0;    // sup |F1 - F0| over the scores (SPECKS)
  double po50 = 0.0;  // 100 * share with (p > 0.5 and t = 1) or (p <= 0.5 and t = 0), minus 50
  double u = 0.0;     // Mann–Whitney U of group 1 (ties count 1/2), R's wilcox.test W
  double auc = 0.0;   // U / (n0 n1)
};

// scores and groups (0/1) of equal length; c = the reference share used in pMSE (n1 / N for the
// propensity metrics). Scores must not be NaN.
DiscriminationSummary summarise_discrimination(const std::vector<double>& scores,
                                               const std::vector<std::uint8_t>& groups, double c);

// pMSE alone (no sort): sum (p - c)^2 / N.
double pmse(const std::vector<double>& scores, double c);

// ROC curve (group 1 positive), one point per distinct score from high to low, starting at
// (0, 0); thinned to at most max_points points (keeping the first and last).
std::vector<RocPoint> roc_curve(const std::vector<double>& scores,
                                const std::vector<std::uint8_t>& groups,
                                std::size_t max_points = 500);

}  // namespace synthaudit::stats
