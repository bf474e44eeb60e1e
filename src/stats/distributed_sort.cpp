#include "stats/distributed_sort.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/wire_bytes.hpp"
#include "stats/summary.hpp"

namespace synthaudit::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Samples per rank for choosing splitters: enough that a range's size is within a few percent of
// its share when values are distinct.
std::size_t regular_sample_size(int ranks) { return 32 * static_cast<std::size_t>(ranks); }

// The k-th smallest (0-based) value of the merge of two ascending runs, without merging them.
double kth_of_two(const std::vector<double>& a, const std::vector<double>& b, std::size_t k) {
  // i values come from `a` and k + 1 − i from `b`; the smallest i at which b's part does not
  // reach past a's next value is the split of the first k + 1 merged values.
  std::size_t lo = k + 1 > b.size() ? k + 1 - b.size() : 0;
  std::size_t hi = std::min(k + 1, a.size());
  while (lo < hi) {
    const std::size_t i = lo + (hi - lo) / 2;
    const std::size_t j = k + 1 - i;
    if (j == 0 || i == a.size() || b[j - 1] <= a[i])
      hi = i;
    else
      lo = i + 1;
  }
  const std::size_t j = k + 1 - lo;
  double value = -kInfinity;
  if (lo > 0) value = a[lo - 1];
  if (j > 0) value = std::max(value, b[j - 1]);
  return value;
}

// Ascending runs laid end to end, merged in place pairwise (log2(runs) passes).
void merge_runs(std::vector<double>& values, std::vector<std::size_t> bounds) {
  while (bounds.size() > 2) {
    std::vector<std::size_t> next = {0};
    for (std::size_t r = 0; r + 1 < bounds.size(); r += 2) {
      if (r + 2 < bounds.size()) {
        std::inplace_merge(values.begin() + static_cast<std::ptrdiff_t>(bounds[r]),
                           values.begin() + static_cast<std::ptrdiff_t>(bounds[r + 1]),
                           values.begin() + static_cast<std::ptrdiff_t>(bounds[r + 2]));
        next.push_back(bounds[r + 2]);
      } else {
        next.push_back(bounds[r + 1]);
      }
    }
    bounds = std::move(next);
  }
}

// Splitters agreed by every rank from the same gathered samples: each sample value stands for
// `weight` values at or below it on its rank; splitter r is the first value at which the
// cumulative weight reaches r/P of the total.
std::vector<double> choose_splitters(const std::vector<std::string>& gathered, int ranks) {
  std::vector<std::pair<double, std::uint64_t>> samples;
  std::uint64_t total = 0;
  for (const auto& bytes : gathered) {
    WireReader in(bytes);
    const auto values = in.get_vector<double>();
    const auto weights = in.get_vector<std::uint64_t>();
    for (std::size_t k = 0; k < values.size(); ++k) {
      samples.emplace_back(values[k], weights[k]);
      total += weights[k];
    }
  }
  std::sort(samples.begin(), samples.end());
  std::vector<double> splitters;
  std::uint64_t cumulative = 0;
  std::size_t next = 0;
  for (int r = 1; r < ranks; ++r) {
    // The smallest cumulative weight with cumulative · P ≥ r · total (integers: exact).
    const auto target = static_cast<unsigned __int128>(r) * total;
    while (next < samples.size() &&
           static_cast<unsigned __int128>(cumulative) * static_cast<unsigned>(ranks) < target) {
      cumulative += samples[next].second;
      ++next;
    }
    splitters.push_back(next == 0 ? -kInfinity : samples[next - 1].first);
  }
  return splitters;
}

}  // namespace

