#include "stats/weighted_ecdf.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace synthaudit::stats {

namespace {

double total(const WeightedSample& s) {
  return std::accumulate(s.weights.begin(), s.weights.end(), 0.0);
}

// Calls step(t, next_t, F_a(t), F_b(t)) for every pooled distinct value t in ascending order,
// next_t being the following pooled value (t itself for the last).
template <class Step>
void walk(const WeightedSample& a, const WeightedSample& b, double total_a, double total_b,
          Step step) {
  std::size_t i = 0, j = 0;
  double cum_a = 0, cum_b = 0;
  while (i < a.values.size() || j < b.values.size()) {
    const double t = j == b.values.size()   ? a.values[i]
                     : i == a.values.size() ? b.values[j]
                                            : std::min(a.values[i], b.values[j]);
    while (i < a.values.size() && a.values[i] == t) cum_a += a.weights[i++];
    while (j < b.values.size() && b.values[j] == t) cum_b += b.weights[j++];
    const double next = j == b.values.size()   ? (i == a.values.size() ? t : a.values[i])
                        : i == a.values.size() ? b.values[j]
                                               : std::min(a.values[i], b.values[j]);
    step(t, next, cum_a / total_a, cum_b / total_b);
  }
}

}  // namespace

WeightedSample weighted_sorted(std::span<const double> x, std::span<const double> weights) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < x.size(); ++r)
    if (!std::isnan(x[r])) rows.push_back(r);
  std::stable_sort(rows.begin(), rows.end(),
                   [&](std::size_t l, std::size_t r) { return x[l] < x[r]; });
  WeightedSample s;
  s.values.reserve(rows.size());
  s.weights.reserve(rows.size());
  for (std::size_t r : rows) {
    s.values.push_back(x[r]);
    s.weights.push_back(weights.empty() ? 1.0 : weights[r]);
  }
  return s;
}

double weighted_wasserstein1(const WeightedSample& a, const WeightedSample& b) {
  const double total_a = total(a), total_b = total(b);
  if (!(total_a > 0) || !(total_b > 0)) return std::nan("");
  double area = 0;
  walk(a, b, total_a, total_b, [&](double t, double next, double fa, double fb) {
    area += std::abs(fa - fb) * (next - t);
  });
  return area;
}

double weighted_ks_distance(const WeightedSample& a, const WeightedSample& b) {
  const double total_a = total(a), total_b = total(b);
  if (!(total_a > 0) || !(total_b > 0)) return std::nan("");
  double sup = 0;
  walk(a, b, total_a, total_b,
       [&](double, double, double fa, double fb) { sup = std::max(sup, std::abs(fa - fb)); });
  return sup;
}

}  // namespace synthaudit::stats
