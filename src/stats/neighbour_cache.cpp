#include "stats/neighbour_cache.hpp"

#include <algorithm>
#include <numeric>

namespace synthaudit::stats {

namespace {

// The first k neighbours of every query of a search with at least k.
Neighbours first_k(const Neighbours& all, std::size_t k) {
  if (all.k == k) return all;
  Neighbours out = all;
  out.k = k;
  out.distance.resize(all.queries * k);
  out.index.resize(all.queries * k);
  for (std::size_t q = 0; q < all.queries; ++q)
    for (std::size_t r = 0; r < k; ++r) {
      out.distance[q * k + r] = all.distance[q * all.k + r];
      out.index[q * k + r] = all.index[q * all.k + r];
    }
  return out;
}

std::size_t bytes_of(const Neighbours& n) {
  return n.distance.size() * sizeof(double) + n.index.size() * sizeof(std::uint32_t);
}

}  // namespace

void NeighbourCache::keep(const Table& table) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_.insert(&table);
}

Neighbours NeighbourCache::search(const Table& query, const Table& reference,
                                  const NeighbourOptions& options) {
  const Table* scale = options.scale ? options.scale : &reference;
  std::vector<std::size_t> columns = options.columns;
  if (columns.empty()) {
    columns.resize(reference.column_count());
    std::iota(columns.begin(), columns.end(), std::size_t{0});
  }
  const Key key{&query, &reference, options.distance, columns, scale, options.mode};
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    // Given scales are not part of the key: such a search is never stored.
    const bool storable =
        !options.scales && kept_.count(&query) && kept_.count(&reference) && kept_.count(scale);
    if (!storable) {
      ++run_;
    } else {
      const auto it = stored_.find(key);
      if (it != stored_.end() && it->second->k >= options.k) {
        ++reused_;
        const auto found = it->second;
        return first_k(*found, options.k);
      }
      ++run_;
    }
  }
  // Searched outside the lock: the search itself runs on every thread.
  std::optional<Neighbours> remote;
  if (backend_) remote = backend_(query, reference, options);
  Neighbours result = remote ? std::move(*remote) : nearest_neighbours(query, reference, options);
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!options.scales && kept_.count(&query) && kept_.count(&reference) && kept_.count(scale)) {
    auto it = stored_.find(key);
    if (it != stored_.end() && it->second->k < result.k) {
      bytes_ -= bytes_of(*it->second);
      stored_.erase(it);
      it = stored_.end();
    }
    if (it == stored_.end() && bytes_ + bytes_of(result) <= byte_budget_) {
      bytes_ += bytes_of(result);
      stored_.emplace(key, std::make_shared<const Neighbours>(result));
    }
  }
  return result;
}

std::shared_ptr<const TiedNeighbourLists> NeighbourCache::tied_search(
    const Table& query, const Table& reference, const std::vector<std::size_t>& columns,
    std::size_t k, ProgressSink* progress, const std::string& task) {
  const TiedKey key{&query, &reference, columns, k};
  std::size_t budget_left = 0;
  bool storable = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    storable = kept_.count(&query) && kept_.count(&reference);
    if (storable) {
      const auto it = tied_stored_.find(key);
      if (it != tied_stored_.end()) {
        ++reused_;
        return it->second;
      }
    }
    ++run_;
    budget_left = byte_budget_ > bytes_ ? byte_budget_ - bytes_ : 0;
  }
  std::shared_ptr<const TiedNeighbourLists> lists;
  if (tied_backend_) lists = tied_backend_(query, reference, columns, k);
  if (!lists)
    lists = std::make_shared<const TiedNeighbourLists>(query, reference, columns, k, budget_left,
                                                       progress, task);
  const std::lock_guard<std::mutex> lock(mutex_);
  if (storable && lists->stored() && bytes_ + lists->bytes() <= byte_budget_ &&
      !tied_stored_.count(key)) {
    bytes_ += lists->bytes();
    tied_stored_.emplace(key, lists);
  }
  return lists;
}

void NeighbourCache::set_backend(SearchBackend backend) {
  const std::lock_guard<std::mutex> lock(mutex_);
  backend_ = std::move(backend);
}

void NeighbourCache::set_tied_backend(TiedSearchBackend backend) {
  const std::lock_guard<std::mutex> lock(mutex_);
  tied_backend_ = std::move(backend);
}

std::size_t NeighbourCache::searches_run() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return run_;
}

std::size_t NeighbourCache::searches_reused() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return reused_;
}

Neighbours search_neighbours(NeighbourCache* cache, const Table& query, const Table& reference,
                             const NeighbourOptions& options) {
  return cache ? cache->search(query, reference, options)
               : nearest_neighbours(query, reference, options);
}

std::shared_ptr<const TiedNeighbourLists> tied_neighbour_lists(
    NeighbourCache* cache, const Table& query, const Table& reference,
    const std::vector<std::size_t>& columns, std::size_t k, ProgressSink* progress,
    const std::string& task) {
  if (cache) return cache->tied_search(query, reference, columns, k, progress, task);
  return std::make_shared<const TiedNeighbourLists>(query, reference, columns, k,
                                                    std::size_t{1} << 30, progress, task);
}

}  // namespace synthaudit::stats
