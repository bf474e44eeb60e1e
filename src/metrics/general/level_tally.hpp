#pragma once
// Per-level counts of categorical columns as mergeable partition states (MergeableForm): rows per
// level and, for survey weights, weight sums per level. Counts of consecutive row ranges add up to
// the whole column's counts exactly; weight sums up to the order of floating-point addition.
#include <cstdint>
#include <vector>

#include "metrics/design_weights.hpp"
#include "metrics/partial_state.hpp"
#include "table/table.hpp"

namespace synthaudit {

// Slot k < cardinality is level k, the last slot is missing (as stats::level_counts).
struct LevelTally {
  std::vector<std::uint64_t> rows;
  std::vector<double> weight;  // empty when no weights were summed

  void write(StateWriter& out) const;
  static LevelTally read(StateReader& in);
  void add(const LevelTally& other);
  std::vector<double> rows_as_doubles() const { return {rows.begin(), rows.end()}; }
};

// `weights`: one per row of `column`, or null for counts only.
LevelTally tally_levels(const Column& column, const std::vector<double>* weights);

// The weight columns a partition sums with: the confidential table's declared weights (null when
// none are declared) and the synthetic table's own weight column (null unless own weights are
// possible, own_weights_possible), with the facts finalize decides from (use_own_weights).
struct PartitionWeightColumns {
  const std::vector<double>* confidential = nullptr;
  const std::vector<double>* synthetic_own = nullptr;
  WeightColumnFacts synthetic_facts;

  void write_facts(StateWriter& out) const { synthaudit::write_facts(out, synthetic_facts); }
};
PartitionWeightColumns partition_weight_columns(const MetricInput& partition,
                                                const Table& synthetic, const Params& params);

}  // namespace synthaudit
