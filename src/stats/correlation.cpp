#include "stats/correlation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/threads.hpp"
#include "stats/summary.hpp"

namespace synthaudit::stats {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double pearson_pairwise(std::span<const double> x, std::span<const double> y) {
  // Clamped: rounding can put |r| a few ulps above 1 for (anti)collinear columns.
  return std::clamp(pairwise_covariance(x, y).correlation, -1.0, 1.0);
}

namespace {

// Rows with non-missing x, sorted by x.
std::vector<std::uint32_t> sorted_rows(std::span<const double> x) {
  std::vector<std::uint32_t> order;
  order.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isnan(x[i])) order.push_back(static_cast<std::uint32_t>(i));
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return x[a] < x[b]; });
  return order;
}

// Average ranks from a precomputed sorted order, skipping rows where mask is missing: one O(n)
// pass per pair instead of a sort.
std::vector<double> ranks_from_order(std::span<const double> x,
                                     const std::vector<std::uint32_t>& sorted,
                                     std::span<const double> mask) {
  std::vector<std::uint32_t> order;
  if (!mask.empty()) {
    order.reserve(sorted.size());
    for (auto r : sorted)
      if (!std::isnan(mask[r])) order.push_back(r);
  }
  const auto& use = mask.empty() ? sorted : order;
  std::vector<double> ranks(x.size(), kNaN);
  for (std::size_t i = 0; i < use.size();) {
    std::size_t j = i;
    while (j < use.size() && x[use[j]] == x[use[i]]) ++j;
    const double rank =
        (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;  // mean of i+1..j
    for (std::size_t k = i; k < j; ++k) ranks[use[k]] = rank;
    i = j;
  }
  return ranks;
}

// One column prepared for pairwise-complete Spearman: its non-missing rows in sorted order, the
// values in that order, and a presence mask.
struct RankedColumn {
  std::vector<std::uint32_t> order;
  std::vector<double> sorted;
  std::vector<std::uint8_t> present;
};

RankedColumn rank_column(std::span<const double> x) {
  RankedColumn c;
  c.order = sorted_rows(x);
  c.sorted.resize(c.order.size());
  for (std::size_t i = 0; i < c.order.size(); ++i) c.sorted[i] = x[c.order[i]];
  c.present.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) c.present[i] = std::isnan(x[i]) ? 0 : 1;
  return c;
}

// Spearman correlation over the rows where both columns are present. x's average ranks among
// those rows are scattered into a row-indexed buffer, then one walk over y's order ranks y and
// accumulates the centred cross products. The mean of average ranks over c rows is exactly
// (c + 1)/2, so the sums are centred without a second pass; centred ranks are multiples of ½
// below 2^24 in magnitude, hence exact in float, which halves the buffer. Tie groups are found on
// the values copied into sorted order and presence on byte masks, so the only random accesses
// per row are to a 1-byte mask and the 4-byte rank buffer (this pass over many pairs is the cost
// centre of correlation_fit).
double spearman_from_orders(const RankedColumn& x, const RankedColumn& y) {
  const std::size_t n = x.present.size();
  std::size_t common = 0;
  for (std::size_t i = 0; i < n; ++i) common += x.present[i] & y.present[i];
  if (common < 2) return kNaN;
  thread_local std::vector<float> x_rank;
  x_rank.resize(n);
  const double mean = (static_cast<double>(common) + 1.0) / 2.0;
  double sxx = 0;
  std::size_t position = 0;  // ranks assigned so far among common rows
  for (std::size_t i = 0; i < x.order.size();) {
    std::size_t j = i, members = 0;
    while (j < x.order.size() && x.sorted[j] == x.sorted[i]) members += y.present[x.order[j++]];
    const double centred =
        static_cast<double>(position) + (static_cast<double>(members) + 1.0) / 2.0 - mean;
    for (std::size_t k = i; k < j; ++k) x_rank[x.order[k]] = static_cast<float>(centred);
    sxx += static_cast<double>(members) * centred * centred;
    position += members;
    i = j;
  }
  double syy = 0, sxy = 0;
  position = 0;
  for (std::size_t i = 0; i < y.order.size();) {
    std::size_t j = i, members = 0;
    double x_sum = 0;  // Σ centred x ranks over the group's common rows
    for (; j < y.order.size() && y.sorted[j] == y.sorted[i]; ++j) {
      const auto r = y.order[j];
      if (x.present[r]) {
        ++members;
        x_sum += static_cast<double>(x_rank[r]);
      }
    }
    const double centred =
        static_cast<double>(position) + (static_cast<double>(members) + 1.0) / 2.0 - mean;
    syy += static_cast<double>(members) * centred * centred;
    sxy += centred * x_sum;
    position += members;
    i = j;
  }
  if (sxx <= 0 || syy <= 0) return kNaN;
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

}  // namespace

