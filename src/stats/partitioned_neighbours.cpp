#include "stats/partitioned_neighbours.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "core/wire_bytes.hpp"

namespace synthaudit::stats {

namespace {

constexpr std::uint32_t kNeighboursTag = 0x4e424c31;      // "NBL1"
constexpr std::uint32_t kTiedCandidatesTag = 0x54434431;  // "TCD1"

// The running sums of one exchange round, continued by `rank` over its rows: the single pass's
// additions in the single pass's order.
std::vector<double> continue_sums(Communicator& communicator, const Table& part, int rank,
                                  std::vector<double> sums, const std::vector<double>& centre) {
  if (communicator.rank() == rank) {
    for (std::size_t c = 0; c < part.column_count(); ++c) {
      const Column& column = part.column(c);
      if (!column.is_numeric()) continue;
      double sum = sums[c];
      if (centre.empty()) {
        for (double v : column.numeric)
          if (!std::isnan(v)) sum += v;
      } else {
        const double mean = centre[c];
        for (double v : column.numeric)
          if (!std::isnan(v)) sum += (v - mean) * (v - mean);
      }
      sums[c] = sum;
    }
  }
  WireWriter out;
  out.put_vector(sums);
  const std::string bytes = communicator.broadcast(out.take(), rank);
  WireReader in(bytes, "partial sums");
  auto continued = in.get_vector<double>();
  in.finish();
  if (continued.size() != sums.size())
    throw std::runtime_error("partitioned scales: ranks disagree on the number of columns");
  return continued;
}

// Smallest and largest non-missing value as AttackDistance scans them (std::min / std::max: the
// first of equal values stays).
void extend_attack_range(const Column& column, AttackRange& range) {
  for (double v : column.numeric) {
    if (is_missing(v)) continue;
    range.lo = std::min(range.lo, v);
    range.hi = std::max(range.hi, v);
  }
}

}  // namespace

DistanceScales gather_distance_scales(Communicator& communicator, const Table& part) {
  const std::size_t p = part.column_count();
  // Counts, minima and maxima: merged in rank order with the single pass's comparisons (a later
  // value replaces only when strictly smaller or larger), so even the sign of a zero agrees.
  WireWriter summary;
  {
    std::vector<std::uint64_t> count(p, 0);
    std::vector<double> lo(p, NAN), hi(p, NAN);
    for (std::size_t c = 0; c < p; ++c) {
      const Column& column = part.column(c);
      if (!column.is_numeric()) continue;
      for (double v : column.numeric) {
        if (std::isnan(v)) continue;
        if (count[c] == 0 || v < lo[c]) lo[c] = v;
        if (count[c] == 0 || v > hi[c]) hi[c] = v;
        ++count[c];
      }
    }
    summary.put_vector(count);
    summary.put_vector(lo);
    summary.put_vector(hi);
  }
  DistanceScales scales(p);
  std::vector<std::uint64_t> total(p, 0);
  for (const std::string& bytes : communicator.all_gather(summary.take())) {
    WireReader in(bytes, "column summary");
    const auto count = in.get_vector<std::uint64_t>();
    const auto lo = in.get_vector<double>();
    const auto hi = in.get_vector<double>();
    in.finish();
    if (count.size() != p || lo.size() != p || hi.size() != p)
      throw std::runtime_error("partitioned scales: ranks disagree on the number of columns");
    for (std::size_t c = 0; c < p; ++c) {
      if (count[c] == 0) continue;
      if (total[c] == 0 || lo[c] < scales[c].lo) scales[c].lo = lo[c];
      if (total[c] == 0 || hi[c] > scales[c].hi) scales[c].hi = hi[c];
      total[c] += count[c];
    }
  }
  std::vector<double> sums(p, 0.0);
  for (int rank = 0; rank < communicator.size(); ++rank)
    sums = continue_sums(communicator, part, rank, std::move(sums), {});
  std::vector<double> mean(p, NAN);
  for (std::size_t c = 0; c < p; ++c)
    if (total[c] > 0) mean[c] = sums[c] / static_cast<double>(total[c]);
  std::vector<double> squares(p, 0.0);
  for (int rank = 0; rank < communicator.size(); ++rank)
    squares = continue_sums(communicator, part, rank, std::move(squares), mean);
  for (std::size_t c = 0; c < p; ++c) {
    if (total[c] == 0) continue;
    scales[c].mean = mean[c];
    if (total[c] > 1) scales[c].sd = std::sqrt(squares[c] / static_cast<double>(total[c] - 1));
  }
  return scales;
}

Neighbours search_reference_part(const Table& query, const Table& reference_part,
                                 std::size_t first_row, std::size_t reference_rows,
                                 NeighbourOptions options,
                                 std::shared_ptr<const DistanceScales> scales) {
  if (reference_rows >= kNoNeighbour)
    throw InputError("nearest neighbours: the reference table has too many rows");
  if (first_row + reference_part.rows() > reference_rows)
    throw std::logic_error("partitioned search: the partition lies outside the reference table");
  if (!scales) throw std::logic_error("partitioned search: no scales given");
  options.scale = nullptr;
  options.scales = std::move(scales);
  Neighbours found = nearest_neighbours(query, reference_part, options);
  const auto offset = static_cast<std::uint32_t>(first_row);
  for (auto& index : found.index)
    if (index != kNoNeighbour) index += offset;
  return found;
}

Neighbours merge_neighbours(const std::vector<Neighbours>& parts) {
  if (parts.empty()) throw std::logic_error("merge_neighbours: no partitions");
  Neighbours merged;
  merged.k = parts.front().k;
  merged.queries = parts.front().queries;
  const std::size_t k = merged.k, m = merged.queries;
  for (const auto& part : parts) {
    if (part.k != k || part.queries != m || part.distance.size() != m * k ||
        part.index.size() != m * k)
      throw std::logic_error("merge_neighbours: partitions of different searches");
    merged.grouped = merged.grouped || part.grouped;
    merged.projected = merged.projected || part.projected;
    merged.scanned_pairs += part.scanned_pairs;
    merged.exact_recomputations += part.exact_recomputations;
  }
  merged.distance.assign(m * k, INFINITY);
  merged.index.assign(m * k, kNoNeighbour);
  std::size_t shortcuts = 0;
#pragma omp parallel num_threads(parallel_threads()) reduction(+ : shortcuts)
  {
    std::vector<std::pair<double, std::uint32_t>> candidates;
#pragma omp for schedule(static)
    for (std::size_t q = 0; q < m; ++q) {
      candidates.clear();
      for (const auto& part : parts)
        for (std::size_t r = 0; r < k; ++r)
          if (part.index[q * k + r] != kNoNeighbour)
            candidates.emplace_back(part.distance[q * k + r], part.index[q * k + r]);
      const std::size_t kept = std::min(k, candidates.size());
      // (distance, reference index): the single search's order and tie rule.
      std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(kept),
                        candidates.end());
      for (std::size_t r = 0; r < kept; ++r) {
        merged.distance[q * k + r] = candidates[r].first;
        merged.index[q * k + r] = candidates[r].second;
      }
      if (k > 0 && kept == k && merged.distance[q * k + k - 1] == 0.0) ++shortcuts;
    }
  }
  merged.exact_copy_shortcuts = shortcuts;
  return merged;
}

