#pragma once
// Nearest neighbours with every tie kept, for attacks whose outcome is decided by which of several
// equidistant records an attacker picks (linkability and inference against synthetic data, as in
// anonymeter: Giomi et al. 2023, PoPETs 2023(2)). A top-k search that breaks ties by row number
// biases such attacks (two searches favour the same low rows); here a query's k nearest are
// described as a set of "sure" rows strictly closer than the k-th smallest distance and the
// "tied" set of all rows at exactly that distance, from which a uniformly random subset of
// k − |sure| rows completes the k. The attacks then count the exact expected value of their
// success over that random choice (tie_expectation below).
//
// Distance (anonymeter's mixed-type Gower-like distance, mixed_types_kneighbors.py):
//   d(x, y) = C + Σ_numeric |x_j − y_j| / R_j
// where C counts the categorical columns that differ (missing equals missing) and R_j is the range
// max − min of numeric column j over the query AND reference tables together (1 when that range is
// 0), as anonymeter's preprocessing scales them. Unlike the distance family's Gower distance
// (nearest_neighbours.hpp) the sum is not divided by the number of columns, differences are not
// capped at 1, and the range spans both tables, not the reference alone. A missing numeric value
// counts 1 against a value and 0 against a missing value (anonymeter counts 1 for two missing
// values and makes the whole distance NaN for one).
//
// Exact ties: the difference |x_j − y_j| is taken before dividing by R_j (anonymeter divides
// first, so two pairs with the same difference can get distances a rounding apart: 20/79 − 19/79
// and 21/79 − 20/79 differ in the last bit), the numeric terms are added in column order and the
// integer count C is added last. Equal exact differences of the stored values round to the same
// double, so reference rows whose per-column differences from a query are equal get bit-equal
// distances; with at most one numeric column (and any number of categorical ones) every exact
// tie compares equal. "Exact" is about the stored binary values: 0.3 − 0.1 and 0.5 − 0.3 are not
// equal differences of the doubles nearest those decimals. With several numeric columns,
// distances equal in exact arithmetic only through different per-column terms may still differ
// by a rounding.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/progress.hpp"
#include "stats/signature_groups.hpp"
#include "table/table.hpp"

namespace synthaudit::stats {

// Smallest and largest non-missing value of a numeric column (infinite when there is none).
struct AttackRange {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
};

class AttackDistance {
 public:
  // `columns`: indices of the columns used (same in both tables). Throws InputError when empty.
  AttackDistance(const Table& query, const Table& reference, std::vector<std::size_t> columns);
  // With the numeric ranges given (one per entry of `columns`; categorical entries are not read):
  // for a reference split into partitions, whose ranges span the whole tables
  // (stats/partitioned_neighbours.hpp).
  AttackDistance(const Table& query, const Table& reference, std::vector<std::size_t> columns,
                 const std::vector<AttackRange>& ranges);

  double operator()(std::size_t query_row, std::size_t reference_row) const;
  // Distances from one query row to every reference row, in reference order.
  void to_all(std::size_t query_row, std::vector<double>& out) const;

  std::size_t query_rows() const { return query_.rows(); }
  std::size_t reference_rows() const { return reference_.rows(); }
  const Table& query() const { return query_; }
  const Table& reference() const { return reference_; }
  const std::vector<std::size_t>& numeric_columns() const { return numeric_; }
  const std::vector<std::size_t>& categorical_columns() const { return categorical_; }
  const std::vector<double>& ranges() const { return range_; }  // per numeric column
  const std::vector<double>& lows() const { return low_; }      // per numeric column

 private:
  void init(const std::vector<std::size_t>& columns, const std::vector<AttackRange>& ranges);

  const Table& query_;
  const Table& reference_;
  std::vector<std::size_t> numeric_, categorical_;
  std::vector<double> range_, low_;  // per entry of numeric_
};

// The k nearest reference rows of one query, ties kept.
struct TiedNeighbours {
  std::span<const std::uint32_t> sure;  // strictly closer than the k-th distance, ascending rows
  std::span<const std::uint32_t> tied;  // at the k-th distance, ascending rows
  std::size_t picks = 0;                // k − |sure| rows drawn uniformly from `tied`
  double kth_distance = 0;
};

// Per-thread buffers of one search; the returned spans point into them until the next call.
struct TiedNeighbourScratch {
  std::vector<double> distances, sorted;
  std::vector<std::uint32_t> sure, tied;
  // Pruned search: the k smallest distances so far (a max-heap), the rows that were within the
  // running k-th distance when visited, and the group visit order of the last query signature.
  std::vector<double> heap;
  std::vector<std::pair<double, std::uint32_t>> candidates;
  std::vector<std::int32_t> signature;
  std::vector<std::uint32_t> bound, visit;
  std::vector<std::size_t> count;
  std::vector<double> query_numeric;
  std::vector<std::uint32_t> query_codes;
  const void* signature_of = nullptr;  // the search whose visit order is held
};

// The sure and tied rows of `query_row` (k >= 1) by computing every distance: the oracle of the
// pruned search below. With k or fewer reference rows every row is sure (picks = 0). Exact: the
// k-th distance is the k-th smallest of all computed distances.
TiedNeighbours tied_nearest(const AttackDistance& distance, std::size_t query_row, std::size_t k,
                            TiedNeighbourScratch& scratch);

// The same sure and tied sets, bit for bit, without computing every distance. Reference rows are
// grouped by their values on the categorical columns with the fewest values (signature_groups.hpp;
// as many columns as keep 64+ rows per group on average), each group sorted by the projection
// P(y) = Σ_numeric (y_j − lo_j)/R_j (missing: 0.5). A query differs from every row of a group on
// the same number M of signature columns, and |P(x) − P(y)| is at most the numeric part of the
// distance (each scaled value lies in [0, 1] because R_j spans both tables; a missing value's 0.5
// is within 1 of any value and equal to another missing one), so M + |P(x) − P(y)| bounds the
// distance from below. Groups are visited by increasing M, rows inside a group outwards from the
// query's projection, and a group or a direction is left only when its bound exceeds the current
// k-th smallest distance STRICTLY (less a rounding margin far above the few ulps of error in P),
// so every row at exactly the final k-th distance is still visited and kept. Each visited row's
// distance is AttackDistance::operator(), bit-equal to the brute force's.
enum class TiedSearchMode { kPruned, kFullScan };

class TiedNeighbourSearch {
 public:
  // `distance` must outlive the search.
  explicit TiedNeighbourSearch(const AttackDistance& distance,
                               TiedSearchMode mode = TiedSearchMode::kPruned);

