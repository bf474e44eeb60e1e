#include "stats/binning.hpp"

#include <algorithm>
#include <cmath>

#include "stats/quantile.hpp"

namespace synthaudit::stats {

std::vector<double> quantile_breaks(std::vector<double>& values, int ngroups) {
  if (values.empty() || ngroups < 1) return {};
  // R: seq(0, 1, 1/n) is from + (0:n) * by.
  const double by = 1.0 / static_cast<double>(ngroups);
  std::vector<double> probs;
  for (int i = 0; i <= ngroups; ++i) probs.push_back(static_cast<double>(i) * by);
  auto breaks = quantiles_type7(values, probs, QuantileArithmetic::kR);
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());  // sorted already
  return breaks;
}

std::vector<double> equal_width_edges(std::span<const double> values, int bins) {
  if (values.empty() || bins < 1) return {};
  auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  return equal_width_edges(*lo_it, *hi_it, bins);
}

std::vector<double> equal_width_edges(double first, double last, int bins) {
  if (bins < 1) return {};
  if (first == last) {
    first -= 0.5;
    last += 0.5;
  }
  const double step = (last - first) / static_cast<double>(bins);
  std::vector<double> edges(static_cast<std::size_t>(bins) + 1);
  for (int i = 0; i <= bins; ++i)
    edges[static_cast<std::size_t>(i)] = static_cast<double>(i) * step + first;
  edges.back() = last;
  return edges;
}

std::span<const double> interior(std::span<const double> breaks) {
  if (breaks.size() <= 2) return {};
  return breaks.subspan(1, breaks.size() - 2);
}

std::uint32_t interval_index(double x, std::span<const double> cuts, IntervalClosure closure) {
  const auto at = closure == IntervalClosure::kLeft ? std::upper_bound(cuts.begin(), cuts.end(), x)
                                                    : std::lower_bound(cuts.begin(), cuts.end(), x);
  return static_cast<std::uint32_t>(at - cuts.begin());
}

std::vector<HistogramBin> histogram(std::span<const double> values, double lo, double hi,
                                    std::size_t bins) {
  std::vector<HistogramBin> out;
  if (bins == 0) return out;
  const double width =
      hi > lo ? (hi - lo) / static_cast<double>(bins) : 1.0 / static_cast<double>(bins);
  for (std::size_t b = 0; b < bins; ++b)
    out.push_back(
        {lo + width * static_cast<double>(b), lo + width * static_cast<double>(b + 1), 0});
  if (hi > lo) out.back().end = hi;
  for (double v : values) {
    if (std::isnan(v)) continue;
    const double position = std::floor((v - lo) / width);
    ++out[static_cast<std::size_t>(std::clamp(position, 0.0, static_cast<double>(bins - 1)))].count;
  }
  return out;
}

}  // namespace synthaudit::stats
