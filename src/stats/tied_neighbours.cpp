#include "stats/tied_neighbours.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "core/threads.hpp"

namespace synthaudit::stats {

namespace {

// Smallest and largest non-missing value of a numeric column over both tables.
void extend_range(const Column& column, double& lo, double& hi) {
  for (double v : column.numeric) {
    if (is_missing(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
}

std::size_t common_count(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  std::size_t n = 0;
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      ++n;
      ++i;
      ++j;
    }
  }
  return n;
}

// C(n, r) in long double (r is at most k, so the product is short and stays in range).
long double choose(std::size_t n, std::size_t r) {
  if (r > n) return 0.0L;
  long double c = 1.0L;
  for (std::size_t i = 0; i < r; ++i)
    c = c * static_cast<long double>(n - i) / static_cast<long double>(i + 1);
  return c;
}

}  // namespace

AttackDistance::AttackDistance(const Table& query, const Table& reference,
                               std::vector<std::size_t> columns)
    : query_(query), reference_(reference) {
  std::vector<AttackRange> ranges(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::size_t c = columns[i];
    if (c >= query.columns().size() || c >= reference.columns().size())
      throw InputError("attack distance: column index out of range");
    if (!query.column(c).is_numeric()) continue;
    extend_range(query.column(c), ranges[i].lo, ranges[i].hi);
    extend_range(reference.column(c), ranges[i].lo, ranges[i].hi);
  }
  init(columns, ranges);
}

AttackDistance::AttackDistance(const Table& query, const Table& reference,
                               std::vector<std::size_t> columns,
                               const std::vector<AttackRange>& ranges)
    : query_(query), reference_(reference) {
  if (ranges.size() != columns.size())
    throw std::logic_error("attack distance: one range per column expected");
  init(columns, ranges);
}

void AttackDistance::init(const std::vector<std::size_t>& columns,
                          const std::vector<AttackRange>& ranges) {
  if (columns.empty()) throw InputError("attack distance: no columns");
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::size_t c = columns[i];
    if (c >= query_.columns().size() || c >= reference_.columns().size())
      throw InputError("attack distance: column index out of range");
    if (query_.column(c).is_numeric()) {
      const double lo = ranges[i].lo, range = ranges[i].hi - ranges[i].lo;
      numeric_.push_back(c);
      range_.push_back(std::isfinite(range) && range > 0 ? range : 1.0);
      low_.push_back(std::isfinite(lo) ? lo : 0.0);
    } else {
      categorical_.push_back(c);
    }
  }
}

double AttackDistance::operator()(std::size_t q, std::size_t r) const {
  double numeric = 0.0;
  for (std::size_t i = 0; i < numeric_.size(); ++i) {
    const double x = query_.column(numeric_[i]).numeric[q];
    const double y = reference_.column(numeric_[i]).numeric[r];
    const bool mx = is_missing(x), my = is_missing(y);
    numeric += (mx || my) ? (mx && my ? 0.0 : 1.0) : std::fabs(x - y) / range_[i];
  }
  std::uint32_t mismatches = 0;
  for (std::size_t c : categorical_)
    mismatches += query_.column(c).codes[q] != reference_.column(c).codes[r];
  return numeric + static_cast<double>(mismatches);
}

void AttackDistance::to_all(std::size_t q, std::vector<double>& out) const {
  const std::size_t m = reference_.rows();
  out.assign(m, 0.0);
  // Column by column, in the same order and with the same operations as operator(), so each
  // entry is bit-equal to it.
  for (std::size_t i = 0; i < numeric_.size(); ++i) {
    const double x = query_.column(numeric_[i]).numeric[q];
    const auto& ys = reference_.column(numeric_[i]).numeric;
    const double range = range_[i];
    if (is_missing(x)) {
      for (std::size_t r = 0; r < m; ++r) out[r] += is_missing(ys[r]) ? 0.0 : 1.0;
    } else {
      for (std::size_t r = 0; r < m; ++r)
        out[r] += is_missing(ys[r]) ? 1.0 : std::fabs(x - ys[r]) / range;
    }
  }
  if (categorical_.empty()) return;
  std::vector<std::uint32_t> mismatches(m, 0);
  for (std::size_t c : categorical_) {
    const std::uint32_t x = query_.column(c).codes[q];
    const auto& ys = reference_.column(c).codes;
    for (std::size_t r = 0; r < m; ++r) mismatches[r] += ys[r] != x;
  }
  for (std::size_t r = 0; r < m; ++r) out[r] += static_cast<double>(mismatches[r]);
}

TiedNeighbours tied_nearest(const AttackDistance& distance, std::size_t query_row, std::size_t k,
                            TiedNeighbourScratch& s) {
  if (k == 0) throw InputError("tied nearest neighbours: k must be at least 1");
  distance.to_all(query_row, s.distances);
  const std::size_t m = s.distances.size();
  s.sure.clear();
  s.tied.clear();
  TiedNeighbours out;
  if (m <= k) {
    for (std::size_t r = 0; r < m; ++r) s.sure.push_back(static_cast<std::uint32_t>(r));
    out.sure = s.sure;
    out.kth_distance = m ? *std::max_element(s.distances.begin(), s.distances.end()) : NAN;
    return out;
  }
  s.sorted = s.distances;
  std::nth_element(s.sorted.begin(), s.sorted.begin() + static_cast<std::ptrdiff_t>(k - 1),
                   s.sorted.end());
  const double kth = s.sorted[k - 1];
  for (std::size_t r = 0; r < m; ++r) {
    if (s.distances[r] < kth) {
      s.sure.push_back(static_cast<std::uint32_t>(r));
    } else if (s.distances[r] == kth) {
      s.tied.push_back(static_cast<std::uint32_t>(r));
    }
  }
  out.sure = s.sure;
  out.tied = s.tied;
  out.picks = k - s.sure.size();
  out.kth_distance = kth;
  return out;
}

namespace {

// Σ over the numeric columns of (y − lo)/R, 0.5 for a missing value: within [0, p].
double projection(const AttackDistance& distance, const Table& table, std::size_t row) {
  double p = 0.0;
  const auto& columns = distance.numeric_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const double v = table.column(columns[i]).numeric[row];
    p += is_missing(v) ? 0.5 : (v - distance.lows()[i]) / distance.ranges()[i];
  }
  return p;
}

CodeColumns code_columns(const Table& table, const std::vector<std::size_t>& columns) {
  CodeColumns out;
  for (std::size_t c : columns) {
    const auto& codes = table.column(c).codes;
    out.emplace_back(codes.size());
    for (std::size_t r = 0; r < codes.size(); ++r)
      out.back()[r] = static_cast<std::int32_t>(codes[r]);  // missing becomes -1 on both sides
  }
  return out;
}

}  // namespace

