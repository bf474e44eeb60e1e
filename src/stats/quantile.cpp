#include "stats/quantile.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace synthaudit::stats {

namespace {

using Bracket = Type7Bracket;

Bracket bracket(std::size_t n, double p, QuantileArithmetic arithmetic) {
  if (arithmetic == QuantileArithmetic::kR) {
    const double index = 1.0 + static_cast<double>(n - 1) * p;  // 1-based, as R computes it
    const double lo = std::floor(index);
    const double hi = std::ceil(index);
    return {static_cast<std::size_t>(lo) - 1, static_cast<std::size_t>(hi) - 1, index - lo};
  }
  const double index = static_cast<double>(n - 1) * p;
  const double lo = std::floor(index);
  const auto lo_index = static_cast<std::size_t>(lo);
  return {lo_index, std::min(lo_index + 1, n - 1), index - lo};
}

double interpolate(double a, double b, double h, QuantileArithmetic arithmetic) {
  if (arithmetic == QuantileArithmetic::kR) return (h > 0 && a != b) ? (1.0 - h) * a + h * b : a;
  const double diff = b - a;
  return h >= 0.5 ? b - diff * (1.0 - h) : a + diff * h;
}

}  // namespace

Type7Bracket type7_bracket(std::size_t n, double p, QuantileArithmetic arithmetic) {
  return bracket(n, p, arithmetic);
}

double type7_interpolate(double lo_value, double hi_value, double h,
                         QuantileArithmetic arithmetic) {
  return interpolate(lo_value, hi_value, h, arithmetic);
}

double quantile_type7(std::span<const double> sorted, double p, QuantileArithmetic arithmetic) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const Bracket b = bracket(sorted.size(), p, arithmetic);
  return interpolate(sorted[b.lo], sorted[b.hi], b.h, arithmetic);
}

std::vector<double> quantiles_type7(std::vector<double>& values, std::span<const double> probs,
                                    QuantileArithmetic arithmetic) {
  std::vector<double> out(probs.size(), std::numeric_limits<double>::quiet_NaN());
  if (values.empty()) return out;
  const std::size_t n = values.size();
  // Order statistics needed, selected in increasing order on shrinking ranges.
  std::vector<std::size_t> need;
  for (double p : probs) {
    const Bracket b = bracket(n, p, arithmetic);
    need.push_back(b.lo);
    need.push_back(b.hi);
  }
  std::sort(need.begin(), need.end());
  need.erase(std::unique(need.begin(), need.end()), need.end());
  std::size_t from = 0;
  for (std::size_t k : need) {
    std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(from),
                     values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    from = k + 1;
  }
  for (std::size_t i = 0; i < probs.size(); ++i) {
    const Bracket b = bracket(n, probs[i], arithmetic);
    out[i] = interpolate(values[b.lo], values[b.hi], b.h, arithmetic);
  }
  return out;
}

}  // namespace synthaudit::stats