std::string serialise(const Neighbours& neighbours) {
  WireWriter out;
  out.put(kNeighboursTag);
  out.put<std::uint64_t>(neighbours.k);
  out.put<std::uint64_t>(neighbours.queries);
  out.put<std::uint64_t>(neighbours.exact_copy_shortcuts);
  out.put<std::uint8_t>(neighbours.grouped);
  out.put<std::uint8_t>(neighbours.projected);
  out.put(neighbours.scanned_pairs);
  out.put(neighbours.exact_recomputations);
  out.put_vector(neighbours.distance);
  out.put_vector(neighbours.index);
  return out.take();
}

Neighbours deserialise_neighbours(std::string_view bytes) {
  WireReader in(bytes, "neighbour list");
  if (in.get<std::uint32_t>() != kNeighboursTag)
    throw std::runtime_error("malformed neighbour list bytes");
  Neighbours n;
  n.k = static_cast<std::size_t>(in.get<std::uint64_t>());
  n.queries = static_cast<std::size_t>(in.get<std::uint64_t>());
  n.exact_copy_shortcuts = static_cast<std::size_t>(in.get<std::uint64_t>());
  n.grouped = in.get<std::uint8_t>() != 0;
  n.projected = in.get<std::uint8_t>() != 0;
  n.scanned_pairs = in.get<std::uint64_t>();
  n.exact_recomputations = in.get<std::uint64_t>();
  n.distance = in.get_vector<double>();
  n.index = in.get_vector<std::uint32_t>();
  in.finish();
  if (n.distance.size() != n.index.size() || n.distance.size() != n.k * n.queries)
    throw std::runtime_error("malformed neighbour list bytes");
  return n;
}

