#pragma once
// Exact nearest neighbours when the reference rows are split into partitions (one per rank of a
// partitioned evaluation, docs/mpi.md): every partition is searched for all queries and the
// per-partition lists are merged into the lists one search over the whole reference gives, bit for
// bit. The pieces, in the order a distributed search uses them:
//   1. the distance scales (ranges, means, standard deviations) of the whole scale table, computed
//      from its partitions (gather_distance_scales), so that every partition measures the same
//      distances as the whole search;
//   2. each partition's search of all queries, reference indices offset to whole-table positions
//      (search_reference_part);
//   3. the merge (merge_neighbours): per query, the k smallest of all partitions' lists by
//      (distance, reference index), the single search's order and tie rule;
//   4. the lists as bytes between ranks (serialise / deserialise_neighbours).
// The same for the attacks' tie-keeping search (tied_neighbours.hpp): each partition returns its
// rows within its own k-th distance with their distances, and the merge keeps every row at the
// merged k-th distance.
//
// Why exactness holds: a pair's distance depends only on the two records and the scales, so a
// partition computes the same double the whole search does; each partition's list holds its k
// smallest (distance, index) pairs and any pair among the whole table's k smallest is among its
// own partition's k smallest. A self-search (query table = reference table) needs nothing more:
// indices are whole-table positions, so the caller leaves a record out by its own position as it
// does with a single search.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/communicator.hpp"
#include "stats/nearest_neighbours.hpp"
#include "stats/tied_neighbours.hpp"
#include "table/table.hpp"

namespace synthaudit::stats {

// Collective: every rank passes its partition of the same table (partitions in rank order make
// the whole table). Returns on every rank distance_scales(whole table), bit for bit: minima and
// maxima merge exactly; the sums behind means and standard deviations are continued from rank to
// rank in row order (rank r adds its rows to the running sum of ranks 0..r−1), which is the
// single pass's order of additions. Costs 2 × ranks + 1 small exchanges.
DistanceScales gather_distance_scales(Communicator& communicator, const Table& part);

// All queries against one partition of the reference: `reference_part` holds the whole
// reference's rows [first_row, first_row + rows) and `reference_rows` is the whole reference's row
// count. `scales` are the whole scale table's (gather_distance_scales); options.scale is not read.
// Indices are whole-table positions.
Neighbours search_reference_part(const Table& query, const Table& reference_part,
                                 std::size_t first_row, std::size_t reference_rows,
                                 NeighbourOptions options,
                                 std::shared_ptr<const DistanceScales> scales);

// The lists of one search over the whole reference from its partitions' lists (any order: the
// indices are disjoint). Every part must have the same k and number of queries. The search
// statistics describe the partitioned search: exact_copy_shortcuts counts queries whose k nearest
// are all at distance 0 (what the single search's hashing answers), scanned_pairs and
// exact_recomputations are summed, grouped / projected are set when any partition used them.
Neighbours merge_neighbours(const std::vector<Neighbours>& parts);

std::string serialise(const Neighbours& neighbours);
// Throws std::runtime_error for bytes serialise() did not write.
Neighbours deserialise_neighbours(std::string_view bytes);

// --- the attacks' tie-keeping search -----------------------------------------------------------

// The smallest and largest value of every numeric column among `columns` over the query table and
// every rank's reference partition, in the order AttackDistance scans them (query, then the
// reference in row order). Collective.
std::vector<AttackRange> gather_attack_ranges(Communicator& communicator, const Table& query,
                                              const Table& reference_part,
                                              const std::vector<std::size_t>& columns);

// One partition's candidates for every query: the rows of the partition within the partition's
// own k-th distance (every row when it has k or fewer), as whole-table positions with their
// distances, ascending by position per query.
struct TiedCandidates {
  std::size_t k = 0;
  std::vector<std::size_t> offset;  // queries + 1; candidates of query q: [offset[q], offset[q+1])
  std::vector<std::uint32_t> row;
  std::vector<double> distance;
  std::size_t queries() const { return offset.empty() ? 0 : offset.size() - 1; }
};

// `ranges` from gather_attack_ranges (one per entry of `columns`).
TiedCandidates tied_candidates_of_part(const Table& query, const Table& reference_part,
                                       std::size_t first_row,
                                       const std::vector<std::size_t>& columns,
                                       const std::vector<AttackRange>& ranges, std::size_t k);

// Every query's sure and tied rows over the whole reference (`reference_rows` rows), equal to
// TiedNeighbourLists on the whole tables: the k-th distance is the k-th smallest of all
// partitions' candidates, and every candidate at it is kept.
std::shared_ptr<const TiedNeighbourLists> merge_tied_candidates(
    const std::vector<TiedCandidates>& parts, std::size_t reference_rows);

std::string serialise(const TiedCandidates& candidates);
TiedCandidates deserialise_tied_candidates(std::string_view bytes);

}  // namespace synthaudit::stats
