#include "stats/tied_neighbours.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

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
  if (columns.empty()) throw InputError("attack distance: no columns");
  for (std::size_t c : columns) {
    if (c >= query.columns().size() || c >= reference.columns().size())
      throw InputError("attack distance: column index out of range");
    if (query.column(c).is_numeric()) {
      double lo = INFINITY, hi = -INFINITY;
      extend_range(query.column(c), lo, hi);
      extend_range(reference.column(c), lo, hi);
      const double range = hi - lo;
      numeric_.push_back(c);
      range_.push_back(std::isfinite(range) && range > 0 ? range : 1.0);
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
