#pragma once
// Reference rows grouped by their values on a few categorical ("code") columns, for exact
// pruned nearest-neighbour searches over mixed data: a query differs from every row of a group on
// the same number of signature columns, so that count bounds the whole group's distance from below
// and groups can be visited nearest first and skipped once the bound passes the current k-th
// distance. Shared by the Gower search (nearest_neighbours.cpp) and the attacks' tie-keeping search
// (tied_neighbours.cpp); each adds its own numeric bound inside a group.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace synthaudit::stats {

// Code columns as int32 codes per row (equal code = equal value; missing has its own code).
using CodeColumns = std::vector<std::vector<std::int32_t>>;

// A permutation of `columns` by the number of distinct values, fewest first (stable).
std::vector<std::size_t> columns_by_distinct_values(const CodeColumns& columns);

// The longest prefix of `columns` (already ordered) whose distinct signatures leave at least
// `min_rows_per_group` rows per group on average: a signature over every column (a 241-level
// occupation, a region) makes so many small groups that bounding them costs more than scanning.
std::size_t signature_prefix_length(const CodeColumns& columns, std::size_t rows,
                                    std::size_t min_rows_per_group);

struct SignatureGroups {
  std::size_t signature_columns = 0;
  std::vector<std::uint32_t> order;  // rows by (signature, key, row)
  std::vector<std::size_t> start;    // group g is order[start[g], start[g + 1]); one extra entry
  std::size_t groups() const { return start.size() - 1; }
};

// Groups the rows on the first `signature_columns` of `columns`, each group sorted by `key` (a
// projection of the numeric columns; empty: by row). With no signature column: one group.
SignatureGroups group_by_signature(const CodeColumns& columns, std::size_t signature_columns,
                                   std::size_t rows, const std::vector<double>& key);

}  // namespace synthaudit::stats