std::vector<AttackRange> gather_attack_ranges(Communicator& communicator, const Table& query,
                                              const Table& reference_part,
                                              const std::vector<std::size_t>& columns) {
  std::vector<AttackRange> part_ranges(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::size_t c = columns[i];
    if (c >= reference_part.column_count() || !reference_part.column(c).is_numeric()) continue;
    extend_attack_range(reference_part.column(c), part_ranges[i]);
  }
  WireWriter out;
  out.put_vector(part_ranges);
  const auto all = communicator.all_gather(out.take());
  // AttackDistance's order: the query table first, then the reference rows in order.
  std::vector<AttackRange> ranges(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::size_t c = columns[i];
    if (c < query.column_count() && query.column(c).is_numeric())
      extend_attack_range(query.column(c), ranges[i]);
  }
  for (const std::string& bytes : all) {
    WireReader in(bytes, "attack ranges");
    const auto part = in.get_vector<AttackRange>();
    in.finish();
    if (part.size() != columns.size())
      throw std::runtime_error("partitioned attack ranges: ranks disagree on the columns");
    for (std::size_t i = 0; i < columns.size(); ++i) {
      ranges[i].lo = std::min(ranges[i].lo, part[i].lo);
      ranges[i].hi = std::max(ranges[i].hi, part[i].hi);
    }
  }
  return ranges;
}

TiedCandidates tied_candidates_of_part(const Table& query, const Table& reference_part,
                                       std::size_t first_row,
                                       const std::vector<std::size_t>& columns,
                                       const std::vector<AttackRange>& ranges, std::size_t k) {
  if (k == 0) throw InputError("tied nearest neighbours: k must be at least 1");
  if (first_row + reference_part.rows() >= kNoNeighbour)
    throw InputError("nearest neighbours: the reference table has too many rows");
  const AttackDistance distance(query, reference_part, columns, ranges);
  const TiedNeighbourSearch search(distance);
  const std::size_t m = query.rows();
  std::vector<std::vector<std::pair<std::uint32_t, double>>> found(m);
  const auto& order = search.query_order();
  constexpr std::size_t kChunk = 64;
  const auto offset = static_cast<std::uint32_t>(first_row);
#pragma omp parallel num_threads(parallel_threads())
  {
    TiedNeighbourScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t chunk = 0; chunk < (m + kChunk - 1) / kChunk; ++chunk) {
      const std::size_t end = std::min(m, (chunk + 1) * kChunk);
      for (std::size_t i = chunk * kChunk; i < end; ++i) {
        const std::uint32_t q = order[i];
        const TiedNeighbours near = search.nearest(q, k, scratch);
        auto& list = found[q];
        list.reserve(near.sure.size() + near.tied.size());
        // The distance the search compared (AttackDistance::operator(), bit-equal).
        for (std::uint32_t row : near.sure) list.emplace_back(row + offset, distance(q, row));
        for (std::uint32_t row : near.tied) list.emplace_back(row + offset, distance(q, row));
        std::sort(list.begin(), list.end());
      }
    }
  }
  TiedCandidates out;
  out.k = k;
  out.offset.assign(m + 1, 0);
  for (std::size_t q = 0; q < m; ++q) out.offset[q + 1] = out.offset[q] + found[q].size();
  out.row.reserve(out.offset[m]);
  out.distance.reserve(out.offset[m]);
  for (auto& list : found) {
    for (const auto& [row, d] : list) {
      out.row.push_back(row);
      out.distance.push_back(d);
    }
    std::vector<std::pair<std::uint32_t, double>>().swap(list);
  }
  return out;
}

