#include "metrics/general/level_tally.hpp"

#include "stats/level_counts.hpp"

namespace synthaudit {

void LevelTally::write(StateWriter& out) const {
  out.u64s(rows);
  out.f64s(weight);
}

LevelTally LevelTally::read(StateReader& in) {
  LevelTally tally;
  tally.rows = in.u64s();
  tally.weight = in.f64s();
  return tally;
}

void LevelTally::add(const LevelTally& other) {
  add_into(rows, other.rows);
  add_into(weight, other.weight);
}

LevelTally tally_levels(const Column& column, const std::vector<double>* weights) {
  LevelTally tally;
  const auto counts = stats::level_counts(column);
  tally.rows.assign(counts.begin(), counts.end());
  if (weights != nullptr) {
    tally.weight.assign(column.cardinality() + 1, 0.0);
    for (std::size_t i = 0; i < column.codes.size(); ++i)
      tally.weight[column.missing(i) ? column.cardinality() : column.codes[i]] += (*weights)[i];
  }
  return tally;
}

PartitionWeightColumns partition_weight_columns(const MetricInput& partition,
                                                const Table& synthetic, const Params& params) {
  PartitionWeightColumns columns;
  if (partition.context.weights.empty()) return columns;
  const std::size_t w = partition.confidential.index_of(partition.context.weights);
  columns.confidential = &partition.confidential.column(w).numeric;
  columns.synthetic_facts = weight_column_facts(synthetic.column(w));
  if (own_weights_possible(partition, params)) columns.synthetic_own = &synthetic.column(w).numeric;
  return columns;
}

}  // namespace synthaudit
