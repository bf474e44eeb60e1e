#pragma once
// One-dimensional Gaussian kernel density estimate (scipy.stats.gaussian_kde conventions).
#include <span>
#include <string>
#include <vector>

namespace synthaudit::stats {

enum class BandwidthRule { kScott, kSilverman };

// Bandwidth h = factor · sd (sd with divisor n − 1) as scipy.stats.gaussian_kde sets it for 1-D
// data: Scott's factor n^{−1/5}, Silverman's factor (3n/4)^{−1/5}. NaN when n < 2 or sd == 0.
double kde_bandwidth(std::span<const double> values, BandwidthRule rule);

struct KdeCurve {
  std::vector<double> density;  // at each grid point
  bool binned = false;          // true when the linear-binning approximation was used
};

// f(x) = 1/(n h √(2π)) Σ_i exp(−(x − x_i)² / (2h²)) at each grid point, for ascending `sorted`
// values (no NaN). Exact sum (kernel cut at |x − x_i| > 9h, where its weight is below 3e-18 of
// the peak) when n ≤ exact_limit; above that the values are first spread onto 4096 equally spaced
// bin centres by linear binning (Wand & Jones 1995, §D.2) and the sum runs over bins — a plot-grade
// approximation with relative error of order (δ/h)², δ the bin width. Hand-written rather than
// an FFT library: the grid is a few hundred points, so the direct sum over bins is cheap.
KdeCurve kde_evaluate(std::span<const double> sorted, double bandwidth,
                      std::span<const double> grid, std::size_t exact_limit = 20000);

}  // namespace synthaudit::stats
