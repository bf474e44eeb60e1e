#pragma once
// Two-dimensional Gaussian product-kernel density estimate on a grid (MASS::kde2d), for contour
// plots of numeric pairs.
#include <span>
#include <vector>

namespace synthaudit::stats {

// MASS::bandwidth.nrd: 4 · 1.06 · min(sd, IQR/1.34) · n^(−1/5) over the non-missing values (sd
// with n − 1, IQR from type-7 quartiles). Falls back to the sd when the IQR is 0, and to 1 when
// both are 0 or fewer than two values exist (MASS would fail there).
double bandwidth_nrd(std::span<const double> x);

struct Kde2dGrid {
  std::vector<double> x, y;     // grid points (nx and ny of them)
  std::vector<double> density;  // density[i + nx·j] at (x[i], y[j])
  double hx = 0, hy = 0;        // bandwidths as given (kernel sd = h/4, as MASS::kde2d)
  std::size_t points = 0;       // rows used (both values non-missing)
};

// f(x, y) = 1/(n·(hx/4)(hy/4)) Σ φ((x − X_i)/(hx/4)) φ((y − Y_i)/(hy/4)) over the rows where both
// values are non-missing, on an nx × ny grid spanning [xlo, xhi] × [ylo, yhi] (MASS::kde2d with
// h = c(hx, hy), n = c(nx, ny), lims = c(xlo, xhi, ylo, yhi)). Computed as a sum of outer products
// of the kernel vectors in fixed row chunks (a matrix product), combined in chunk order so the
// result does not depend on the thread count.
Kde2dGrid kde2d(std::span<const double> x, std::span<const double> y, double hx, double hy,
                std::size_t nx, std::size_t ny, double xlo, double xhi, double ylo, double yhi);

}  // namespace synthaudit::stats
