#pragma once
// How well a score separates positives from negatives, from one sort of the scores: the runs of
// equal scores, the Mann–Whitney U (ties count ½) with its AUC = U / (n₀n₁) — the area under the
// ROC curve as sklearn.metrics.roc_auc_score computes it by trapezoids — and the ROC curve itself.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace synthaudit::stats {

// Scores of equal value, in increasing order of score: how many negatives and positives have it.
struct ScoreRun {
  double score;
  std::size_t negatives, positives;
};
// scores (no NaN) and labels (nonzero = positive) of equal length.
std::vector<ScoreRun> score_runs(std::span<const double> scores,
                                 std::span<const std::uint8_t> positive);

// Mann–Whitney U of the positives: pairs (positive, negative) with the positive scored higher, plus
// ½ per tied pair; R's wilcox.test W with the positives as x. Exact (integer arithmetic).
double mann_whitney_u(const std::vector<ScoreRun>& runs);

// U / (n₀n₁): P(score of a positive > score of a negative) + ½ P(tie). NaN when a class is empty.
double roc_auc(std::span<const double> scores, std::span<const std::uint8_t> positive);

// One point of a ROC curve: the classifier "positive when score >= threshold" and its false and
// true positive rates.
struct RocPoint {
  double threshold, fpr, tpr;
};
// One point per distinct score from high to low, starting at (0, 0) with threshold +∞ and ending
// at (1, 1); empty when a class is empty. With max_points ≥ 2, thinned to at most max_points
// points evenly spaced along the curve, keeping the first and last.
std::vector<RocPoint> roc_curve(std::span<const double> scores,
                                std::span<const std::uint8_t> positive, std::size_t max_points = 0);

}  // namespace synthaudit::stats