TiedNeighbourSearch::TiedNeighbourSearch(const AttackDistance& distance, TiedSearchMode mode)
    : distance_(distance), mode_(mode) {
  const std::size_t n = distance.reference_rows(), m = distance.query_rows();
  query_order_.resize(m);
  std::iota(query_order_.begin(), query_order_.end(), 0u);
  if (mode == TiedSearchMode::kFullScan) return;
  std::vector<std::size_t> categorical = distance.categorical_columns();
  CodeColumns reference_codes = code_columns(distance.reference(), categorical);
  const auto perm = columns_by_distinct_values(reference_codes);
  CodeColumns ordered;
  for (std::size_t c : perm) ordered.push_back(std::move(reference_codes[c]));
  const std::size_t ng = signature_prefix_length(ordered, n, 64);
  std::vector<std::size_t> signature;
  for (std::size_t i = 0; i < ng; ++i) signature.push_back(categorical[perm[i]]);
  ordered.resize(ng);
  std::vector<double> projections(n);
  for (std::size_t r = 0; r < n; ++r)
    projections[r] = projection(distance, distance.reference(), r);
  groups_ = group_by_signature(ordered, ng, n, projections);
  reference_projection_.resize(n);
  for (std::size_t pos = 0; pos < n; ++pos)
    reference_projection_[pos] = projections[groups_.order[pos]];
  const std::size_t groups = groups_.groups();
  group_signature_.resize(groups * ng);
  group_low_.resize(groups);
  group_high_.resize(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t first = groups_.start[g], end = groups_.start[g + 1];
    for (std::size_t c = 0; c < ng; ++c)
      group_signature_[g * ng + c] = ordered[c][groups_.order[first]];
    group_low_[g] = reference_projection_[first];
    group_high_[g] = reference_projection_[end - 1];
  }
  const auto& numeric = distance.numeric_columns();
  reference_numeric_.resize(numeric.size() * n);
  for (std::size_t i = 0; i < numeric.size(); ++i) {
    const auto& values = distance.reference().column(numeric[i]).numeric;
    for (std::size_t pos = 0; pos < n; ++pos)
      reference_numeric_[i * n + pos] = values[groups_.order[pos]];
  }
  reference_codes_.resize(categorical.size() * n);
  for (std::size_t i = 0; i < categorical.size(); ++i) {
    const auto& codes = distance.reference().column(categorical[i]).codes;
    for (std::size_t pos = 0; pos < n; ++pos)
      reference_codes_[i * n + pos] = codes[groups_.order[pos]];
  }
  query_codes_ = code_columns(distance.query(), signature);
  query_projection_.resize(m);
  for (std::size_t q = 0; q < m; ++q)
    query_projection_[q] = projection(distance, distance.query(), q);
  std::sort(query_order_.begin(), query_order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (std::size_t c = 0; c < ng; ++c)
      if (query_codes_[c][a] != query_codes_[c][b]) return query_codes_[c][a] < query_codes_[c][b];
    if (query_projection_[a] != query_projection_[b])
      return query_projection_[a] < query_projection_[b];
    return a < b;
  });
  // The computed distance and projections each carry a relative error of a few ulps of values
  // at most p = (numeric + categorical columns); 1e-9 per column is far above it and prunes as
  // well.
  margin_ = 1e-9 * static_cast<double>(1 + distance.numeric_columns().size() +
                                       distance.categorical_columns().size());
}

