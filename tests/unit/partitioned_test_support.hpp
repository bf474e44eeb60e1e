#pragma once
// Helpers for the tests that cut the tables into consecutive row ranges, one per thread rank
// (run_thread_group), and compare a metric's collective and mergeable forms there with one process
// on the whole tables.
#include <cmath>
#include <cstring>
#include <vector>

#include "core/communicator.hpp"
#include "metrics/metric.hpp"
#include "table/table.hpp"

namespace synthaudit::testing {

// Equal, or both NaN.
inline bool same_bits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

// Row ranges of `rows` for `ranks` ranks: uneven, with an empty range from 3 ranks on.
inline std::vector<std::size_t> cuts(std::size_t rows, int ranks) {
  switch (ranks) {
    case 1:
      return {0, rows};
    case 2:
      return {0, rows * 3 / 10, rows};
    case 3:
      return {0, rows / 2, rows / 2, rows};
    default:
      return {0, rows / 10, rows * 6 / 10, rows * 6 / 10, rows};
  }
}

// The rows of `table` in rank `rank`'s range of the ranges `at`.
inline Table rows_of(const Table& table, const std::vector<std::size_t>& at, int rank) {
  std::vector<std::size_t> rows;
  for (std::size_t r = at[static_cast<std::size_t>(rank)];
       r < at[static_cast<std::size_t>(rank) + 1]; ++r)
    rows.push_back(r);
  return select_rows(table, rows, table.source());
}

// The root's results of a metric's two partitioned forms on the same partitions.
struct PartitionedResults {
  MetricResult collective;
  MetricResult merged;  // the mergeable form's partial states, finalized at the root
};

// `metric`'s collective and mergeable forms on `ranks` thread ranks, each holding its range
// (cuts) of both tables.
inline PartitionedResults run_partitioned(const MetricSpec& metric, const Table& confidential,
                                          const Table& synthetic, const EvaluationContext& context,
                                          const Params& params, int ranks) {
  const auto conf_cuts = cuts(confidential.rows(), ranks);
  const auto syn_cuts = cuts(synthetic.rows(), ranks);
  PartitionedResults results;
  run_thread_group(ranks, [&](Communicator& communicator) {
    const Table conf = rows_of(confidential, conf_cuts, communicator.rank());
    const Table syn = rows_of(synthetic, syn_cuts, communicator.rank());
    const MetricInput partition{conf, {&syn}, nullptr, context, "c", 1};
    MetricResult result = metric.collective->run(partition, params, communicator);
    const auto states = communicator.gather(metric.mergeable->partial_state(partition, params));
    if (communicator.is_root()) {
      results.collective = std::move(result);
      results.merged = metric.mergeable->finalize(states, partition, params);
    }
  });
  return results;
}

}  // namespace synthaudit::testing