std::vector<double> average_ranks(std::span<const double> x, std::span<const double> mask) {
  return ranks_from_order(x, sorted_rows(x), mask);
}

double spearman_pairwise(std::span<const double> x, std::span<const double> y) {
  const auto rx = average_ranks(x, y);
  const auto ry = average_ranks(y, x);
  return pearson_pairwise(rx, ry);
}

CorrelationMatrices correlation_matrices(const std::vector<std::span<const double>>& columns,
                                         bool with_spearman) {
  CorrelationMatrices m;
  const std::size_t k = columns.size();
  m.k = k;
  m.pearson.assign(k * k, kNaN);
  if (with_spearman) m.spearman.assign(k * k, kNaN);
  std::vector<char> complete(k, 1);
  for (std::size_t c = 0; c < k; ++c)
    complete[c] =
        std::none_of(columns[c].begin(), columns[c].end(), [](double v) { return std::isnan(v); });
  // One sort per column; ranks of complete columns are shared by every pair, other pairs are
  // re-ranked on their complete rows by one pass over the sorted order.
  std::vector<RankedColumn> ranked(k);
  std::vector<std::vector<double>> full_ranks(k);
  if (with_spearman) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
    for (std::size_t c = 0; c < k; ++c) {
      ranked[c] = rank_column(columns[c]);
      if (complete[c]) full_ranks[c] = ranks_from_order(columns[c], ranked[c].order, {});
    }
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t a = 0; a < k; ++a) {
    m.pearson[a * k + a] = 1;
    if (with_spearman) m.spearman[a * k + a] = 1;
    for (std::size_t b = 0; b < a; ++b) pairs.emplace_back(a, b);
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [a, b] = pairs[p];
    const double r = pearson_pairwise(columns[a], columns[b]);
    m.pearson[a * k + b] = m.pearson[b * k + a] = r;
    if (!with_spearman) continue;
    const double s = complete[a] && complete[b] ? pearson_pairwise(full_ranks[a], full_ranks[b])
                                                : spearman_from_orders(ranked[a], ranked[b]);
    m.spearman[a * k + b] = m.spearman[b * k + a] = s;
  }
  return m;
}

DifferenceSummary lower_triangle_difference(std::span<const double> a, std::span<const double> b,
                                            std::size_t k) {
  DifferenceSummary s;
  double sq = 0;
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const double d = b[i * k + j] - a[i * k + j];
      if (std::isnan(d)) {
        ++s.undefined;
        continue;
      }
      s.sum_abs += std::abs(d);
      sq += d * d;
      ++s.pairs;
    }
  if (s.pairs == 0) {
    s.mae = s.rmse = kNaN;
  } else {
    s.mae = s.sum_abs / static_cast<double>(s.pairs);
    s.rmse = std::sqrt(sq / static_cast<double>(s.pairs));
  }
  return s;
}

double cramers_v(std::span<const double> counts, std::size_t rows, std::size_t cols) {
  std::vector<double> row_sum(rows, 0), col_sum(cols, 0);
  double n = 0;
  for (std::size_t j = 0; j < cols; ++j)
    for (std::size_t i = 0; i < rows; ++i) {
      const double v = counts[i + rows * j];
      row_sum[i] += v;
      col_sum[j] += v;
      n += v;
    }
  const auto r = static_cast<std::size_t>(
      std::count_if(row_sum.begin(), row_sum.end(), [](double v) { return v > 0; }));
  const auto c = static_cast<std::size_t>(
      std::count_if(col_sum.begin(), col_sum.end(), [](double v) { return v > 0; }));
  if (r < 2 || c < 2 || n <= 0) return kNaN;
  double chi2 = 0;
  for (std::size_t j = 0; j < cols; ++j) {
    if (col_sum[j] <= 0) continue;
    for (std::size_t i = 0; i < rows; ++i) {
      if (row_sum[i] <= 0) continue;
      const double expected = row_sum[i] * col_sum[j] / n;
      const double d = counts[i + rows * j] - expected;
      chi2 += d * d / expected;
    }
  }
  return std::sqrt(chi2 / (n * static_cast<double>(std::min(r, c) - 1)));
}

}  // namespace synthaudit::stats