TiedNeighbours TiedNeighbourSearch::nearest(std::size_t q, std::size_t k,
                                            TiedNeighbourScratch& s) const {
  if (k == 0) throw InputError("tied nearest neighbours: k must be at least 1");
  const std::size_t n = distance_.reference_rows();
  if (mode_ == TiedSearchMode::kFullScan || n <= k) return tied_nearest(distance_, q, k, s);
  const std::size_t ng = groups_.signature_columns, groups = groups_.groups();
  // Group bounds and visit order, kept while consecutive queries share the signature.
  bool same = s.signature_of == this && s.signature.size() == ng;
  for (std::size_t c = 0; same && c < ng; ++c) same = s.signature[c] == query_codes_[c][q];
  if (!same) {
    s.signature.resize(ng);
    for (std::size_t c = 0; c < ng; ++c) s.signature[c] = query_codes_[c][q];
    s.signature_of = this;
    s.bound.resize(groups);
    s.visit.resize(groups);
    s.count.assign(ng + 2, 0);
    for (std::size_t g = 0; g < groups; ++g) {
      std::uint32_t mismatches = 0;
      for (std::size_t c = 0; c < ng; ++c)
        mismatches += group_signature_[g * ng + c] != s.signature[c];
      s.bound[g] = mismatches;
      ++s.count[mismatches + 1];
    }
    for (std::size_t c = 1; c < s.count.size(); ++c) s.count[c] += s.count[c - 1];
    for (std::size_t g = 0; g < groups; ++g)
      s.visit[s.count[s.bound[g]]++] = static_cast<std::uint32_t>(g);
  }
  s.heap.clear();
  s.candidates.clear();
  const auto& numeric = distance_.numeric_columns();
  const auto& categorical = distance_.categorical_columns();
  const auto& ranges = distance_.ranges();
  s.query_numeric.resize(numeric.size());
  for (std::size_t i = 0; i < numeric.size(); ++i)
    s.query_numeric[i] = distance_.query().column(numeric[i]).numeric[q];
  s.query_codes.resize(categorical.size());
  for (std::size_t i = 0; i < categorical.size(); ++i)
    s.query_codes[i] = distance_.query().column(categorical[i]).codes[q];
  // AttackDistance::operator() on the position-ordered copy: the same operations in the same
  // order, so the same double.
  auto distance_at = [&](std::size_t pos) {
    double sum = 0.0;
    for (std::size_t i = 0; i < numeric.size(); ++i) {
      const double x = s.query_numeric[i], y = reference_numeric_[i * n + pos];
      const bool mx = is_missing(x), my = is_missing(y);
      sum += (mx || my) ? (mx && my ? 0.0 : 1.0) : std::fabs(x - y) / ranges[i];
    }
    std::uint32_t mismatches = 0;
    for (std::size_t i = 0; i < categorical.size(); ++i)
      mismatches += s.query_codes[i] != reference_codes_[i * n + pos];
    return sum + static_cast<double>(mismatches);
  };
  double kth = INFINITY;  // k-th smallest distance so far
  auto consider = [&](std::size_t pos) {
    const double d = distance_at(pos);
    if (d > kth) return;
    s.candidates.emplace_back(d, groups_.order[pos]);
    if (s.heap.size() < k) {
      s.heap.push_back(d);
      std::push_heap(s.heap.begin(), s.heap.end());
    } else if (d < s.heap.front()) {
      std::pop_heap(s.heap.begin(), s.heap.end());
      s.heap.back() = d;
      std::push_heap(s.heap.begin(), s.heap.end());
    }
    if (s.heap.size() == k) kth = s.heap.front();
  };
  const double qp = query_projection_[q];
  const double* proj = reference_projection_.data();
  for (std::size_t vi = 0; vi < groups; ++vi) {
    const std::size_t g = s.visit[vi];
    const double mismatches = static_cast<double>(s.bound[g]);
    if (mismatches - margin_ > kth) break;  // every later group differs on as many columns
    const double gap = std::max({0.0, group_low_[g] - qp, qp - group_high_[g]});
    if (mismatches + gap - margin_ > kth) continue;
    const std::size_t first = groups_.start[g], end = groups_.start[g + 1];
    const auto middle =
        static_cast<std::size_t>(std::lower_bound(proj + first, proj + end, qp) - proj);
    for (std::size_t pos = middle; pos < end; ++pos) {
      if (mismatches + (proj[pos] - qp) - margin_ > kth) break;
      consider(pos);
    }
    for (std::size_t pos = middle; pos > first; --pos) {
      if (mismatches + (qp - proj[pos - 1]) - margin_ > kth) break;
      consider(pos - 1);
    }
  }
  s.sure.clear();
  s.tied.clear();
  for (const auto& [d, row] : s.candidates) {
    if (d < kth) {
      s.sure.push_back(row);
    } else if (d == kth) {
      s.tied.push_back(row);
    }
  }
  std::sort(s.sure.begin(), s.sure.end());
  std::sort(s.tied.begin(), s.tied.end());
  TiedNeighbours out;
  out.sure = s.sure;
  out.tied = s.tied;
  out.picks = k - s.sure.size();
  out.kth_distance = kth;
  return out;
}

