#pragma once
// Exact merges of sorted runs, the partition state of the rank-based marginal metrics
// (ks_distance, wasserstein_distance): a partition sends each compared column's non-missing values
// in ascending order (with their weights where weights can apply), and the merging process merges
// the runs in partition order, which is the stable sort of the whole column. The merging process
// holds every value of the columns it merges.
#include <functional>
#include <vector>

#include "core/communicator.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/partial_state.hpp"
#include "stats/distributed_sort.hpp"
#include "stats/weighted_ecdf.hpp"

namespace synthaudit {

// The numeric columns that are not design variables.
std::vector<std::size_t> compared_numeric_columns(const MetricInput& in);

// The column's non-missing values in ascending order (ties in row order), with their weights
// when `weights` is set (else no weights).
stats::WeightedSample sorted_run(const std::vector<double>& values,
                                 const std::vector<double>* weights);
void write_run(StateWriter& out, const stats::WeightedSample& run);
stats::WeightedSample read_run(StateReader& in);
// `run` merged after `into` (ties: `into`'s values first).
void merge_run(stats::WeightedSample& into, stats::WeightedSample run);

// The whole state of a metric that compares each compared numeric column's confidential and
// synthetic values (the first synthetic table): the column's two sorted runs, then the facts
// about the synthetic weight column (design_weights.hpp).
std::string numeric_runs_state(const MetricInput& in, const Params& params);

// The states above merged in partition order: per compared column, the whole confidential and
// synthetic samples, and the synthetic weight facts of the whole table.
struct MergedNumericRuns {
  std::vector<std::size_t> columns;
  std::vector<stats::WeightedSample> confidential, synthetic;
  WeightColumnFacts facts;
};
MergedNumericRuns merge_numeric_runs(const std::vector<std::string>& states,
                                     const MetricInput& schema);

// The same runs straight from one process's tables (what a single state would merge to), the
// columns sorted in parallel: the metrics' compute is their finalize over these.
MergedNumericRuns numeric_runs(const MetricInput& in, const Params& params);

// Settles the synthetic side's weights (its own column where use_own_weights chooses it, with its
// warnings; else every synthetic value weighs 1) and says whether design weights are declared.
bool settle_weights(MergedNumericRuns& runs, const MetricInput& schema, const Params& params,
                    std::vector<std::string>& warnings);

// Collective (CollectiveForm): every compared numeric column's non-missing values of the
// confidential table (the first sample) and the first synthetic table (the second) sorted
// together over the ranks (stats/distributed_sort.hpp), one column at a time, so that a rank
// holds about its share of one column's values beside its partition; `visit(i, samples)` for the
// i-th compared column. Unweighted: design weights are not carried.
void for_each_co_sorted_column(
    const MetricInput& partition, Communicator& communicator,
    const std::function<void(std::size_t i, stats::CoSortedSamples& samples)>& visit);

// Whether the co-sorted columns give the metric's numbers: no design weights are declared.
bool co_sorted_columns_apply(const MetricInput& schema, const Params& params);

}  // namespace synthaudit