  TiedNeighbours nearest(std::size_t query_row, std::size_t k, TiedNeighbourScratch& scratch) const;

  // The queries sorted by signature and projection: consecutive queries with the same signature
  // reuse the group visit order, so loops over every query should follow this order.
  const std::vector<std::uint32_t>& query_order() const { return query_order_; }
  const AttackDistance& distance() const { return distance_; }
  std::size_t signature_columns() const { return groups_.signature_columns; }
  std::size_t groups() const { return groups_.groups(); }

 private:
  const AttackDistance& distance_;
  TiedSearchMode mode_;
  CodeColumns query_codes_;  // signature columns only
  SignatureGroups groups_;
  std::vector<std::int32_t> group_signature_;   // groups × signature columns
  std::vector<double> group_low_, group_high_;  // projection range per group
  std::vector<double> reference_projection_;    // by position in groups_.order
  // The reference's attacker columns by position in groups_.order, column-major, so that a
  // scan outwards from a projection reads memory in order (AttackDistance's column order).
  std::vector<double> reference_numeric_;
  std::vector<std::uint32_t> reference_codes_;
  std::vector<double> query_projection_;
  std::vector<std::uint32_t> query_order_;
  double margin_ = 0;
};

// Every query's sure and tied sets, computed once on the evaluation's threads (with progress
// reported as `task`) and kept in compact form when they fit `byte_budget`; otherwise each is
// searched again when asked for (an all-categorical attacker's few dozen cells can tie tens of
// thousands of rows to every query). Shared through the evaluation's NeighbourCache
// (neighbour_cache.hpp) between the attacks that ask for the same (query table, reference table,
// columns, k).
class TiedNeighbourLists {
 public:
  // `query` and `reference` must outlive the lists.
  TiedNeighbourLists(const Table& query, const Table& reference, std::vector<std::size_t> columns,
                     std::size_t k, std::size_t byte_budget, ProgressSink* progress,
                     const std::string& task);
  // Lists found elsewhere (merged from a partitioned reference, stats/partitioned_neighbours.hpp):
  // per query q the rows [offset[q], offset[q+1]) of `rows`, its sure rows then its tied rows,
  // each ascending; always stored, queries in row order.
  TiedNeighbourLists(std::size_t k, std::vector<std::size_t> offset,
                     std::vector<std::uint32_t> rows, std::vector<std::uint32_t> sure_count,
                     std::vector<std::uint32_t> picks, std::vector<double> kth);
  TiedNeighbours of(std::size_t query_row, TiedNeighbourScratch& scratch) const;
  const std::vector<std::uint32_t>& query_order() const {
    return search_ ? search_->query_order() : row_order_;
  }
  bool stored() const { return stored_; }
  std::size_t bytes() const;

 private:
  std::unique_ptr<AttackDistance> distance_;     // owned: cached lists outlive the caller
  std::unique_ptr<TiedNeighbourSearch> search_;  // absent for lists found elsewhere
  std::vector<std::uint32_t> row_order_;         // query order of lists found elsewhere
  std::size_t k_;
  bool stored_ = false;
  std::vector<std::size_t> offset_;  // queries + 1; rows of query q: [offset_[q], offset_[q+1])
  std::vector<std::uint32_t> rows_;  // sure rows then tied rows, each ascending
  std::vector<std::uint32_t> sure_count_, picks_;
  std::vector<double> kth_;
};

// Probability that two independent uniform tie-breaks, of `a` and of `b` (two searches over the
// same reference rows), pick at least one common row: the expected success of a linkability
// attack on one target. Derivation (sure sets S_a, S_b; tied sets T_a, T_b; r_a, r_b picks):
//   a common sure row (S_a ∩ S_b ≠ ∅) links for certain: 1.
//   Otherwise let x = |S_a ∩ T_b|, y = |T_a ∩ S_b|, c = |T_a ∩ T_b| (S_a and T_a are disjoint, as
//   are S_b and T_b). No common row means: the r_a picks of a avoid the y rows that b holds for
//   sure, and, if j of them fall among the c rows tied in both, the r_b picks of b avoid those j
//   rows and the x rows that a holds for sure. a's picks are a uniform r_a-subset of T_a, so
//     P(a avoids y, picks j of c) = C(c, j) C(t_a − y − c, r_a − j) / C(t_a, r_a)
//     P(b avoids x + j given rows) = C(t_b − x − j, r_b) / C(t_b, r_b)
//   and P(no common row) = Σ_j of their product, j from 0 to min(c, r_a).
//   Rows outside T_a ∪ S_a (or T_b ∪ S_b) cannot be picked by a (or b) and play no part.
double shared_pick_probability(const TiedNeighbours& a, const TiedNeighbours& b);

}  // namespace synthaudit::stats