TiedNeighbourLists::TiedNeighbourLists(const Table& query, const Table& reference,
                                       std::vector<std::size_t> columns, std::size_t k,
                                       std::size_t byte_budget, ProgressSink* progress,
                                       const std::string& task)
    : distance_(std::make_unique<AttackDistance>(query, reference, std::move(columns))),
      search_(std::make_unique<TiedNeighbourSearch>(*distance_)),
      k_(k) {
  if (k == 0) throw InputError("tied nearest neighbours: k must be at least 1");
  const std::size_t m = query.rows();
  const auto& order = search_->query_order();
  // Per query until the total is known; abandoned (and searched again when asked) past the budget.
  std::vector<std::vector<std::uint32_t>> rows(m);
  sure_count_.assign(m, 0);
  picks_.assign(m, 0);
  kth_.assign(m, 0.0);
  std::size_t bytes = 0;
  int over = 0;
  ProgressTracker tracker(progress, task, m);
  constexpr std::size_t kChunk = 64;
#pragma omp parallel num_threads(parallel_threads())
  {
    TiedNeighbourScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t chunk = 0; chunk < (m + kChunk - 1) / kChunk; ++chunk) {
      int give_up;
#pragma omp atomic read
      give_up = over;
      if (give_up || tracker.stopped()) continue;
      std::size_t added = 0;
      const std::size_t end = std::min(m, (chunk + 1) * kChunk);
      for (std::size_t i = chunk * kChunk; i < end; ++i) {
        const std::uint32_t q = order[i];
        const auto found = search_->nearest(q, k, scratch);
        auto& list = rows[q];
        list.reserve(found.sure.size() + found.tied.size());
        list.assign(found.sure.begin(), found.sure.end());
        list.insert(list.end(), found.tied.begin(), found.tied.end());
        sure_count_[q] = static_cast<std::uint32_t>(found.sure.size());
        picks_[q] = static_cast<std::uint32_t>(found.picks);
        kth_[q] = found.kth_distance;
        added += list.size() * sizeof(std::uint32_t);
      }
      tracker.advance(end - chunk * kChunk);
#pragma omp critical(tied_neighbour_lists_bytes)
      {
        bytes += added;
        if (bytes > byte_budget) {
#pragma omp atomic write
          over = 1;
        }
      }
    }
  }
  tracker.throw_if_stopped();
  if (over) {
    sure_count_ = {};
    picks_ = {};
    kth_ = {};
    return;
  }
  offset_.assign(m + 1, 0);
  for (std::size_t q = 0; q < m; ++q) offset_[q + 1] = offset_[q] + rows[q].size();
  rows_.resize(offset_[m]);
  for (std::size_t q = 0; q < m; ++q) {
    std::copy(rows[q].begin(), rows[q].end(),
              rows_.begin() + static_cast<std::ptrdiff_t>(offset_[q]));
    std::vector<std::uint32_t>().swap(rows[q]);
  }
  stored_ = true;
}

