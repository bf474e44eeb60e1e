#include "stats/kde2d.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "stats/contingency.hpp"

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
  // Each chunk: the nx × ny matrix Kx·Kyᵀ of kernel vectors, by a hand-written loop whose inner
  // product over the chunk's rows is contiguous and vectorises (Eigen's GEMM trips GCC 12's
  // -Wmaybe-uninitialized under -march=native -Werror). Chunk sums are added in order below.
#pragma omp parallel for schedule(static)
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t begin = c * kChunk, end = std::min(rows.size(), begin + kChunk);
    const std::size_t m = end - begin;
    std::vector<double> kx(nx * m), ky(ny * m);
    for (std::size_t r = 0; r < m; ++r) {
      const double xr = x[rows[begin + r]], yr = y[rows[begin + r]];
      for (std::size_t i = 0; i < nx; ++i) {
        const double u = (g.x[i] - xr) / sx;
        kx[i * m + r] = std::exp(-0.5 * u * u);
      }
      for (std::size_t j = 0; j < ny; ++j) {
        const double v = (g.y[j] - yr) / sy;
        ky[j * m + r] = std::exp(-0.5 * v * v);
      }
    }
    auto& out = partial[c];
    out.assign(nx * ny, 0.0);
    for (std::size_t j = 0; j < ny; ++j) {
      const double* b = &ky[j * m];
      for (std::size_t i = 0; i < nx; ++i) {
        const double* a = &kx[i * m];
        double sum = 0;
#pragma omp simd reduction(+ : sum)
        for (std::size_t r = 0; r < m; ++r) sum += a[r] * b[r];
        out[i + nx * j] = sum;
      }
    }
  }
  const double scale = norm / (static_cast<double>(rows.size()) * sx * sy);
  for (const auto& p : partial)
    for (std::size_t cell = 0; cell < nx * ny; ++cell) g.density[cell] += p[cell];
  for (auto& d : g.density) d *= scale;
  return g;
}

}  // namespace synthaudit::stats