CoSortedSamples::CoSortedSamples(Communicator& communicator, std::span<const double> first_values,
                                 std::span<const double> second_values)
    : communicator_(communicator) {
  const int ranks = communicator.size();
  std::vector<double> first = sorted_values(first_values);
  std::vector<double> second = sorted_values(second_values);
  if (ranks == 1) {
    first_ = std::move(first);
    second_ = std::move(second);
  } else {
    {
      const std::size_t pooled = first.size() + second.size();
      const std::size_t count = std::min(pooled, regular_sample_size(ranks));
      std::vector<double> values;
      std::vector<std::uint64_t> weights;
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t from = k * pooled / count, to = (k + 1) * pooled / count;
        values.push_back(kth_of_two(first, second, to - 1));
        weights.push_back(to - from);
      }
      WireWriter out;
      out.put_vector(values);
      out.put_vector(weights);
      const std::vector<double> splitters =
          choose_splitters(communicator.all_gather(out.take()), ranks);
      // Rank r's share: values ≤ splitters[r] and above splitters[r − 1].
      std::vector<std::string> outgoing(static_cast<std::size_t>(ranks));
      std::size_t first_from = 0, second_from = 0;
      for (std::size_t r = 0; r < outgoing.size(); ++r) {
        auto end_of = [&](const std::vector<double>& run) {
          if (r + 1 == outgoing.size()) return run.size();
          return static_cast<std::size_t>(std::upper_bound(run.begin(), run.end(), splitters[r]) -
                                          run.begin());
        };
        const std::size_t first_to = std::max(first_from, end_of(first));
        const std::size_t second_to = std::max(second_from, end_of(second));
        WireWriter message;
        message.put_vector(
            std::vector<double>(first.begin() + static_cast<std::ptrdiff_t>(first_from),
                                first.begin() + static_cast<std::ptrdiff_t>(first_to)));
        message.put_vector(
            std::vector<double>(second.begin() + static_cast<std::ptrdiff_t>(second_from),
                                second.begin() + static_cast<std::ptrdiff_t>(second_to)));
        outgoing[r] = message.take();
        first_from = first_to;
        second_from = second_to;
      }
      first = {};
      second = {};
      std::vector<std::string> incoming = communicator.all_to_all(std::move(outgoing));
      std::vector<std::size_t> first_bounds = {0}, second_bounds = {0};
      for (auto& bytes : incoming) {
        {
          WireReader in(bytes);
          const auto a = in.get_vector<double>();
          first_.insert(first_.end(), a.begin(), a.end());
          const auto b = in.get_vector<double>();
          second_.insert(second_.end(), b.begin(), b.end());
        }
        first_bounds.push_back(first_.size());
        second_bounds.push_back(second_.size());
        bytes = std::string();
      }
      merge_runs(first_, std::move(first_bounds));
      merge_runs(second_, std::move(second_bounds));
    }
  }
  WireWriter out;
  out.put<std::uint64_t>(first_.size());
  out.put<std::uint64_t>(second_.size());
  const double smallest = std::min(first_.empty() ? kInfinity : first_.front(),
                                   second_.empty() ? kInfinity : second_.front());
  out.put(smallest);
  for (const auto& bytes : communicator.all_gather(out.take())) {
    WireReader in(bytes);
    first_counts_.push_back(in.get<std::uint64_t>());
    second_counts_.push_back(in.get<std::uint64_t>());
    smallest_.push_back(in.get<double>());
  }
}

std::uint64_t CoSortedSamples::size(Sample sample) const {
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < first_counts_.size(); ++r) {
    if (sample != kSecond) total += first_counts_[r];
    if (sample != kFirst) total += second_counts_[r];
  }
  return total;
}

const std::vector<double>& CoSortedSamples::local(Sample sample) const {
  if (sample == kPooled) throw std::logic_error("CoSortedSamples::local: pooled is not held");
  return sample == kFirst ? first_ : second_;
}

std::uint64_t CoSortedSamples::below(Sample sample) const {
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < static_cast<std::size_t>(communicator_.rank()); ++r) {
    if (sample != kSecond) total += first_counts_[r];
    if (sample != kFirst) total += second_counts_[r];
  }
  return total;
}

double CoSortedSamples::local_pooled(std::uint64_t k) const {
  return kth_of_two(first_, second_, static_cast<std::size_t>(k));
}

std::vector<double> CoSortedSamples::at(Sample sample,
                                        const std::vector<std::uint64_t>& positions) {
  const std::uint64_t whole = size(sample);
  const std::uint64_t from = below(sample);
  const std::uint64_t held = sample == kFirst    ? first_.size()
                             : sample == kSecond ? second_.size()
                                                 : first_.size() + second_.size();
  // A rank fills the positions it holds and leaves the others NaN (no value is NaN).
  std::vector<double> mine(positions.size(), kNaN);
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (positions[k] >= whole) throw std::logic_error("CoSortedSamples::at: position past the end");
    if (positions[k] < from || positions[k] - from >= held) continue;
    const std::uint64_t local = positions[k] - from;
    mine[k] = sample == kFirst    ? first_[local]
              : sample == kSecond ? second_[local]
                                  : local_pooled(local);
  }
  WireWriter out;
  out.put_vector(mine);
  std::vector<double> values(positions.size(), kNaN);
  for (const auto& bytes : communicator_.all_gather(out.take())) {
    WireReader in(bytes);
    const auto part = in.get_vector<double>();
    for (std::size_t k = 0; k < part.size(); ++k)
      if (!std::isnan(part[k])) values[k] = part[k];
  }
  return values;
}

