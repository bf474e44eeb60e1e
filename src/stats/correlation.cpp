#include "stats/correlation.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/threads.hpp"
#include "stats/dense_ids.hpp"
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

// Row indices are 32-bit throughout the tables; centred doubled ranks of a complete column fit
// in 32 bits below this many rows.
constexpr std::size_t kMaxRowsForRankArray = std::size_t{1} << 31;
constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

// One column prepared for pairwise-complete Spearman: each row's index among the column's
// distinct values in ascending order (kAbsent when missing) and the rows per distinct value.
// Mid-ranks among any subset of rows follow from the counts of the codes in that subset, so the
// rows are never sorted.
struct RankCodes {
  std::vector<std::uint32_t> code;
  std::vector<std::uint32_t> count;
  std::size_t present = 0;
  // Complete columns of fewer than kMaxRowsForRankArray rows: each row's doubled centred mid-rank
  // 2·rank − (n + 1), an integer, shared by every pair with another complete column.
  std::vector<std::int32_t> centred_doubled;
};

RankCodes rank_codes(std::span<const double> x) {
  RankCodes c;
  const std::size_t n = x.size();
  c.code.resize(n);
  DenseIds ids;
  std::vector<double> distinct;
  for (std::size_t r = 0; r < n; ++r) {
    if (std::isnan(x[r])) {
      c.code[r] = kAbsent;
      continue;
    }
    const double v = x[r] == 0 ? 0.0 : x[r];  // −0 and +0 are one value
    const std::uint32_t id = ids.id(std::bit_cast<std::uint64_t>(v));
    if (id == distinct.size()) distinct.push_back(v);
    c.code[r] = id;
  }
  std::vector<std::uint32_t> ascending(distinct.size());
  std::iota(ascending.begin(), ascending.end(), 0u);
  std::sort(ascending.begin(), ascending.end(),
            [&](std::uint32_t a, std::uint32_t b) { return distinct[a] < distinct[b]; });
  std::vector<std::uint32_t> position(distinct.size());
  for (std::size_t i = 0; i < ascending.size(); ++i)
    position[ascending[i]] = static_cast<std::uint32_t>(i);
  c.count.assign(distinct.size(), 0);
  for (auto& code : c.code)
    if (code != kAbsent) {
      code = position[code];
      ++c.count[code];
      ++c.present;
    }
  if (c.present == n && n < kMaxRowsForRankArray) {
    std::vector<std::int32_t> by_value(c.count.size());
    std::int64_t below = 0;
    for (std::size_t d = 0; d < c.count.size(); ++d) {
      by_value[d] =
          static_cast<std::int32_t>(2 * below + c.count[d] - static_cast<std::int64_t>(n));
      below += c.count[d];
    }
    c.centred_doubled.resize(n);
    for (std::size_t r = 0; r < n; ++r) c.centred_doubled[r] = by_value[c.code[r]];
  }
  return c;
}

// Σ a_i·b_i of integers whose products stay below 2^62 in magnitude, exactly: int64 sums over
// blocks short enough not to overflow (the compiler vectorises them), carried into 128 bits.
template <typename Term>
__int128 exact_sum(std::size_t n, std::int64_t largest_product, Term term) {
  const auto block = static_cast<std::size_t>(std::max<std::int64_t>(
      1,
      std::numeric_limits<std::int64_t>::max() / 2 / std::max<std::int64_t>(1, largest_product)));
  __int128 total = 0;
  for (std::size_t start = 0; start < n; start += block) {
    const std::size_t end = std::min(n, start + block);
    std::int64_t partial = 0;
    for (std::size_t i = start; i < end; ++i) partial += term(i);
    total += partial;
  }
  return total;
}

// Spearman correlation from the three exact sums of doubled centred ranks (the doubling cancels).
double spearman_from_sums(__int128 sxy, __int128 sxx, __int128 syy) {
  if (sxx <= 0 || syy <= 0) return kNaN;
  const double r =
      static_cast<double>(sxy) / std::sqrt(static_cast<double>(sxx) * static_cast<double>(syy));
  return std::clamp(r, -1.0, 1.0);
}

// Σ count·t² over the distinct values of one column, t its doubled centred mid-rank among `rows`
// rows whose counts per value are `count`; fills `t`.
__int128 doubled_ranks(std::span<const std::uint32_t> count, std::size_t rows,
                       std::vector<std::int64_t>& t) {
  t.resize(count.size());
  __int128 sum = 0;
  std::int64_t below = 0;
  for (std::size_t d = 0; d < count.size(); ++d) {
    t[d] = 2 * below + count[d] - static_cast<std::int64_t>(rows);
    sum += static_cast<__int128>(count[d]) * t[d] * t[d];
    below += count[d];
  }
  return sum;
}

