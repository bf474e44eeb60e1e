#include "metrics/general/sorted_runs.hpp"

#include <span>

#include "core/threads.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/general/level_tally.hpp"
#include "stats/summary.hpp"

namespace synthaudit {

std::vector<std::size_t> compared_numeric_columns(const MetricInput& in) {
  std::vector<std::size_t> numeric;
  for (std::size_t c = 0; c < in.confidential.column_count(); ++c)
    if (in.confidential.column(c).is_numeric() && !is_design_column(in, c)) numeric.push_back(c);
  return numeric;
}

stats::WeightedSample sorted_run(const std::vector<double>& values,
                                 const std::vector<double>* weights) {
  // Without weights the values alone are sorted: equal values are indistinguishable, so the
  // stable order of the weighted path is not needed, and a direct sort is about twice as fast.
  if (weights == nullptr) return stats::WeightedSample{stats::sorted_values(values), {}};
  return stats::weighted_sorted(values, *weights);
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

MergedNumericRuns numeric_runs(const MetricInput& in, const Params& params) {
  const Table& syn = in.first_synthetic();
  const PartitionWeightColumns weights = partition_weight_columns(in, syn, params);
  MergedNumericRuns runs;
  runs.columns = compared_numeric_columns(in);
  runs.confidential.resize(runs.columns.size());
  runs.synthetic.resize(runs.columns.size());
  runs.facts = weights.synthetic_facts;
  const auto count = static_cast<std::ptrdiff_t>(2 * runs.columns.size());
#pragma omp parallel for schedule(dynamic) num_threads(parallel_threads())
  for (std::ptrdiff_t k = 0; k < count; ++k) {
    const auto i = static_cast<std::size_t>(k) / 2;
    const std::size_t c = runs.columns[i];
    if (k % 2 == 0)
      runs.confidential[i] = sorted_run(in.confidential.column(c).numeric, weights.confidential);
    else
      runs.synthetic[i] = sorted_run(syn.column(c).numeric, weights.synthetic_own);
  }
  return runs;
}

bool settle_weights(MergedNumericRuns& runs, const MetricInput& schema, const Params& params,
                    std::vector<std::string>& warnings) {
  const bool own = use_own_weights(schema, schema.first_synthetic(), runs.facts, params, warnings);
  const bool declared = !schema.context.weights.empty();
  if (declared && !own)
    for (auto& run : runs.synthetic) run.weights.assign(run.values.size(), 1.0);
  return declared;
}

std::string numeric_runs_state(const MetricInput& in, const Params& params) {
  const MergedNumericRuns runs = numeric_runs(in, params);
  StateWriter out;
  for (std::size_t i = 0; i < runs.columns.size(); ++i) {
    write_run(out, runs.confidential[i]);
    write_run(out, runs.synthetic[i]);
  }
  write_facts(out, runs.facts);
  return out.take();
}

MergedNumericRuns merge_numeric_runs(const std::vector<std::string>& states,
                                     const MetricInput& schema) {
  MergedNumericRuns merged;
  merged.columns = compared_numeric_columns(schema);
  merged.confidential.resize(merged.columns.size());
  merged.synthetic.resize(merged.columns.size());
  for (std::size_t p = 0; p < states.size(); ++p) {
    StateReader in(states[p]);
    for (std::size_t i = 0; i < merged.columns.size(); ++i) {
      merge_run(merged.confidential[i], read_run(in));
      merge_run(merged.synthetic[i], read_run(in));
    }
    merged.facts.merge_after(read_facts(in));
    in.expect_end();
  }
  return merged;
}

void for_each_co_sorted_column(
    const MetricInput& partition, Communicator& communicator,
    const std::function<void(std::size_t i, stats::CoSortedSamples& samples)>& visit) {
  const auto columns = compared_numeric_columns(partition);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::size_t c = columns[i];
    stats::CoSortedSamples samples(communicator, partition.confidential.column(c).numeric,
                                   partition.first_synthetic().column(c).numeric);
    visit(i, samples);
  }
}

bool co_sorted_columns_apply(const MetricInput& schema, const Params&) {
  return schema.context.weights.empty();
}

}  // namespace synthaudit
