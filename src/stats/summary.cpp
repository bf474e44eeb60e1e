#include "stats/summary.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/threads.hpp"

namespace synthaudit::stats {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

Moments moments(std::span<const double> x) {
  Moments m;
  double sum = 0.0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  for (double v : x) {
    if (std::isnan(v)) {
      ++m.missing;
      continue;
    }
    ++m.n;
    sum += v;
    if (v == 0.0) ++m.zeros;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (m.n == 0) {
    m.mean = m.variance = m.sd = m.skewness_g1 = m.excess_kurtosis_g2 = m.min = m.max = kNaN;
    return m;
  }
  const double n = static_cast<double>(m.n);
  // Second pass: central sums around the first-pass mean, with the usual correction term for the
  // rounding error of that mean (Σ(x − x̄) should be 0; Chan, Golub & LeVeque 1983).
  const double mean0 = sum / n;
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (double v : x) {
    if (std::isnan(v)) continue;
    const double d = v - mean0;
    const double d2 = d * d;
    s1 += d;
    s2 += d2;
    s3 += d2 * d;
    s4 += d2 * d2;
  }
  m.mean = mean0 + s1 / n;
  // Shift the central sums to the corrected mean: with c = s1/n, Σ(d − c)^k by the binomial
  // expansion.
  const double c = s1 / n;
  const double c2 = c * c;
  const double m2s = s2 - n * c2;  // Σ(d − c)² = s2 − 2c s1 + n c² = s2 − n c²
  const double m3s = s3 - 3 * c * s2 + 3 * c2 * s1 - n * c2 * c;
  const double m4s = s4 - 4 * c * s3 + 6 * c2 * s2 - 4 * c2 * c * s1 + n * c2 * c2;
  m.min = lo;
  m.max = hi;
  m.variance = m.n >= 2 ? m2s / (n - 1.0) : kNaN;
  m.sd = std::sqrt(m.variance);
  const double m2 = m2s / n, m3 = m3s / n, m4 = m4s / n;
  if (m2 > 0.0) {
    m.skewness_g1 = m3 / std::pow(m2, 1.5);
    m.excess_kurtosis_g2 = m4 / (m2 * m2) - 3.0;
  } else {
    m.skewness_g1 = m.excess_kurtosis_g2 = kNaN;
  }
  return m;
}

PairwiseCovariance pairwise_covariance(std::span<const double> x, std::span<const double> y) {
  PairwiseCovariance out;
  double sx = 0, sy = 0;
  const std::size_t rows = std::min(x.size(), y.size());
  for (std::size_t i = 0; i < rows; ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) continue;
    ++out.n;
    sx += x[i];
    sy += y[i];
  }
  if (out.n < 2) {
    out.covariance = out.correlation = kNaN;
    return out;
  }
  const double n = static_cast<double>(out.n);
  const double mx = sx / n, my = sy / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) continue;
    const double dx = x[i] - mx, dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  out.covariance = sxy / (n - 1.0);
  out.correlation = (sxx > 0 && syy > 0) ? sxy / std::sqrt(sxx * syy) : kNaN;
  return out;
}

namespace {

// Order-preserving map from double to uint64: flip the sign bit of non-negatives, all bits of
// negatives. −0 maps just below +0; the caller folds −0 into +0 first so both compare equal.
inline std::uint64_t order_key(double v) {
  const auto u = std::bit_cast<std::uint64_t>(v);
  return (u & 0x8000000000000000ULL) ? ~u : (u | 0x8000000000000000ULL);
}
inline double from_order_key(std::uint64_t k) {
  const std::uint64_t u = (k & 0x8000000000000000ULL) ? (k & 0x7FFFFFFFFFFFFFFFULL) : ~k;
  return std::bit_cast<double>(u);
}

}  // namespace

std::vector<double> sorted_values(std::span<const double> x) {
  std::vector<double> out;
  out.reserve(x.size());
  for (double v : x)
    if (!std::isnan(v)) out.push_back(v);
  if (out.size() < 2048) {
    std::sort(out.begin(), out.end());
    return out;
  }
  const std::size_t n = out.size();
  std::vector<std::uint64_t> keys(n), tmp(n);
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  constexpr int kDigits = (64 + kBits - 1) / kBits;
  // Every digit's histogram is counted while the keys are made (a scatter pass leaves the
  // multiset of keys, and so each histogram, as it was).
  std::vector<std::array<std::size_t, kBuckets>> counts(kDigits);
  // −0 and +0 get the same key (that of +0), so the sort is stable between them like std::sort's
  // equal elements; their sign is restored from a side note below.
  bool has_negative_zero = false;
  for (std::size_t i = 0; i < n; ++i) {
    double v = out[i];
    if (v == 0.0 && std::signbit(v)) {
      has_negative_zero = true;
      v = 0.0;
    }
    const std::uint64_t k = order_key(v);
    keys[i] = k;
    for (int d = 0; d < kDigits; ++d) ++counts[d][(k >> (d * kBits)) & (kBuckets - 1)];
  }
  for (int d = 0; d < kDigits; ++d) {
    const int shift = d * kBits;
    auto& count = counts[d];
    if (count[(keys[0] >> shift) & (kBuckets - 1)] == n) continue;  // one digit value: skip
    std::size_t sum = 0;
    for (auto& c : count) {
      const std::size_t c0 = c;
      c = sum;
      sum += c0;
    }
    for (auto k : keys) tmp[count[(k >> shift) & (kBuckets - 1)]++] = k;
    keys.swap(tmp);
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = from_order_key(keys[i]);
  if (has_negative_zero) {
    // Zeros form one run; restore the −0 values in their input order (as a stable sort would).
    std::vector<bool> zero_signs;
    for (double v : x)
      if (v == 0.0) zero_signs.push_back(std::signbit(v));
    const auto first = std::lower_bound(out.begin(), out.end(), 0.0);
    for (std::size_t z = 0; z < zero_signs.size(); ++z)
      first[static_cast<std::ptrdiff_t>(z)] = zero_signs[z] ? -0.0 : 0.0;
  }
  return out;
}

std::vector<std::vector<double>> sorted_columns(
    const std::vector<std::span<const double>>& columns) {
  std::vector<std::vector<double>> out(columns.size());
  const auto count = static_cast<std::ptrdiff_t>(columns.size());
#pragma omp parallel for schedule(dynamic) num_threads(parallel_threads())
  for (std::ptrdiff_t c = 0; c < count; ++c)
    out[static_cast<std::size_t>(c)] = sorted_values(columns[static_cast<std::size_t>(c)]);
  return out;
}

double mean_non_missing(std::span<const double> x) {
  double sum = 0;
  std::size_t n = 0;
  for (double v : x)
    if (!std::isnan(v)) {
      sum += v;
      ++n;
    }
  return n == 0 ? kNaN : sum / static_cast<double>(n);
}

}  // namespace synthaudit::stats
