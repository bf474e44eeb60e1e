#pragma once
// The nearest-neighbour searches of one evaluation, shared between the metrics that need them.
// Several distance metrics ask for the same search (the closest synthetic record of every
// confidential record for DCR and membership inference; the holdout's distances to the
// confidential data for every replicate), and each search is the costly part. A search is
// identified by (query table, reference table, distance, columns, scale table, mode) and run once,
// with the largest k asked for so far (a later request for a larger k runs it again and replaces
// it); a request for a smaller k gets the first k neighbours of the stored one, which are exactly
// what a search with that k returns (the top-k lists are sorted by distance, then reference
// index). Only tables registered with keep() are identified by address, so a temporary table
// that reuses a freed address is never confused with another; searches over other tables run
// directly. Thread-safe; one cache per evaluation keeps the library reentrant.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "stats/nearest_neighbours.hpp"
#include "stats/tied_neighbours.hpp"
#include "table/table.hpp"

namespace synthaudit::stats {

class NeighbourCache {
 public:
  // Stored results beyond `byte_budget` (distances and indices) are not kept: the search is
  // still exact, only run again when asked again.
  explicit NeighbourCache(std::size_t byte_budget = std::size_t{1} << 30)
      : byte_budget_(byte_budget) {}

  // Searches between kept tables may be stored: `table` outlives the cache and does not change.
  void keep(const Table& table);

  // Exactly nearest_neighbours(query, reference, options).
  Neighbours search(const Table& query, const Table& reference, const NeighbourOptions& options);

  // Every query's k nearest reference rows with ties kept, under the attacks' distance
  // (tied_neighbours.hpp): computed once per (query, reference, columns, k) and shared. The
  // attacks and the Gower searches above never share a result: their distances differ (no
  // division by the column count, no cap at 1, ranges over both tables) and so do their
  // neighbours. Lists that do not fit the remaining budget are not stored (each caller then gets
  // its own, which searches on demand when it exceeds the budget too).
  std::shared_ptr<const TiedNeighbourLists> tied_search(const Table& query, const Table& reference,
                                                        const std::vector<std::size_t>& columns,
                                                        std::size_t k, ProgressSink* progress,
                                                        const std::string& task);

  // Where Gower searches run instead of in this process: in a partitioned evaluation (docs/mpi.md)
  // each rank searches its share of the reference rows and the top-k lists are merged, exactly
  // (engine/partition.hpp). The backend returns nullopt for a search it cannot run (a table it
  // does not know), which then runs here. Storing and reuse work as for local searches.
  using SearchBackend = std::function<std::optional<Neighbours>(
      const Table& query, const Table& reference, const NeighbourOptions& options)>;
  void set_backend(SearchBackend backend);
  // The same for tied_search: returns null for a search it cannot run.
  using TiedSearchBackend = std::function<std::shared_ptr<const TiedNeighbourLists>(
      const Table& query, const Table& reference, const std::vector<std::size_t>& columns,
      std::size_t k)>;
  void set_tied_backend(TiedSearchBackend backend);

  std::size_t searches_run() const;
  std::size_t searches_reused() const;

 private:
  using Key = std::tuple<const Table*, const Table*, DistanceKind, std::vector<std::size_t>,
                         const Table*, SearchMode>;
  std::size_t byte_budget_;
  SearchBackend backend_;
  TiedSearchBackend tied_backend_;
  std::size_t bytes_ = 0;
  std::size_t run_ = 0, reused_ = 0;
  mutable std::mutex mutex_;
  std::set<const Table*> kept_;
  std::map<Key, std::shared_ptr<const Neighbours>> stored_;
  using TiedKey = std::tuple<const Table*, const Table*, std::vector<std::size_t>, std::size_t>;
  std::map<TiedKey, std::shared_ptr<const TiedNeighbourLists>> tied_stored_;
};

// A search through `cache` when there is one, else directly.
Neighbours search_neighbours(NeighbourCache* cache, const Table& query, const Table& reference,
                             const NeighbourOptions& options);

// tied_search through `cache` when there is one, else directly (held in memory up to 1 GiB).
std::shared_ptr<const TiedNeighbourLists> tied_neighbour_lists(
    NeighbourCache* cache, const Table& query, const Table& reference,
    const std::vector<std::size_t>& columns, std::size_t k, ProgressSink* progress,
    const std::string& task);

}  // namespace synthaudit::stats
