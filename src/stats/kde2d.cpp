#include "stats/kde2d.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "core/threads.hpp"
#include "stats/quantile.hpp"

namespace synthaudit::stats {

double bandwidth_nrd(std::span<const double> x) {
  std::vector<double> v;
  for (double value : x)
    if (!std::isnan(value)) v.push_back(value);
  if (v.size() < 2) return 1.0;
  const double n = static_cast<double>(v.size());
  double mean = 0;
  for (double value : v) mean += value;
  mean /= n;
  double ss = 0;
  for (double value : v) ss += (value - mean) * (value - mean);
  const double sd = std::sqrt(ss / (n - 1));
  const double probs[] = {0.25, 0.75};
  const auto q = quantiles_type7(v, probs);
  const double iqr = (q[1] - q[0]) / 1.34;
  double scale = std::min(sd, iqr);
  if (!(scale > 0)) scale = sd;
  if (!(scale > 0)) return 1.0;
  return 4 * 1.06 * scale * std::pow(n, -0.2);
}

Kde2dGrid kde2d(std::span<const double> x, std::span<const double> y, double hx, double hy,
                std::size_t nx, std::size_t ny, double xlo, double xhi, double ylo, double yhi) {
  Kde2dGrid g;
  g.hx = hx;
  g.hy = hy;
  g.x.resize(nx);
  g.y.resize(ny);
  for (std::size_t i = 0; i < nx; ++i)
    g.x[i] =
        nx == 1 ? xlo : xlo + (xhi - xlo) * static_cast<double>(i) / static_cast<double>(nx - 1);
  for (std::size_t j = 0; j < ny; ++j)
    g.y[j] =
        ny == 1 ? ylo : ylo + (yhi - ylo) * static_cast<double>(j) / static_cast<double>(ny - 1);
  g.density.assign(nx * ny, 0.0);
  std::vector<std::uint32_t> rows;
  const std::size_t n = std::min(x.size(), y.size());
  for (std::size_t r = 0; r < n; ++r)
    if (!std::isnan(x[r]) && !std::isnan(y[r])) rows.push_back(static_cast<std::uint32_t>(r));
  g.points = rows.size();
  if (rows.empty() || nx == 0 || ny == 0) return g;
  const double sx = hx / 4, sy = hy / 4;
  const double norm = 1.0 / (2 * std::numbers::pi);  // φ(u)φ(v) = exp(−(u² + v²)/2)/(2π)
  constexpr std::size_t kChunk = 4096;
  const std::size_t chunks = (rows.size() + kChunk - 1) / kChunk;
  std::vector<std::vector<double>> partial(chunks);
  // Kernel values on an evenly spaced grid, from the grid point nearest to the data point outwards:
  // k_{i+1} = k_i·ρ_i with ρ_{i+1} = ρ_i·e^{−δ²} (δ = spacing/bandwidth), so three exp() per axis
  // and point instead of one per grid point; values only shrink away from the peak, so nothing
  // overflows. Relative error ~ grid size × 1 ulp.
  // Kernel values below 1e-150 (beyond ~26 bandwidths) are set to 0: their products would be
  // subnormal numbers, which are two orders of magnitude slower, for a change far below rounding
  // of any density the grid can show.
  constexpr double kTiny = 1e-150;
  auto kernel_row = [](double value, const std::vector<double>& gridv, double sd, double* out) {
    const std::size_t n = gridv.size();
    if (n == 1) {
      const double u = (gridv[0] - value) / sd;
      out[0] = std::exp(-0.5 * u * u);
      return;
    }
    const double delta = (gridv[1] - gridv[0]) / sd;
    auto safe_exp = [](double e) { return e < -600 ? 0.0 : std::exp(e); };  // never subnormal
    const double shrink = safe_exp(-delta * delta);
    const double pos = (value - gridv[0]) / (gridv[1] - gridv[0]);
    const auto i0 =
        static_cast<std::size_t>(std::clamp(std::round(pos), 0.0, static_cast<double>(n - 1)));
    const double u0 = (gridv[i0] - value) / sd;
    out[i0] = safe_exp(-0.5 * u0 * u0);
    if (out[i0] < kTiny) out[i0] = 0.0;
    double k = out[i0], ratio = safe_exp(-delta * u0 - 0.5 * delta * delta);
    for (std::size_t i = i0 + 1; i < n; ++i) {
      if (k != 0) {
        k *= ratio;
        if (k < kTiny) k = 0;
        ratio *= shrink;
      }
      out[i] = k;
    }
    k = out[i0];
    ratio = safe_exp(delta * u0 - 0.5 * delta * delta);
    for (std::size_t i = i0; i-- > 0;) {
      if (k != 0) {
        k *= ratio;
        if (k < kTiny) k = 0;
        ratio *= shrink;
      }
      out[i] = k;
    }
  };
  // Each chunk accumulates the rank-one updates kx·kyᵀ of its rows into its own nx × ny grid
  // (hand-written: a contiguous, vectorisable inner loop); chunk grids are added in order below.
#pragma omp parallel for schedule(static) num_threads(parallel_threads())
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t begin = c * kChunk, end = std::min(rows.size(), begin + kChunk);
    std::vector<double> kx(nx), ky(ny);
    auto& out = partial[c];
    out.assign(nx * ny, 0.0);
    for (std::size_t r = begin; r < end; ++r) {
      kernel_row(x[rows[r]], g.x, sx, kx.data());
      kernel_row(y[rows[r]], g.y, sy, ky.data());
      for (std::size_t i = 0; i < nx; ++i) {
        const double a = kx[i];
        if (a == 0) continue;
        double* row = &out[i * ny];
#pragma omp simd
        for (std::size_t j = 0; j < ny; ++j) row[j] += a * ky[j];
      }
    }
  }
  const double scale = norm / (static_cast<double>(rows.size()) * sx * sy);
  for (const auto& p : partial)
    for (std::size_t i = 0; i < nx; ++i)
      for (std::size_t j = 0; j < ny; ++j) g.density[i + nx * j] += p[i * ny + j];
  for (auto& d : g.density) d *= scale;
  return g;
}

}  // namespace synthaudit::stats