std::vector<double> CoSortedSamples::quantiles_type7(Sample sample,
                                                     const std::vector<double>& probabilities,
                                                     QuantileArithmetic arithmetic) {
  const std::uint64_t n = size(sample);
  if (n == 0) return std::vector<double>(probabilities.size(), kNaN);
  std::vector<Type7Bracket> brackets;
  std::vector<std::uint64_t> positions;
  for (double p : probabilities) {
    brackets.push_back(type7_bracket(static_cast<std::size_t>(n), p, arithmetic));
    positions.push_back(brackets.back().lo);
    positions.push_back(brackets.back().hi);
  }
  const auto values = at(sample, positions);
  std::vector<double> quantiles;
  for (std::size_t k = 0; k < brackets.size(); ++k)
    quantiles.push_back(
        type7_interpolate(values[2 * k], values[2 * k + 1], brackets[k].h, arithmetic));
  return quantiles;
}

std::vector<std::uint64_t> CoSortedSamples::count_at_or_below(Sample sample,
                                                              const std::vector<double>& xs) {
  auto count = [](const std::vector<double>& run, double x) {
    return static_cast<std::uint64_t>(std::upper_bound(run.begin(), run.end(), x) - run.begin());
  };
  std::vector<std::uint64_t> mine;
  for (double x : xs)
    mine.push_back((sample != kSecond ? count(first_, x) : 0) +
                   (sample != kFirst ? count(second_, x) : 0));
  WireWriter out;
  out.put_vector(mine);
  std::vector<std::uint64_t> counts(xs.size(), 0);
  for (const auto& bytes : communicator_.all_gather(out.take())) {
    WireReader in(bytes);
    const auto part = in.get_vector<std::uint64_t>();
    for (std::size_t k = 0; k < part.size(); ++k) counts[k] += part[k];
  }
  return counts;
}

double CoSortedSamples::ks_distance() {
  const std::uint64_t n_first = size(kFirst), n_second = size(kSecond);
  if (n_first == 0 || n_second == 0) return kNaN;
  const double na = static_cast<double>(n_first);
  const double nb = static_cast<double>(n_second);
  const std::uint64_t first_below = below(kFirst), second_below = below(kSecond);
  // Every distinct value of this rank's range, with the whole samples' counts at or below it. The
  // single pass stops when one sample runs out; the points after it only come closer to 0, so
  // visiting them leaves the supremum as it is.
  std::size_t i = 0, j = 0;
  double d = 0.0;
  while (i < first_.size() || j < second_.size()) {
    const double t = std::min(i < first_.size() ? first_[i] : kInfinity,
                              j < second_.size() ? second_[j] : kInfinity);
    while (i < first_.size() && first_[i] == t) ++i;
    while (j < second_.size() && second_[j] == t) ++j;
    d = std::max(d, std::abs(static_cast<double>(first_below + i) / na -
                             static_cast<double>(second_below + j) / nb));
  }
  WireWriter out;
  out.put(d);
  double whole = 0.0;
  for (const auto& bytes : communicator_.all_gather(out.take())) {
    WireReader in(bytes);
    whole = std::max(whole, in.get<double>());
  }
  return whole;
}

double CoSortedSamples::wasserstein1() {
  const std::uint64_t n_first = size(kFirst), n_second = size(kSecond);
  if (n_first == 0 || n_second == 0) return kNaN;
  const double na = static_cast<double>(n_first);
  const double nb = static_cast<double>(n_second);
  const std::uint64_t first_below = below(kFirst), second_below = below(kSecond);
  // The first value of the next rank that holds any: where this rank's last gap ends.
  double after = kInfinity;
  for (std::size_t r = static_cast<std::size_t>(communicator_.rank()) + 1; r < smallest_.size();
       ++r)
    if (first_counts_[r] + second_counts_[r] > 0) {
      after = smallest_[r];
      break;
    }
  std::vector<double> terms;
  std::size_t i = 0, j = 0;
  while (i < first_.size() || j < second_.size()) {
    const double t = std::min(i < first_.size() ? first_[i] : kInfinity,
                              j < second_.size() ? second_[j] : kInfinity);
    while (i < first_.size() && first_[i] == t) ++i;
    while (j < second_.size() && second_[j] == t) ++j;
    if (first_below + i == n_first && second_below + j == n_second) break;
    const double next = (i < first_.size() || j < second_.size())
                            ? std::min(i < first_.size() ? first_[i] : kInfinity,
                                       j < second_.size() ? second_[j] : kInfinity)
                            : after;
    terms.push_back(std::abs(static_cast<double>(first_below + i) / na -
                             static_cast<double>(second_below + j) / nb) *
                    (next - t));
  }
  // The ranks add their terms in turn, so the sum is formed in the order of one pass.
  double total = 0.0;
  for (int r = 0; r < communicator_.size(); ++r) {
    WireWriter out;
    if (r == communicator_.rank()) {
      for (double term : terms) total += term;
      out.put(total);
    }
    const std::string bytes = communicator_.broadcast(out.take(), r);
    WireReader in(bytes);
    total = in.get<double>();
  }
  return total;
}

}  // namespace synthaudit::stats
