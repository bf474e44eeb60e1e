#pragma once
// Two samples sorted together over the ranks of a Communicator (a sample sort), for statistics of
// whole-column order (the Kolmogorov–Smirnov distance, the Wasserstein-1 distance, quantiles)
// computed where the rows are, with no rank holding more than about its share of the values.
//
// The ranks agree on splitters s_0 ≤ … ≤ s_{P−2} from a regular sample of every rank's sorted
// values; rank r then holds every value v of both samples with s_{r−1} < v ≤ s_r (s_{−1} = −∞,
// s_{P−1} = +∞), merged in ascending order. Every copy of a value lies on one rank, so the
// distinct values and the counts at or below each of them are those of the whole sample, and
// the statistics below are bit-identical to the same functions over the whole sorted samples
// (stats/ecdf.hpp, stats/distribution.hpp, stats/quantile.hpp). Many copies of one value all go
// to one rank, which then holds more than its share.
//
// Every member that takes no argument but the object, or positions, or points, is a collective
// (all ranks call it in the same order) and returns the same value on every rank.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/communicator.hpp"
#include "stats/quantile.hpp"

namespace synthaudit::stats {

class CoSortedSamples {
 public:
  enum Sample { kFirst, kSecond, kPooled };

  // Collective. `first` and `second` are this rank's values of the two samples, in any order;
  // NaN (missing) is left out.
  CoSortedSamples(Communicator& communicator, std::span<const double> first,
                  std::span<const double> second);

  std::uint64_t size(Sample sample) const;  // over every rank
  // This rank's range of the first or second sample, ascending.
  const std::vector<double>& local(Sample sample) const;

  // Collective: the values at 0-based positions of the whole sorted sample (each < size).
  std::vector<double> at(Sample sample, const std::vector<std::uint64_t>& positions);
  // Collective: quantile_type7 of the whole sorted sample at each probability (NaN when empty).
  std::vector<double> quantiles_type7(Sample sample, const std::vector<double>& probabilities,
                                      QuantileArithmetic arithmetic);
  // Collective: how many values of the whole sample are ≤ each x.
  std::vector<std::uint64_t> count_at_or_below(Sample sample, const std::vector<double>& xs);

  // Collective: ks_distance_sorted(first, second) of the whole samples.
  double ks_distance();
  // Collective: wasserstein1_sorted(first, second) of the whole samples. Each rank computes the
  // terms of its distinct values (the last one's reaching to the next rank's first value) and the
  // ranks add them in turn, each continuing the previous rank's running sum, so the sum is
  // formed in the single pass's order.
  double wasserstein1();

 private:
  std::uint64_t below(Sample sample) const;  // values on lower ranks
  // The k-th smallest (0-based) of this rank's pooled values.
  double local_pooled(std::uint64_t k) const;

  Communicator& communicator_;
  std::vector<double> first_, second_;
  // Per rank: how many values of each sample it holds, and its smallest pooled value.
  std::vector<std::uint64_t> first_counts_, second_counts_;
  std::vector<double> smallest_;
};

}  // namespace synthaudit::stats
