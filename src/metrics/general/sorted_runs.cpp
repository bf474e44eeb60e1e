#include "metrics/general/sorted_runs.hpp"

#include <span>

#include "metrics/design_weights.hpp"

namespace synthaudit {

std::vector<std::size_t> compared_numeric_columns(const MetricInput& in) {
  std::vector<std::size_t> numeric;
  for (std::size_t c = 0; c < in.confidential.column_count(); ++c)
    if (in.confidential.column(c).is_numeric() && !is_design_column(in, c)) numeric.push_back(c);
  return numeric;
}

stats::WeightedSample sorted_run(const std::vector<double>& values,
                                 const std::vector<double>* weights) {
  auto run = stats::weighted_sorted(
      values, weights ? std::span<const double>(*weights) : std::span<const double>());
  if (weights == nullptr) run.weights.clear();
  return run;
}

void write_run(StateWriter& out, const stats::WeightedSample& run) {
  out.f64s(run.values);
  out.f64s(run.weights);
}

stats::WeightedSample read_run(StateReader& in) {
  stats::WeightedSample run;
  run.values = in.f64s();
  run.weights = in.f64s();
  return run;
}

void merge_run(stats::WeightedSample& into, stats::WeightedSample run) {
  if (run.values.empty()) return;
  if (into.values.empty()) {
    into = std::move(run);
    return;
  }
  stats::WeightedSample merged;
  merged.values.reserve(into.values.size() + run.values.size());
  const bool weighted = !into.weights.empty();
  std::size_t i = 0, j = 0;
  while (i < into.values.size() || j < run.values.size()) {
    const bool take_run =
        i == into.values.size() || (j < run.values.size() && run.values[j] < into.values[i]);
    if (take_run) {
      merged.values.push_back(run.values[j]);
      if (weighted) merged.weights.push_back(run.weights[j]);
      ++j;
    } else {
      merged.values.push_back(into.values[i]);
      if (weighted) merged.weights.push_back(into.weights[i]);
      ++i;
    }
  }
  into = std::move(merged);
}

}  // namespace synthaudit
