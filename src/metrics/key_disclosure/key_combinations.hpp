#pragma once
// Counts per key combination as mergeable partition states (MergeableForm in metric.hpp), for the
// disclosure measures that are functions of how many records of each data set share each
// combination of key values. A combination is written in values that mean the same in every
// partition (a categorical code of the shared dictionary, a numeric value or its interval under
// user breaks), not in a partition's own dense coding, so the counts of consecutive row ranges
// add up to the whole tables' counts exactly; combinations are kept in ascending order, so the
// merged state does not depend on how the rows were cut.
#include <cstdint>
#include <map>
#include <vector>

#include "metrics/metric.hpp"
#include "metrics/partial_state.hpp"
#include "stats/equivalence_classes.hpp"
#include "stats/keys.hpp"

namespace synthaudit::keydisc {

// A record's key values, one per key; kMissingKey for a missing value.
using KeyCombination = std::vector<std::uint64_t>;
inline constexpr std::uint64_t kMissingKey = 0xffffffffffffffffull;

// Whether key combinations can be formed partition by partition under the key coding
// parameters: each distinct value (exact) or user breaks; quantile and equal-width bins take
// their break points from all rows, so they cannot.
bool combinations_mergeable(const Params& params);

struct CombinationCounts {
  std::size_t tables = 0;
  // counts[combination][t]: the records of table t with that combination.
  std::map<KeyCombination, std::vector<std::uint64_t>> counts;
  // With weights for the first table (count_combinations' `first_weights`): each combination's
  // weight sum in it; empty otherwise.
  std::map<KeyCombination, double> first_weight;

  void write(StateWriter& out) const;
  static CombinationCounts read(StateReader& in);
  void add(const CombinationCounts& other);
  std::uint64_t records(std::size_t table) const;
};

// The counts of `tables` (same schema) on the columns `key_columns`, numeric keys as `options`
// say (exact or breaks only).
CombinationCounts count_combinations(const std::vector<const Table*>& tables,
                                     const std::vector<std::size_t>& key_columns,
                                     const stats::CodingOptions& options,
                                     const std::vector<double>* first_weights = nullptr);

// The same counts in flat arrays, in the same ascending order of combinations, for the collective
// forms of the sdc-risk measures (sdc_risk/owned_combinations.hpp), whose ranks hold one such
// count of their own rows and one of the combinations they own: (keys + tables + 1) × 8 bytes per
// combination, a third or less of a map of vectors.
struct FlatCombinations {
  std::size_t keys = 0;
  std::size_t tables = 0;
  bool weighted = false;
  std::vector<std::uint64_t> values;  // combination i's key values at [i·keys, (i+1)·keys)
  std::vector<std::uint64_t> counts;  // its records of table t at i·tables + t
  std::vector<double> weight;         // its first-table weight sum, when weighted

  std::size_t size() const { return tables == 0 ? 0 : counts.size() / tables; }
  const std::uint64_t* key(std::size_t i) const { return values.data() + i * keys; }
  std::uint64_t count(std::size_t i, std::size_t table) const { return counts[i * tables + table]; }
  // Appends a combination after the last one (its key must be larger).
  void push(const std::uint64_t* key, const std::uint64_t* per_table, double first_weight);
};

// count_combinations' counts as FlatCombinations. The rows are sorted by their key values, not
// inserted into a map; each weight sum adds its rows in row order, as count_combinations does.
FlatCombinations count_flat_combinations(const std::vector<const Table*>& tables,
                                         const std::vector<std::size_t>& key_columns,
                                         const stats::CodingOptions& options,
                                         const std::vector<double>* first_weights = nullptr);

// The combinations that table `table` has, as key patterns of one record per combination
// (levels dense per key, the missing level last on every key), and each one's number of records:
// stats::class_frequencies with these as weights gives each combination's class size.
struct CombinationPatterns {
  stats::KeyPatterns patterns;
  std::vector<std::uint32_t> missing_levels;
  std::vector<double> records;
  std::vector<double> weight;  // the first table's weight sums, when counted
};
CombinationPatterns combination_patterns(const CombinationCounts& counts, std::size_t table);

}  // namespace synthaudit::keydisc
