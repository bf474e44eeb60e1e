#pragma once
// Sample quantiles of type 7 in Hyndman & Fan (1996), "Sample quantiles in statistical packages":
// linear interpolation between the order statistics x[⌊h⌋] and x[⌊h⌋+1] at h = (n − 1)p (0-based),
// the default of R's quantile() and of numpy.quantile / pandas Series.quantile ('linear').
// The two packages write the interpolation differently, which moves the last bit of some results;
// a caller that must match one of them to the bit picks its arithmetic.
#include <span>
#include <vector>

namespace synthaudit::stats {

enum class QuantileArithmetic {
  kR,      // R 4.x quantile(type = 7): index = 1 + (n − 1)p, h = index − ⌊index⌋,
           // (1 − h)·x[lo] + h·x[hi]; x[lo] when h = 0 or x[lo] = x[hi]
  kNumpy,  // numpy ≥ 1.22 _lerp: a + h(b − a), or b − (1 − h)(b − a) when h ≥ 0.5
};

// Quantile of probability p ∈ [0, 1] of an ascending sample without NaN; NaN when it is empty.
double quantile_type7(std::span<const double> sorted, double p,
                      QuantileArithmetic arithmetic = QuantileArithmetic::kR);

// The same for several probabilities of an unsorted sample without NaN, by selecting only the
// order statistics needed (O(n) per distinct statistic instead of a full sort); reorders `values`.
std::vector<double> quantiles_type7(std::vector<double>& values, std::span<const double> probs,
                                    QuantileArithmetic arithmetic = QuantileArithmetic::kR);

}  // namespace synthaudit::stats
