#include "stats/distance_summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace synthaudit::stats {

double quantile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return NAN;
  const double h = (static_cast<double>(sorted.size()) - 1.0) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::vector<HistogramBin> histogram(std::span<const double> values, double lo, double hi,
                                    std::size_t bins) {
  std::vector<HistogramBin> out;
  if (bins == 0) return out;
  const double width =
      hi > lo ? (hi - lo) / static_cast<double>(bins) : 1.0 / static_cast<double>(bins);
  for (std::size_t b = 0; b < bins; ++b)
    out.push_back(
        {lo + width * static_cast<double>(b), lo + width * static_cast<double>(b + 1), 0});
  for (double v : values) {
    if (std::isnan(v)) continue;
    double pos = std::floor((v - lo) / width);
    pos = std::clamp(pos, 0.0, static_cast<double>(bins - 1));
    ++out[static_cast<std::size_t>(pos)].count;
  }
  return out;
}

namespace {
std::vector<std::size_t> order_desc(std::span<const double> score) {
  std::vector<std::size_t> idx(score.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  return idx;
}
}  // namespace

double roc_auc(std::span<const double> score, std::span<const char> positive) {
  // Rank-sum with mid-ranks for ties.
  const std::size_t n = score.size();
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(),
            [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
  double rank_sum = 0.0;
  std::size_t npos = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t e = i;
    while (e < n && score[idx[e]] == score[idx[i]]) ++e;
    const double mid = (static_cast<double>(i + 1) + static_cast<double>(e)) / 2.0;
    for (std::size_t t = i; t < e; ++t)
      if (positive[idx[t]]) {
        rank_sum += mid;
        ++npos;
      }
    i = e;
  }
  const std::size_t nneg = n - npos;
  if (npos == 0 || nneg == 0) return NAN;
  const double np = static_cast<double>(npos), nn = static_cast<double>(nneg);
  return (rank_sum - np * (np + 1.0) / 2.0) / (np * nn);
}

std::vector<RocPoint> roc_curve(std::span<const double> score, std::span<const char> positive) {
  std::vector<RocPoint> out;
  std::size_t npos = 0;
  for (char p : positive) npos += p != 0;
  const std::size_t nneg = positive.size() - npos;
  if (npos == 0 || nneg == 0) return out;
  const auto idx = order_desc(score);
  out.push_back({INFINITY, 0.0, 0.0});
  std::size_t tp = 0, fp = 0;
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t e = i;
    while (e < idx.size() && score[idx[e]] == score[idx[i]]) {
      (positive[idx[e]] ? tp : fp) += 1;
      ++e;
    }
    out.push_back({score[idx[i]], static_cast<double>(fp) / static_cast<double>(nneg),
                   static_cast<double>(tp) / static_cast<double>(npos)});
    i = e;
  }
  return out;
}

}  // namespace synthaudit::stats
