#pragma once
// Sample quantiles of type 7 in Hyndman & Fan (1996), "Sample quantiles in statistical packages":
// linear interpolation between the order statistics x[⌊h⌋] and x[⌊h⌋+1] at h = (n − 1)p (0-based),
// the default of R's quantile() and of numpy.quantile / pandas Series.quantile ('linear').
// The two packages write the interpolation differently, which moves the last bit of some results;
// a caller that must match one of them to the bit picks its arithmetic.
#include <cstddef>
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

// What quantile_type7 reads of n sorted values for probability p: the order statistics `lo` and
// `hi` (0-based) and the weight `h` of the upper one; and how it combines them. For samples whose
// values are not in one place (spread over ranks): the same bracket and the same arithmetic give
// the same bits as quantile_type7 on the whole sample.
struct Type7Bracket {
  std::size_t lo, hi;
  double h;
};
Type7Bracket type7_bracket(std::size_t n, double p,
                           QuantileArithmetic arithmetic = QuantileArithmetic::kR);
double type7_interpolate(double lo_value, double hi_value, double h,
                         QuantileArithmetic arithmetic = QuantileArithmetic::kR);

// The same for several probabilities of an unsorted sample without NaN, by selecting only the
// order statistics needed (O(n) per distinct statistic instead of a full sort); reorders `values`.
std::vector<double> quantiles_type7(std::vector<double>& values, std::span<const double> probs,
                                    QuantileArithmetic arithmetic = QuantileArithmetic::kR);

}  // namespace synthaudit::stats
