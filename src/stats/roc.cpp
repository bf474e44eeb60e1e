#include "stats/roc.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

namespace synthaudit::stats {

std::vector<ScoreRun> score_runs(std::span<const double> scores,
                                 std::span<const std::uint8_t> positive) {
  if (scores.size() != positive.size()) throw std::invalid_argument("score_runs: size mismatch");
  // Sorting (score, label) pairs rather than an index keeps the sort in cache; the order within a
  // run of equal scores does not matter, so the sort need not be stable.
  std::vector<std::pair<double, std::uint8_t>> scored(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) scored[i] = {scores[i], positive[i] != 0};
  std::sort(scored.begin(), scored.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ScoreRun> runs;
  for (std::size_t a = 0; a < scored.size();) {
    ScoreRun run{scored[a].first, 0, 0};
    std::size_t b = a;
    for (; b < scored.size() && scored[b].first == run.score; ++b)
      ++(scored[b].second ? run.positives : run.negatives);
    runs.push_back(run);
    a = b;
  }
  return runs;
}

double mann_whitney_u(const std::vector<ScoreRun>& runs) {
  // 2U = Σ over runs of positives · (2 · negatives scored lower + negatives tied), in integers.
  std::uint64_t twice_u = 0, negatives_below = 0;
  for (const auto& run : runs) {
    twice_u += run.positives * (2 * negatives_below + run.negatives);
    negatives_below += run.negatives;
  }
  return static_cast<double>(twice_u) / 2.0;
}

double roc_auc(std::span<const double> scores, std::span<const std::uint8_t> positive) {
  const auto runs = score_runs(scores, positive);
  std::size_t n0 = 0, n1 = 0;
  for (const auto& run : runs) {
    n0 += run.negatives;
    n1 += run.positives;
  }
  if (n0 == 0 || n1 == 0) return std::numeric_limits<double>::quiet_NaN();
  return mann_whitney_u(runs) / (static_cast<double>(n0) * static_cast<double>(n1));
}

std::vector<RocPoint> roc_curve(std::span<const double> scores,
                                std::span<const std::uint8_t> positive, std::size_t max_points) {
  const auto runs = score_runs(scores, positive);
  std::size_t n0 = 0, n1 = 0;
  for (const auto& run : runs) {
    n0 += run.negatives;
    n1 += run.positives;
  }
  std::vector<RocPoint> points;
  if (n0 == 0 || n1 == 0) return points;
  points.reserve(runs.size() + 1);
  points.push_back({std::numeric_limits<double>::infinity(), 0.0, 0.0});
  std::size_t tp = 0, fp = 0;
  for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
    tp += run->positives;
    fp += run->negatives;
    points.push_back({run->score, static_cast<double>(fp) / static_cast<double>(n0),
                      static_cast<double>(tp) / static_cast<double>(n1)});
  }
  if (max_points >= 2 && points.size() > max_points) {
    std::vector<RocPoint> thin;
    thin.reserve(max_points);
    const std::size_t m = points.size();
    for (std::size_t k = 0; k < max_points; ++k)
      thin.push_back(points[k * (m - 1) / (max_points - 1)]);
    points.swap(thin);
  }
  return points;
}

}  // namespace synthaudit::stats
