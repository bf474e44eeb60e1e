#pragma once
// The nearest-neighbour searches of a partitioned evaluation (docs/mpi.md). The reference rows
// (confidential, holdout, synthetic) stay split over the ranks; for each search the root asks,
// every rank receives the whole query table (the ranks' query partitions, exchanged), searches its
// share of the reference rows (stats/partitioned_neighbours.hpp) and replies with its per-query
// lists, and the root merges them into exactly what one search over the whole tables gives.
//
// Cost of one search per rank: the whole query table (its selected and unselected columns), the
// rank's share of the reference with the search's own index over it, the scale summaries (a few
// numbers per column, 2 × ranks + 1 small exchanges), and a reply of queries × k (distance, index)
// pairs; the root holds every rank's reply until the merge. The attacks' tie-keeping search
// replies with every row within the rank's own k-th distance, which for an all-categorical
// attacker can be thousands of rows per query.
#include "core/cluster.hpp"
#include "engine/partition.hpp"
#include "stats/neighbour_cache.hpp"

namespace synthaudit {

// Registers on every rank (in the same order as the other handlers) the cluster requests
// "neighbour_search" (the distance family's searches) and "tied_neighbour_search" (the attacks').
// On the root, pass the evaluation's cache: its searches between tables that `directory` names
// (PartitionDirectory::add_whole) then run on every rank and are merged; searches over other
// tables (a temporary sample, a key subset) and searches with given scales run on the root as
// before. `cluster` and `directory` must outlive the cache's use. The root's searches run one at
// a time (the cluster's requests are collective).
void register_distributed_neighbours(Cluster& cluster, PartitionDirectory& directory,
                                     stats::NeighbourCache* root_cache);

}  // namespace synthaudit