// Spearman correlation over the rows where both columns are present: the mid-rank of a value
// among those rows is the number of them holding a smaller value plus half (one more than) the
// number holding it, so one pass counts each column's codes on the common rows and a second sums
// the products of the ranks looked up by code. The sums are exact integers (ranks doubled and
// centred), so the result does not depend on the order of the rows.
double spearman_from_codes(const RankCodes& x, const RankCodes& y) {
  const std::size_t n = x.code.size();
  if (!x.centred_doubled.empty() && !y.centred_doubled.empty()) {
    const auto nn = static_cast<std::int64_t>(n);
    const auto* a = x.centred_doubled.data();
    const auto* b = y.centred_doubled.data();
    const __int128 sxy = exact_sum(
        n, nn * nn, [&](std::size_t i) { return static_cast<std::int64_t>(a[i]) * b[i]; });
    std::vector<std::int64_t> t;
    return spearman_from_sums(sxy, doubled_ranks(x.count, n, t), doubled_ranks(y.count, n, t));
  }
  // Rows where either is missing count into (and look up) one slot past the values, whose rank
  // is 0: no branch on missingness, which is often in no order.
  const std::size_t dx = x.count.size(), dy = y.count.size();
  thread_local std::vector<std::uint32_t> count_x, count_y;
  count_x.assign(dx + 1, 0);
  count_y.assign(dy + 1, 0);
  auto slots = [&](std::size_t r) {
    const std::uint32_t cx = x.code[r], cy = y.code[r];
    const bool both = cx != kAbsent && cy != kAbsent;
    return std::make_pair(both ? cx : dx, both ? cy : dy);
  };
  for (std::size_t r = 0; r < n; ++r) {
    const auto [sx, sy] = slots(r);
    ++count_x[sx];
    ++count_y[sy];
  }
  const std::size_t common = n - count_x[dx];
  if (common < 2) return kNaN;
  thread_local std::vector<std::int64_t> tx, ty;
  const __int128 sxx = doubled_ranks(std::span(count_x).first(dx), common, tx);
  const __int128 syy = doubled_ranks(std::span(count_y).first(dy), common, ty);
  tx.push_back(0);
  ty.push_back(0);
  const auto cc = static_cast<std::int64_t>(common);
  const __int128 sxy = exact_sum(n, cc * cc, [&](std::size_t r) {
    const auto [sx, sy] = slots(r);
    return tx[sx] * ty[sy];
  });
  return spearman_from_sums(sxy, sxx, syy);
}

// Calls visit(j, x_i, y_j_i) for each row i < rows and column j < M where neither is missing,
// row by row and, within a row, column by column.
template <std::size_t M, typename Visit>
void for_each_complete(std::span<const double> x, const std::array<const double*, M>& y,
                       std::size_t rows, Visit visit) {
  for (std::size_t i = 0; i < rows; ++i) {
    const double xi = x[i];
    if (std::isnan(xi)) continue;
    for (std::size_t j = 0; j < M; ++j) {
      const double yi = y[j][i];
      if (std::isnan(yi)) continue;
      visit(j, xi, yi);
    }
  }
}

// pearson_pairwise(x, ys[j]) for the M columns ys, written to out[j]: the same sums in the same
// row order as pairwise_covariance, so the same bits, but one pass over x serves M pairs and
// their M independent sums keep the adder busy where one pair waits on the latency of each add.
template <std::size_t M>
void pearson_batch(std::span<const double> x, const std::span<const double>* ys, double* out) {
  std::size_t rows = x.size();
  for (std::size_t j = 0; j < M; ++j) rows = std::min(rows, ys[j].size());
  std::array<const double*, M> y;
  for (std::size_t j = 0; j < M; ++j) y[j] = ys[j].data();
  std::array<std::size_t, M> n{};
  std::array<double, M> sx{}, sy{};
  for_each_complete(x, y, rows, [&](std::size_t j, double xi, double yi) {
    ++n[j];
    sx[j] += xi;
    sy[j] += yi;
  });
  std::array<double, M> mx{}, my{}, sxy{}, sxx{}, syy{};
  for (std::size_t j = 0; j < M; ++j) {
    mx[j] = sx[j] / static_cast<double>(n[j]);
    my[j] = sy[j] / static_cast<double>(n[j]);
  }
  for_each_complete(x, y, rows, [&](std::size_t j, double xi, double yi) {
    const double dx = xi - mx[j], dy = yi - my[j];
    sxy[j] += dx * dy;
    sxx[j] += dx * dx;
    syy[j] += dy * dy;
  });
  for (std::size_t j = 0; j < M; ++j)
    out[j] = n[j] < 2 || !(sxx[j] > 0 && syy[j] > 0)
                 ? kNaN
                 : std::clamp(sxy[j] / std::sqrt(sxx[j] * syy[j]), -1.0, 1.0);
}

constexpr std::size_t kPearsonBatch = 4;

void pearson_batch(std::span<const double> x, std::span<const std::span<const double>> ys,
                   double* out) {
  switch (ys.size()) {
    case 1:
      return pearson_batch<1>(x, ys.data(), out);
    case 2:
      return pearson_batch<2>(x, ys.data(), out);
    case 3:
      return pearson_batch<3>(x, ys.data(), out);
    case 4:
      return pearson_batch<4>(x, ys.data(), out);
    default:
      throw std::logic_error("pearson_batch: 1 to 4 columns");
  }
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
  // Each column coded once by its distinct values; every pair's ranks come from those codes.
  std::vector<RankCodes> ranked(with_spearman ? k : 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t c = 0; c < ranked.size(); ++c) ranked[c] = rank_codes(columns[c]);
  // Pearson: column a with up to kPearsonBatch columns b < a per pass.
  struct Batch {
    std::size_t a, first, count;
  };
  std::vector<Batch> batches;
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t a = 0; a < k; ++a) {
    m.pearson[a * k + a] = 1;
    if (with_spearman) m.spearman[a * k + a] = 1;
    for (std::size_t b = 0; b < a; ++b) pairs.emplace_back(a, b);
    for (std::size_t b = 0; b < a; b += kPearsonBatch)
      batches.push_back({a, b, std::min(kPearsonBatch, a - b)});
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t t = 0; t < batches.size(); ++t) {
    const auto [a, first, count] = batches[t];
    std::array<double, kPearsonBatch> r;
    pearson_batch(columns[a], std::span(columns).subspan(first, count), r.data());
    for (std::size_t j = 0; j < count; ++j)
      m.pearson[a * k + first + j] = m.pearson[(first + j) * k + a] = r[j];
  }
  if (!with_spearman) return m;
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [a, b] = pairs[p];
    m.spearman[a * k + b] = m.spearman[b * k + a] = spearman_from_codes(ranked[a], ranked[b]);
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
