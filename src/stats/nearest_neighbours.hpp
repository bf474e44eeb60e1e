#pragma once
// Exact k-nearest-neighbour search between two tables (query rows -> reference rows) under
// Gower, Euclidean (standardised numerics), Hamming or cosine distance. Memory O(n + m): no
// distance matrix is ever formed. Results are exact (equal to a plain double loop computing the
// formulas below, ties broken by the lowest reference row index) and do not depend on the
// thread count.
//
// Distances over the p selected columns (all columns when `columns` is empty):
//   Gower:     d = (S_num + C) / p, where S_num = sum over numeric columns, in column order, of
//              min(|x − y| / R, 1) (R = max − min of the column in the `scale` table, which is the
//              reference table unless given), and C = number of the other columns that differ.
//              Missing values: both missing = 0, one missing = 1. A numeric column whose range is
//              0 or undefined (all missing) counts as categorical (0 when equal, 1 otherwise).
//              This is SDMetrics' per-column rule (dcr_utils.calculate_dcr), capped at 1 so a
//              query value outside the reference range counts like a categorical mismatch.
//   Hamming:   d = (number of columns that differ) / p; missing equals missing.
//   Euclidean: d = sqrt(sum over numeric columns of ((x − y) / s)^2), s = standard deviation
//              (n − 1) in the scale table; categorical columns are ignored; a missing numeric
//              value is replaced by the scale table's column mean (contributes as if average).
//   Cosine:    d = 1 − u·v / (|u| |v|) over the numeric columns standardised as z = (x − mean)/s
//              (missing -> 0, the mean); d = 1 when either vector is zero.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/progress.hpp"
#include "table/table.hpp"

namespace synthaudit::stats {

enum class DistanceKind { kGower, kEuclidean, kHamming, kCosine };
const char* to_string(DistanceKind kind);
// Throws InputError naming `where` for an unknown name.
DistanceKind distance_from_string(const std::string& name, const std::string& where);

// How the Gower/Hamming search is organised; results are identical in every mode.
//   kFullScan:  every query against every reference row (the test oracle).
//   kGrouped:   reference rows grouped by their signature on the categorical columns with the
//               fewest values (as many columns as keep 64+ rows per group on average, at least
//               one); groups visited in order of their mismatch count, the other categorical
//               columns counted in the fast pass, and inside a group only the rows whose numeric
//               projection (below) is close enough to beat the current k-th distance.
//   kProjected: one group of all rows, pruned by the numeric projection alone.
//   kAuto:      grouped when the signatures are few and queries share them; otherwise
//               projected when a sample of queries shows that the projection prunes at least half
//               of the pairs; otherwise the full scan.
// The projection of a record is the sum of its numeric columns scaled by the range to [0, 1]
// (clamped; missing counts 0.5); the gap between two records' projections is at most the numeric
// part of their Gower distance times p, so skipping rows beyond the gap is exact.
enum class SearchMode { kAuto, kFullScan, kGrouped, kProjected };

// What a search takes from its scale table, per numeric column: the smallest and largest
// non-missing value (Gower ranges), the mean and the standard deviation (n − 1) of the non-missing
// values (Euclidean, cosine). Sums run in row order, so the same rows give the same bits.
// NaN where undefined (no value; sd with one value; every categorical column).
struct ColumnScale {
  double lo = std::numeric_limits<double>::quiet_NaN();
  double hi = std::numeric_limits<double>::quiet_NaN();
  double mean = std::numeric_limits<double>::quiet_NaN();
  double sd = std::numeric_limits<double>::quiet_NaN();
};
using DistanceScales = std::vector<ColumnScale>;  // one entry per column of the table

// The scales of every column of `scale`, exactly as a search with that scale table uses them.
DistanceScales distance_scales(const Table& scale);

struct NeighbourOptions {
  DistanceKind distance = DistanceKind::kGower;
  std::size_t k = 2;                 // neighbours per query, >= 1
  std::vector<std::size_t> columns;  // column indices (same in both tables); empty = all
  const Table* scale = nullptr;      // table giving ranges / means / sds; nullptr = reference
  // The scales themselves, for a search whose scale table is not in this process (a partition of
  // the reference, stats/partitioned_neighbours.hpp); when set, `scale` is not read.
  std::shared_ptr<const DistanceScales> scales;
  SearchMode mode = SearchMode::kAuto;
  ProgressSink* progress = nullptr;  // queries done out of all, reported as `progress_task`
  std::string progress_task;
};

inline constexpr std::uint32_t kNoNeighbour = std::numeric_limits<std::uint32_t>::max();

struct Neighbours {
  std::size_t k = 0;
  std::size_t queries = 0;
  // Row-major queries × k, nearest first. When the reference has fewer than k rows the missing
  // slots hold +inf and kNoNeighbour.
  std::vector<double> distance;
  std::vector<std::uint32_t> index;
  // How the search went (for benchmarks and the JSON details).
  std::size_t exact_copy_shortcuts = 0;  // queries answered by hashing alone
  bool grouped = false;                  // categorical-signature grouping was used
  bool projected = false;                // projection pruning over all rows was used
  std::uint64_t scanned_pairs = 0;       // (query, reference) pairs the fast pass compared
  std::uint64_t exact_recomputations = 0;

  double dist(std::size_t query, std::size_t rank) const { return distance[query * k + rank]; }
  std::uint32_t idx(std::size_t query, std::size_t rank) const { return index[query * k + rank]; }
  // Distance to the nearest reference row of every query.
  std::vector<double> nearest() const;
};

// Exact top-k. Both tables must have the same columns (as the engine guarantees). Throws
// InputError for k = 0 or a column index out of range, MetricNotApplicable when no column can be
// used (e.g. Euclidean without numeric columns).
Neighbours nearest_neighbours(const Table& query, const Table& reference,
                              const NeighbourOptions& options);

// The same distance for one pair, computed by the definition above (double). Used by tests and
// by callers that need a few distances.
class PairDistance {
 public:
  PairDistance(const Table& query, const Table& reference, const NeighbourOptions& options);
  double operator()(std::size_t query_row, std::size_t reference_row) const;

 private:
  const Table& query_;
  const Table& reference_;
  NeighbourOptions options_;
  std::vector<std::size_t> columns_;
  std::vector<double> lo_, range_, mean_, sd_;
};

}  // namespace synthaudit::stats
