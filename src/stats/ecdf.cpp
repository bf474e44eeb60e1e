#include "stats/ecdf.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "stats/summary.hpp"

namespace synthaudit::stats {

std::vector<double> sorted_non_missing(std::span<const double> x) { return sorted_values(x); }

double ks_distance_sorted(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  std::size_t i = 0, j = 0;
  double d = 0.0;
  while (i < a.size() && j < b.size()) {
    const double t = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == t) ++i;
    while (j < b.size() && b[j] == t) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  return d;
}

std::optional<std::vector<std::pair<double, std::size_t>>> value_counts_if_few(
    std::span<const double> x, std::size_t max_distinct) {
  // Open addressing on the value's bits, at most half full; a slot's count 0 means empty.
  std::size_t capacity = 16;
  while (capacity < 2 * std::min(max_distinct, x.size())) capacity *= 2;
  const std::size_t mask = capacity - 1;
  std::vector<std::uint64_t> bits(capacity);
  std::vector<std::size_t> counts(capacity, 0);
  std::size_t distinct = 0;
  for (double v : x) {
    if (std::isnan(v)) continue;
    const auto key = std::bit_cast<std::uint64_t>(v == 0.0 ? 0.0 : v);
    std::uint64_t h = (key ^ (key >> 29)) * 0x9e3779b97f4a7c15ULL;
    std::size_t s = (h ^ (h >> 32)) & mask;
    while (counts[s] != 0 && bits[s] != key) s = (s + 1) & mask;
    if (counts[s] == 0) {
      if (++distinct > max_distinct) return std::nullopt;
      bits[s] = key;
    }
    ++counts[s];
  }
  std::vector<std::pair<double, std::size_t>> out;
  out.reserve(distinct);
  for (std::size_t s = 0; s < capacity; ++s)
    if (counts[s] != 0) out.emplace_back(std::bit_cast<double>(bits[s]), counts[s]);
  std::sort(out.begin(), out.end());
  return out;
}

double ks_distance_counted(std::span<const std::pair<double, std::size_t>> a,
                           std::span<const std::pair<double, std::size_t>> b) {
  std::size_t a_size = 0, b_size = 0;
  for (const auto& [value, count] : a) a_size += count;
  for (const auto& [value, count] : b) b_size += count;
  if (a_size == 0 || b_size == 0) return std::numeric_limits<double>::quiet_NaN();
  const double na = static_cast<double>(a_size);
  const double nb = static_cast<double>(b_size);
  // As ks_distance_sorted: i and j are the counts at or below each distinct value t, until one
  // sample is used up.
  std::size_t ia = 0, ib = 0, i = 0, j = 0;
  double d = 0.0;
  while (ia < a.size() && ib < b.size()) {
    const double t = std::min(a[ia].first, b[ib].first);
    if (a[ia].first == t) i += a[ia++].second;
    if (b[ib].first == t) j += b[ib++].second;
    d = std::max(d, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  return d;
}

double ks_pvalue_asymptotic(double d, std::size_t n, std::size_t m) {
  if (std::isnan(d) || n == 0 || m == 0) return std::numeric_limits<double>::quiet_NaN();
  const double en =
      std::sqrt(static_cast<double>(n) * static_cast<double>(m) / static_cast<double>(n + m));
  const double lambda = en * d;
  if (lambda < 1e-3) return 1.0;
  // Kolmogorov survival function Q(λ) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²).
  double sum = 0.0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-16) break;
  }
  return std::clamp(2.0 * sum, 0.0, 1.0);
}

}  // namespace synthaudit::stats