TiedNeighbourLists::TiedNeighbourLists(std::size_t k, std::vector<std::size_t> offset,
                                       std::vector<std::uint32_t> rows,
                                       std::vector<std::uint32_t> sure_count,
                                       std::vector<std::uint32_t> picks, std::vector<double> kth)
    : k_(k),
      stored_(true),
      offset_(std::move(offset)),
      rows_(std::move(rows)),
      sure_count_(std::move(sure_count)),
      picks_(std::move(picks)),
      kth_(std::move(kth)) {
  const std::size_t m = sure_count_.size();
  if (offset_.size() != m + 1 || picks_.size() != m || kth_.size() != m ||
      offset_.back() != rows_.size())
    throw std::logic_error("tied neighbour lists: inconsistent sizes");
  row_order_.resize(m);
  std::iota(row_order_.begin(), row_order_.end(), 0u);
}

TiedNeighbours TiedNeighbourLists::of(std::size_t q, TiedNeighbourScratch& scratch) const {
  if (!stored_) return search_->nearest(q, k_, scratch);
  TiedNeighbours out;
  const std::uint32_t* first = rows_.data() + offset_[q];
  out.sure = std::span<const std::uint32_t>(first, sure_count_[q]);
  out.tied = std::span<const std::uint32_t>(first + sure_count_[q],
                                            offset_[q + 1] - offset_[q] - sure_count_[q]);
  out.picks = picks_[q];
  out.kth_distance = kth_[q];
  return out;
}

std::size_t TiedNeighbourLists::bytes() const {
  return rows_.size() * sizeof(std::uint32_t) + offset_.size() * sizeof(std::size_t) +
         (sure_count_.size() + picks_.size()) * sizeof(std::uint32_t) +
         kth_.size() * sizeof(double);
}

double shared_pick_probability(const TiedNeighbours& a, const TiedNeighbours& b) {
  if (common_count(a.sure, b.sure) > 0) return 1.0;
  const std::size_t x = common_count(a.sure, b.tied);
  const std::size_t y = common_count(a.tied, b.sure);
  const std::size_t c = common_count(a.tied, b.tied);
  const std::size_t ta = a.tied.size(), tb = b.tied.size();
  const std::size_t ra = a.picks, rb = b.picks;
  const long double all_a = choose(ta, ra), all_b = choose(tb, rb);
  long double no_common = 0.0L;
  for (std::size_t j = 0; j <= std::min(c, ra); ++j) {
    if (ra - j > ta - y - c || x + j > tb) continue;
    const long double a_way = choose(c, j) * choose(ta - y - c, ra - j) / all_a;
    const long double b_way = choose(tb - x - j, rb) / all_b;
    no_common += a_way * b_way;
  }
  return static_cast<double>(std::clamp(1.0L - no_common, 0.0L, 1.0L));
}

}  // namespace synthaudit::stats
