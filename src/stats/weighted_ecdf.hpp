#pragma once
// Distances between two survey-weighted empirical distributions, F_w(t) = Σ_{x_i ≤ t} w_i / Σ w_i
// over the rows with a value (NaN dropped). With unit weights they are the unweighted distances.
#include <span>
#include <vector>

namespace synthaudit::stats {

// A sample's non-missing values in ascending order with their weights; empty `weights` = 1 each.
struct WeightedSample {
  std::vector<double> values;
  std::vector<double> weights;
};
WeightedSample weighted_sorted(std::span<const double> x, std::span<const double> weights);

// ∫ |F_a(t) − F_b(t)| dt, exact over the pooled distinct values (as
// scipy.stats.wasserstein_distance(u, v, u_weights, v_weights)). NaN when either sample has no
// positive total weight.
double weighted_wasserstein1(const WeightedSample& a, const WeightedSample& b);

// sup_t |F_a(t) − F_b(t)|, attained at a pooled value. NaN when either sample has no positive
// total weight.
double weighted_ks_distance(const WeightedSample& a, const WeightedSample& b);

}  // namespace synthaudit::stats
