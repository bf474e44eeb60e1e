#include "stats/kde.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace synthaudit::stats {

double kde_bandwidth(std::span<const double> values, BandwidthRule rule) {
  const std::size_t n = values.size();
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(n);
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  if (!(sd > 0)) return std::numeric_limits<double>::quiet_NaN();
  const double nd = static_cast<double>(n);
  const double factor =
      rule == BandwidthRule::kScott ? std::pow(nd, -0.2) : std::pow(nd * 3.0 / 4.0, -0.2);
  return factor * sd;
}

KdeCurve kde_evaluate(std::span<const double> sorted, double bandwidth,
                      std::span<const double> grid, std::size_t exact_limit) {
  KdeCurve out;
  out.density.assign(grid.size(), std::numeric_limits<double>::quiet_NaN());
  const std::size_t n = sorted.size();
  if (n == 0 || !(bandwidth > 0)) return out;
  const double norm =
      1.0 / (static_cast<double>(n) * bandwidth * std::sqrt(2.0 * std::numbers::pi));
  const double inv2h2 = 1.0 / (2.0 * bandwidth * bandwidth);
  const double cut = 9.0 * bandwidth;
  if (n <= exact_limit) {
    for (std::size_t g = 0; g < grid.size(); ++g) {
      const double x = grid[g];
      auto lo = std::lower_bound(sorted.begin(), sorted.end(), x - cut);
      auto hi = std::upper_bound(lo, sorted.end(), x + cut);
      double s = 0;
      for (auto it = lo; it != hi; ++it) {
        const double d = x - *it;
        s += std::exp(-d * d * inv2h2);
      }
      out.density[g] = s * norm;
    }
    return out;
  }
  // Linear binning onto M equally spaced centres spanning [min, max].
  constexpr std::size_t kBins = 4096;
  const double lo = sorted.front(), hi = sorted.back();
  std::vector<double> centre(kBins), weight(kBins, 0.0);
  const double delta = (hi - lo) / static_cast<double>(kBins - 1);
  for (std::size_t k = 0; k < kBins; ++k) centre[k] = lo + delta * static_cast<double>(k);
  if (delta > 0) {
    for (double v : sorted) {
      const double pos = (v - lo) / delta;
      auto k = static_cast<std::size_t>(std::floor(pos));
      if (k >= kBins - 1) {
        weight[kBins - 1] += 1.0;
        continue;
      }
      const double frac = pos - static_cast<double>(k);
      weight[k] += 1.0 - frac;
      weight[k + 1] += frac;
    }
  } else {
    weight[0] = static_cast<double>(n);
  }
  for (std::size_t g = 0; g < grid.size(); ++g) {
    const double x = grid[g];
    double s = 0;
    for (std::size_t k = 0; k < kBins; ++k) {
      if (weight[k] == 0.0) continue;
      const double d = x - centre[k];
      if (std::abs(d) > cut) continue;
      s += weight[k] * std::exp(-d * d * inv2h2);
    }
    out.density[g] = s * norm;
  }
  out.binned = true;
  return out;
}

}  // namespace synthaudit::stats