std::shared_ptr<const TiedNeighbourLists> merge_tied_candidates(
    const std::vector<TiedCandidates>& parts, std::size_t reference_rows) {
  if (parts.empty()) throw std::logic_error("merge_tied_candidates: no partitions");
  const std::size_t k = parts.front().k, m = parts.front().queries();
  for (const auto& part : parts)
    if (part.k != k || part.queries() != m || part.offset.back() != part.row.size() ||
        part.row.size() != part.distance.size())
      throw std::logic_error("merge_tied_candidates: partitions of different searches");
  std::vector<std::vector<std::uint32_t>> rows(m);
  std::vector<std::uint32_t> sure_count(m, 0), picks(m, 0);
  std::vector<double> kth(m, NAN);
  int inconsistent = 0;  // no exception may leave a parallel region
#pragma omp parallel num_threads(parallel_threads()) reduction(| : inconsistent)
  {
    std::vector<std::pair<double, std::uint32_t>> candidates;
    std::vector<double> sorted;
    std::vector<std::uint32_t> sure, tied;
#pragma omp for schedule(static)
    for (std::size_t q = 0; q < m; ++q) {
      candidates.clear();
      for (const auto& part : parts)
        for (std::size_t i = part.offset[q]; i < part.offset[q + 1]; ++i)
          candidates.emplace_back(part.distance[i], part.row[i]);
      sure.clear();
      tied.clear();
      if (reference_rows <= k) {
        // Every row is sure, as tied_nearest has it; the k-th distance is the largest.
        inconsistent |= candidates.size() != reference_rows;
        for (const auto& [d, row] : candidates) {
          sure.push_back(row);
          if (std::isnan(kth[q]) || d > kth[q]) kth[q] = d;
        }
      } else {
        if (candidates.size() < k) {
          inconsistent = 1;
          continue;
        }
        sorted.clear();
        for (const auto& candidate : candidates) sorted.push_back(candidate.first);
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k - 1),
                         sorted.end());
        const double cut = sorted[k - 1];
        for (const auto& [d, row] : candidates) {
          if (d < cut) {
            sure.push_back(row);
          } else if (d == cut) {
            tied.push_back(row);
          }
        }
        kth[q] = cut;
        picks[q] = static_cast<std::uint32_t>(k - sure.size());
      }
      std::sort(sure.begin(), sure.end());
      std::sort(tied.begin(), tied.end());
      sure_count[q] = static_cast<std::uint32_t>(sure.size());
      rows[q] = sure;
      rows[q].insert(rows[q].end(), tied.begin(), tied.end());
    }
  }
  if (inconsistent)
    throw std::logic_error("merge_tied_candidates: a partition's candidates are incomplete");
  std::vector<std::size_t> offset(m + 1, 0);
  for (std::size_t q = 0; q < m; ++q) offset[q + 1] = offset[q] + rows[q].size();
  std::vector<std::uint32_t> flat;
  flat.reserve(offset[m]);
  for (auto& list : rows) {
    flat.insert(flat.end(), list.begin(), list.end());
    std::vector<std::uint32_t>().swap(list);
  }
  return std::make_shared<const TiedNeighbourLists>(k, std::move(offset), std::move(flat),
                                                    std::move(sure_count), std::move(picks),
                                                    std::move(kth));
}

std::string serialise(const TiedCandidates& candidates) {
  WireWriter out;
  out.put(kTiedCandidatesTag);
  out.put<std::uint64_t>(candidates.k);
  std::vector<std::uint64_t> offset(candidates.offset.begin(), candidates.offset.end());
  out.put_vector(offset);
  out.put_vector(candidates.row);
  out.put_vector(candidates.distance);
  return out.take();
}

TiedCandidates deserialise_tied_candidates(std::string_view bytes) {
  WireReader in(bytes, "tied neighbour candidates");
  if (in.get<std::uint32_t>() != kTiedCandidatesTag)
    throw std::runtime_error("malformed tied neighbour candidates bytes");
  TiedCandidates c;
  c.k = static_cast<std::size_t>(in.get<std::uint64_t>());
  const auto offset = in.get_vector<std::uint64_t>();
  c.offset.assign(offset.begin(), offset.end());
  c.row = in.get_vector<std::uint32_t>();
  c.distance = in.get_vector<double>();
  in.finish();
  bool valid = !c.offset.empty() && c.offset.front() == 0 && c.offset.back() == c.row.size() &&
               c.row.size() == c.distance.size();
  for (std::size_t q = 1; valid && q < c.offset.size(); ++q) valid = c.offset[q - 1] <= c.offset[q];
  if (!valid) throw std::runtime_error("malformed tied neighbour candidates bytes");
  return c;
}

}  // namespace synthaudit::stats
