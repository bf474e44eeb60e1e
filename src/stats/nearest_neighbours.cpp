#include "stats/nearest_neighbours.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <unordered_map>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/error.hpp"
#include "core/threads.hpp"
#include "stats/signature_groups.hpp"

// Why a hand-written kernel: the libraries at hand either do not support mixed Gower distances
// (faiss, Eigen), or build an n × m matrix / run one task per query with a full sort (sklearn,
// anonymeter, SynthEval), 30–3000 times slower than this layout (see
// ../shared/notes/nearest-neighbour.md and bench/RESULTS.md). The Gower/Hamming search runs a
// single-precision SIMD pass that only decides which reference rows might enter a query's top k
// (within a proven error margin); every such row is then recomputed in double by the exact
// definition and inserted by (distance, reference index), so the result equals a plain double
// loop bit for bit.

namespace synthaudit::stats {

const char* to_string(DistanceKind kind) {
  switch (kind) {
    case DistanceKind::kGower:
      return "gower";
    case DistanceKind::kEuclidean:
      return "euclidean";
    case DistanceKind::kHamming:
      return "hamming";
    case DistanceKind::kCosine:
      return "cosine";
  }
  return "?";
}

DistanceKind distance_from_string(const std::string& name, const std::string& where) {
  for (auto kind : {DistanceKind::kGower, DistanceKind::kEuclidean, DistanceKind::kHamming,
                    DistanceKind::kCosine})
    if (name == to_string(kind)) return kind;
  throw InputError(where + ": unknown distance '" + name +
                   "' (expected gower, euclidean, hamming or cosine)");
}

std::vector<double> Neighbours::nearest() const {
  std::vector<double> out(queries);
  for (std::size_t q = 0; q < queries; ++q) out[q] = k > 0 ? distance[q * k] : NAN;
  return out;
}

namespace {

using ColumnStats = ColumnScale;

ColumnStats column_stats(const Column& column) {
  ColumnStats s;
  if (!column.is_numeric()) return s;
  double sum = 0.0;
  std::size_t n = 0;
  for (double v : column.numeric) {
    if (std::isnan(v)) continue;
    if (n == 0 || v < s.lo) s.lo = v;
    if (n == 0 || v > s.hi) s.hi = v;
    sum += v;
    ++n;
  }
  if (n == 0) return s;
  s.mean = sum / static_cast<double>(n);
  if (n > 1) {
    double ss = 0.0;
    for (double v : column.numeric)
      if (!std::isnan(v)) ss += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(ss / static_cast<double>(n - 1));
  }
  return s;
}

// Column c's scales: given ones, or computed from the scale table.
ColumnStats scale_of(const NeighbourOptions& options, const Table& scale, std::size_t c) {
  if (!options.scales) return column_stats(scale.column(c));
  if (c >= options.scales->size())
    throw std::logic_error("nearest neighbours: the given scales have too few columns");
  return (*options.scales)[c];
}

std::vector<std::size_t> resolve_columns(const Table& query, const Table& reference,
                                         const NeighbourOptions& options) {
  if (options.k == 0) throw InputError("nearest neighbours: k must be at least 1");
  std::vector<std::size_t> cols = options.columns;
  if (cols.empty()) {
    cols.resize(reference.column_count());
    std::iota(cols.begin(), cols.end(), 0);
  }
  for (auto c : cols) {
    if (c >= reference.column_count() || c >= query.column_count())
      throw InputError("nearest neighbours: column index " + std::to_string(c) + " out of range");
    if (query.column(c).kind != reference.column(c).kind)
      throw InputError("nearest neighbours: column '" + reference.column(c).name +
                       "' has different kinds in the two tables");
  }
  if (cols.empty()) throw MetricNotApplicable("no columns to compute distances on");
  return cols;
}

// Gower contribution of one numeric column with a usable range (the exact definition).
inline double gower_numeric(double x, double y, double range) {
  const bool mx = std::isnan(x), my = std::isnan(y);
  if (mx || my) return (mx && my) ? 0.0 : 1.0;
  return std::min(std::fabs(x - y) / range, 1.0);
}

inline bool numeric_equal(double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; }

inline bool usable_range(double range) { return std::isfinite(range) && range > 0.0; }

// Top-k list of one query, sorted by (distance, reference index).
struct TopK {
  double* d;
  std::uint32_t* i;
  std::size_t k;
  bool contains(std::uint32_t idx) const {
    for (std::size_t r = 0; r < k; ++r)
      if (i[r] == idx) return true;
    return false;
  }
  // Inserts unless worse than the k-th or already present. Returns true when inserted.
  bool insert(double dist, std::uint32_t idx) {
    const std::size_t last = k - 1;
    if (dist > d[last] || (dist == d[last] && idx >= i[last])) return false;
    if (contains(idx)) return false;
    std::size_t pos = last;
    while (pos > 0 && (dist < d[pos - 1] || (dist == d[pos - 1] && idx < i[pos - 1]))) {
      d[pos] = d[pos - 1];
      i[pos] = i[pos - 1];
      --pos;
    }
    d[pos] = dist;
    i[pos] = idx;
    return true;
  }
};

// ---------------------------------------------------------------------------------------------
// Gower / Hamming
// ---------------------------------------------------------------------------------------------

constexpr int kLanes = 16;  // floats per vector (one AVX-512 register; two AVX2 registers)
constexpr int kBlock = 8;   // queries held in registers at once
constexpr float kMissingSentinel = 1.0e4f;
typedef float VecF __attribute__((vector_size(kLanes * sizeof(float))));
typedef std::int32_t VecI __attribute__((vector_size(kLanes * sizeof(std::int32_t))));

#if !defined(__AVX512F__)
// By reference: a 64-byte vector passed by value is passed differently with and without AVX
// (GCC's -Wpsabi), so the function's ABI would depend on -march.
inline bool any_lane(const VecI& m) {
  std::int32_t r = 0;
  for (int l = 0; l < kLanes; ++l) r |= m[l];
  return r != 0;
}
#endif

struct GowerData {
  std::size_t p = 0;
  // Numeric columns with a usable range (position in table, range, lower bound).
  std::vector<std::size_t> num_cols;
  std::vector<double> num_range, num_lo;
  std::vector<std::size_t> code_cols;  // categorical, or numeric compared by equality
  std::size_t n = 0, npad = 0;
  std::vector<float> rnum;           // column-major, npad per column, in scan order
  std::vector<std::int32_t> rcode;   // column-major, npad per column, in scan order
  std::vector<std::uint32_t> order;  // scan position -> reference row
  std::vector<float> qnum;           // row-major, nnum per query
  std::vector<std::int32_t> qcode;   // row-major, ncode per query
  // Projection of every record onto the sum of its numeric columns scaled to [0, 1] (clamped,
  // missing = 0.5): |P(x) - P(y)| <= S_num(x, y), a lower bound of the numeric part.
  std::vector<double> rproj;  // in scan order
  std::vector<double> qproj;  // per query
  const Table* query = nullptr;
  const Table* reference = nullptr;
  double margin = 0.0;  // in units of the sum S + C

  std::size_t nnum() const { return num_cols.size(); }
  std::size_t ncode() const { return code_cols.size(); }

  // Exact distance of query q to the reference row at scan position pos.
  double exact(std::size_t q, std::size_t pos) const {
    const std::size_t row = order[pos];
    double s = 0.0;
    for (std::size_t c = 0; c < num_cols.size(); ++c)
      s += gower_numeric(query->column(num_cols[c]).numeric[q],
                         reference->column(num_cols[c]).numeric[row], num_range[c]);
    std::size_t mism = 0;
    const std::size_t nc = ncode();
    for (std::size_t c = 0; c < nc; ++c) mism += qcode[q * nc + c] != rcode[c * npad + pos];
    return (s + static_cast<double>(mism)) / static_cast<double>(p);
  }
};

// Codes for a column compared by equality only; numeric values are mapped through a dictionary
// of bit patterns shared by both tables. Missing = -1 in both.
void equality_codes(const Column& qc, const Column& rc, std::vector<std::int32_t>& qout,
                    std::vector<std::int32_t>& rout) {
  qout.resize(qc.size());
  rout.resize(rc.size());
  if (qc.is_categorical()) {
    for (std::size_t i = 0; i < qc.size(); ++i) qout[i] = static_cast<std::int32_t>(qc.codes[i]);
    for (std::size_t i = 0; i < rc.size(); ++i) rout[i] = static_cast<std::int32_t>(rc.codes[i]);
    return;  // kMissingCode becomes -1 on both sides
  }
  std::unordered_map<std::uint64_t, std::int32_t> dict;
  auto code = [&](double v) -> std::int32_t {
    if (std::isnan(v)) return -1;
    if (v == 0.0) v = 0.0;  // -0 == +0
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    auto [it, inserted] = dict.emplace(bits, static_cast<std::int32_t>(dict.size()));
    return it->second;
  };
  for (std::size_t i = 0; i < rc.size(); ++i) rout[i] = code(rc.numeric[i]);
  for (std::size_t i = 0; i < qc.size(); ++i) qout[i] = code(qc.numeric[i]);
}

float scaled(double v, double lo, double range) {
  if (std::isnan(v)) return kMissingSentinel;
  // Clamping both sides to [-2, 3] only shrinks differences (a lower bound, so the filter stays
  // conservative) and is exact when the true contribution is below 1.
  return static_cast<float>(std::clamp((v - lo) / range, -2.0, 3.0));
}

// Scans scan positions [a, b) for a block of up to kBlock queries. `base` is the number of
// mismatches on the code columns before `code_from` (grouped mode: the group's signature columns,
// equal for the whole block and the whole range); the fast pass adds the code columns from
// `code_from` on.
void scan_block(const GowerData& g, const std::size_t* qids, int nq, std::size_t a, std::size_t b,
                float base, std::size_t code_from, std::vector<TopK>& tops,
                std::uint64_t& recomputed) {
  const std::size_t nn = g.nnum(), nc = g.ncode();
  const double pd = static_cast<double>(g.p);
  float thr[kBlock];
  const float* qn[kBlock];
  const std::int32_t* qc[kBlock];
  // Only categorical (code) columns: the float sums are exact integers, so candidates can be
  // decided exactly here and ties at the k-th distance need no recomputation unless their row is
  // lower (this keeps categorical-only searches with many ties fast).
  const bool integer_exact = nn == 0;
  auto threshold = [&](int q) {
    const TopK& t = tops[q];
    const double last = t.d[t.k - 1];
    if (std::isinf(last)) return INFINITY;
    return integer_exact ? static_cast<float>(std::round(last * pd))
                         : static_cast<float>(last * pd + g.margin);
  };
  for (int q = 0; q < kBlock; ++q) {
    const int src = q < nq ? q : 0;
    qn[q] = g.qnum.data() + qids[src] * nn;
    qc[q] = g.qcode.data() + qids[src] * nc;
    thr[q] = q < nq ? threshold(q) : -1.0f;
  }
  auto handle = [&](int q, std::size_t j, const float* lane_acc) {
    for (int l = 0; l < kLanes; ++l) {
      const std::size_t pos = j + static_cast<std::size_t>(l);
      if (pos >= b || !(lane_acc[l] <= thr[q])) continue;
      if (integer_exact && lane_acc[l] == thr[q] && g.order[pos] > tops[q].i[tops[q].k - 1])
        continue;
      ++recomputed;
      if (tops[q].insert(g.exact(qids[q], pos), g.order[pos])) thr[q] = threshold(q);
    }
  };
#if defined(__AVX512F__)
#pragma GCC diagnostic push
// GCC 12's own _mm512_min_ps uses _mm512_undefined_ps() and trips -Wmaybe-uninitialized.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
  // Explicit AVX-512: GCC splits 64-byte generic vectors into two 256-bit halves on most Intel
  // targets (prefer-vector-width=256), which halves the throughput of this loop.
  const __m512 one = _mm512_set1_ps(1.0f);
  [[maybe_unused]] const __m512i absmask = _mm512_set1_epi32(0x7fffffff);
  for (std::size_t j = a; j < b; j += kLanes) {
    __m512 acc[kBlock];
    for (int q = 0; q < kBlock; ++q) acc[q] = _mm512_set1_ps(base);
    for (std::size_t c = 0; c < nn; ++c) {
      const __m512 v = _mm512_loadu_ps(g.rnum.data() + c * g.npad + j);
      for (int q = 0; q < kBlock; ++q) {
        const __m512 diff = _mm512_sub_ps(v, _mm512_set1_ps(qn[q][c]));
#if defined(__AVX512DQ__)
        // vrangeps imm 0b1010: the smaller magnitude of (diff, 1) with the sign cleared, i.e.
        // min(|diff|, 1) in one instruction instead of and + min.
        acc[q] = _mm512_add_ps(acc[q], _mm512_range_ps(diff, one, 0x0A));
#else
        const __m512 d = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(diff), absmask));
        acc[q] = _mm512_add_ps(acc[q], _mm512_min_ps(d, one));
#endif
      }
    }
    {
      for (std::size_t c = code_from; c < nc; ++c) {
        const __m512i v = _mm512_loadu_si512(g.rcode.data() + c * g.npad + j);
        for (int q = 0; q < kBlock; ++q) {
          const __mmask16 m = _mm512_cmpneq_epi32_mask(v, _mm512_set1_epi32(qc[q][c]));
          acc[q] = _mm512_mask_add_ps(acc[q], m, acc[q], one);
        }
      }
    }
    __mmask16 any = 0;
    for (int q = 0; q < kBlock; ++q)
      any |= _mm512_cmp_ps_mask(acc[q], _mm512_set1_ps(thr[q]), _CMP_LE_OQ);
    if (any == 0) continue;
    for (int q = 0; q < nq; ++q) {
      alignas(64) float lane_acc[kLanes];
      _mm512_store_ps(lane_acc, acc[q]);
      handle(q, j, lane_acc);
    }
  }
#pragma GCC diagnostic pop
#else
  // Portable fallback with GCC/Clang vector extensions (AVX2, SSE, NEON or scalar code).
  const VecF one = VecF{} + 1.0f;
  const VecF zero = VecF{};
  const VecI absmask = VecI{} + 0x7fffffff;
  for (std::size_t j = a; j < b; j += kLanes) {
    VecF acc[kBlock];
    for (int q = 0; q < kBlock; ++q) acc[q] = zero + base;
    for (std::size_t c = 0; c < nn; ++c) {
      VecF v;
      std::memcpy(&v, g.rnum.data() + c * g.npad + j, sizeof v);
      for (int q = 0; q < kBlock; ++q) {
        VecF d = v - qn[q][c];
        d = (VecF)((VecI)d & absmask);
        d = d < one ? d : one;
        acc[q] += d;
      }
    }
    {
      for (std::size_t c = code_from; c < nc; ++c) {
        VecI v;
        std::memcpy(&v, g.rcode.data() + c * g.npad + j, sizeof v);
        for (int q = 0; q < kBlock; ++q) acc[q] += (v != qc[q][c]) ? one : zero;
      }
    }
    VecI hit = VecI{};
    for (int q = 0; q < kBlock; ++q) hit |= (acc[q] <= thr[q]);
    if (!any_lane(hit)) continue;
    for (int q = 0; q < nq; ++q) {
      float lane_acc[kLanes];
      std::memcpy(lane_acc, &acc[q], sizeof lane_acc);
      handle(q, j, lane_acc);
    }
  }
#endif
}

// Why the projection bounds the distance: clamping to [0, 1] is 1-Lipschitz and capped, so
// |clamp(x) - clamp(y)| <= min(|x - y| / R, 1) per column, and any value in [0, 1] for a missing
// one keeps the bound (one missing counts 1, both missing 0); the triangle inequality then gives
// |P(x) - P(y)| <= S_num. Scan positions of [begin, end) are sorted by P: the positions between
// the block's lowest and highest projection are scanned first, then chunks outwards on both
// sides until base + the projection gap exceeds every query's current k-th distance (plus the
// rounding margin). Returns the number of positions scanned.
std::size_t scan_projected(const GowerData& g, const std::size_t* qids, int nq, std::size_t begin,
                           std::size_t end, std::uint32_t base, std::size_t code_from,
                           std::vector<TopK>& tops, std::uint64_t& recomputed) {
  constexpr std::size_t kChunk = 8 * kLanes;
  double lo = INFINITY, hi = -INFINITY;
  for (int q = 0; q < nq; ++q) {
    lo = std::min(lo, g.qproj[qids[q]]);
    hi = std::max(hi, g.qproj[qids[q]]);
  }
  const double* proj = g.rproj.data();
  std::size_t left =
      static_cast<std::size_t>(std::lower_bound(proj + begin, proj + end, lo) - proj);
  std::size_t right =
      static_cast<std::size_t>(std::upper_bound(proj + left, proj + end, hi) - proj);
  const float base_f = static_cast<float>(base);
  if (left < right) scan_block(g, qids, nq, left, right, base_f, code_from, tops, recomputed);
  std::size_t scanned = right - left;
  const double pd = static_cast<double>(g.p);
  const double based = static_cast<double>(base);
  bool go_left = left > begin, go_right = right < end;
  while (go_left || go_right) {
    double worst = 0.0;
    for (int q = 0; q < nq; ++q) worst = std::max(worst, tops[q].d[tops[q].k - 1]);
    const double limit = worst * pd + g.margin;
    if (go_left) {
      if (based + (lo - proj[left - 1]) > limit) {
        go_left = false;
      } else {
        const std::size_t a = left - begin > kChunk ? left - kChunk : begin;
        scan_block(g, qids, nq, a, left, base_f, code_from, tops, recomputed);
        scanned += left - a;
        left = a;
        go_left = left > begin;
      }
    }
    if (go_right) {
      if (based + (proj[right] - hi) > limit) {
        go_right = false;
      } else {
        const std::size_t b = end - right > kChunk ? right + kChunk : end;
        scan_block(g, qids, nq, right, b, base_f, code_from, tops, recomputed);
        scanned += b - right;
        right = b;
        go_right = right < end;
      }
    }
  }
  return scanned;
}

struct RowHash {
  std::uint64_t operator()(const GowerData& g, const std::int32_t* codes,
                           const std::vector<const double*>& nums, std::size_t row) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    auto mix = [&](std::uint64_t x) {
      h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdULL;
    };
    for (std::size_t c = 0; c < g.ncode(); ++c) mix(static_cast<std::uint32_t>(codes[c]));
    for (auto* col : nums) {
      double v = col[row];
      std::uint64_t bits = 0x7ff8dead;
      if (!std::isnan(v)) {
        if (v == 0.0) v = 0.0;
        std::memcpy(&bits, &v, sizeof bits);
      }
      mix(bits);
    }
    return h;
  }
};

Neighbours gower_search(const Table& query, const Table& reference, const NeighbourOptions& opt,
                        const std::vector<std::size_t>& cols) {
  const Table& scale = opt.scale ? *opt.scale : reference;
  GowerData g;
  g.query = &query;
  g.reference = &reference;
  g.p = cols.size();
  const std::size_t m = query.rows();
  g.n = reference.rows();
  std::vector<std::vector<std::int32_t>> qcodes_cols, rcodes_cols;
  for (auto c : cols) {
    const Column& rc = reference.column(c);
    double range = NAN, lo = NAN;
    if (rc.is_numeric() && opt.distance == DistanceKind::kGower) {
      const ColumnStats s = scale_of(opt, scale, c);
      range = s.hi - s.lo;
      lo = s.lo;
    }
    if (usable_range(range)) {
      g.num_cols.push_back(c);
      g.num_range.push_back(range);
      g.num_lo.push_back(lo);
    } else {
      g.code_cols.push_back(c);
      qcodes_cols.emplace_back();
      rcodes_cols.emplace_back();
      equality_codes(query.column(c), rc, qcodes_cols.back(), rcodes_cols.back());
    }
  }
  const std::size_t nn = g.nnum(), nc = g.ncode();
  const double pd = static_cast<double>(g.p);
  g.margin = pd * 2e-6 + pd * pd * 1.2e-7 + 1e-9;

  // Code columns ordered by their number of distinct reference values, fewest first; the
  // signature groups use the longest prefix of them that keeps the groups large (at least 64 rows
  // each on average). The other code columns are counted in the fast pass.
  std::size_t group_cols = 0;
  if (nc > 0 && (opt.mode == SearchMode::kAuto || opt.mode == SearchMode::kGrouped)) {
    const auto perm = columns_by_distinct_values(rcodes_cols);
    auto permute = [&](auto& v) {
      auto copy = v;
      for (std::size_t c = 0; c < nc; ++c) v[c] = std::move(copy[perm[c]]);
    };
    permute(g.code_cols);
    permute(qcodes_cols);
    permute(rcodes_cols);
    group_cols = signature_prefix_length(rcodes_cols, g.n, 64);
    if (opt.mode == SearchMode::kGrouped) group_cols = std::max<std::size_t>(group_cols, 1);
  }
  const std::size_t ng = group_cols;

  Neighbours result;
  result.k = opt.k;
  result.queries = m;
  result.distance.assign(m * opt.k, INFINITY);
  result.index.assign(m * opt.k, kNoNeighbour);
  if (m == 0 || g.n == 0) return result;

  // Query side, row-major.
  g.qnum.resize(m * nn);
  g.qcode.resize(m * nc);
  for (std::size_t c = 0; c < nn; ++c) {
    const auto& x = query.column(g.num_cols[c]).numeric;
    for (std::size_t q = 0; q < m; ++q)
      g.qnum[q * nn + c] = scaled(x[q], g.num_lo[c], g.num_range[c]);
  }
  for (std::size_t c = 0; c < nc; ++c)
    for (std::size_t q = 0; q < m; ++q) g.qcode[q * nc + c] = qcodes_cols[c][q];

  // Exact copies by hashing, and the projections: raw numeric columns of both tables.
  std::vector<const double*> qnum_raw, rnum_raw;
  for (auto c : g.num_cols) {
    qnum_raw.push_back(query.column(c).numeric.data());
    rnum_raw.push_back(reference.column(c).numeric.data());
  }
  auto project = [&](const std::vector<const double*>& raw, std::size_t row) {
    double s = 0.0;
    for (std::size_t c = 0; c < nn; ++c) {
      const double v = raw[c][row];
      s += std::isnan(v) ? 0.5 : std::clamp((v - g.num_lo[c]) / g.num_range[c], 0.0, 1.0);
    }
    return s;
  };
  std::vector<double> rproj(g.n);
  for (std::size_t j = 0; j < g.n; ++j) rproj[j] = project(rnum_raw, j);
  g.qproj.resize(m);
  for (std::size_t q = 0; q < m; ++q) g.qproj[q] = project(qnum_raw, q);

  // Categorical signature groups of the reference, each sorted by projection.
  std::vector<std::uint32_t> by_sig;
  std::vector<std::size_t> group_start;
  if (ng > 0) {
    SignatureGroups signature_groups = group_by_signature(rcodes_cols, ng, g.n, rproj);
    by_sig = std::move(signature_groups.order);
    group_start = std::move(signature_groups.start);
  } else {
    by_sig.resize(g.n);
    std::iota(by_sig.begin(), by_sig.end(), 0u);
    group_start.push_back(g.n);
  }
  const std::size_t groups = group_start.size() - 1;

  RowHash hasher;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> rhash(g.n);
  {
    std::vector<std::int32_t> buf(nc);
    for (std::size_t j = 0; j < g.n; ++j) {
      for (std::size_t c = 0; c < nc; ++c) buf[c] = rcodes_cols[c][j];
      rhash[j] = {hasher(g, buf.data(), rnum_raw, j), static_cast<std::uint32_t>(j)};
    }
  }
  std::sort(rhash.begin(), rhash.end());

  // Which queries still need a search after the exact-copy shortcut.
  std::vector<char> needs_search(m, 1);
  std::size_t shortcuts = 0;
#pragma omp parallel for schedule(static) reduction(+ : shortcuts) num_threads(parallel_threads())
  for (std::size_t q = 0; q < m; ++q) {
    TopK top{result.distance.data() + q * opt.k, result.index.data() + q * opt.k, opt.k};
    const std::uint64_t h = hasher(g, g.qcode.data() + q * nc, qnum_raw, q);
    auto it = std::lower_bound(rhash.begin(), rhash.end(), std::make_pair(h, 0u));
    std::size_t copies = 0;
    for (; it != rhash.end() && it->first == h && copies < opt.k; ++it) {
      const std::uint32_t j = it->second;
      bool equal = true;
      for (std::size_t c = 0; c < nc && equal; ++c)
        equal = g.qcode[q * nc + c] == rcodes_cols[c][j];
      for (std::size_t c = 0; c < nn && equal; ++c)
        equal = numeric_equal(qnum_raw[c][q], rnum_raw[c][j]);
      if (equal && top.insert(0.0, j)) ++copies;
    }
    if (copies >= opt.k) {
      needs_search[q] = 0;
      ++shortcuts;
    }
  }
  result.exact_copy_shortcuts = shortcuts;
  ProgressTracker tracker(opt.progress, opt.progress_task, m);
  tracker.advance(shortcuts);

  // Query order and blocks. Grouped mode: queries sorted by (signature, projection), blocks never
  // cross a signature, so a whole block shares each reference group's mismatch count.
  // Projected mode: queries sorted by projection alone.
  std::vector<std::uint32_t> qorder;
  for (std::size_t q = 0; q < m; ++q)
    if (needs_search[q]) qorder.push_back(static_cast<std::uint32_t>(q));
  auto qsig_equal = [&](std::uint32_t a, std::uint32_t b) {
    return std::equal(g.qcode.begin() + a * nc, g.qcode.begin() + a * nc + ng,
                      g.qcode.begin() + b * nc);
  };
  auto qproj_less = [&](std::uint32_t a, std::uint32_t b) {
    if (g.qproj[a] != g.qproj[b]) return g.qproj[a] < g.qproj[b];
    return a < b;
  };
  bool grouped = false;
  std::vector<std::uint32_t> qsorted = qorder;
  std::vector<std::pair<std::size_t, std::size_t>> blocks;  // [begin, end) in qsorted
  const bool may_group = opt.mode == SearchMode::kAuto || opt.mode == SearchMode::kGrouped;
  if (ng > 0 && may_group) {
    std::sort(qsorted.begin(), qsorted.end(), [&](std::uint32_t a, std::uint32_t b) {
      for (std::size_t c = 0; c < ng; ++c)
        if (g.qcode[a * nc + c] != g.qcode[b * nc + c])
          return g.qcode[a * nc + c] < g.qcode[b * nc + c];
      return qproj_less(a, b);
    });
    for (std::size_t i = 0; i < qsorted.size();) {
      std::size_t e = i + 1;
      while (e < qsorted.size() && e - i < static_cast<std::size_t>(kBlock) &&
             qsig_equal(qsorted[i], qsorted[e]))
        ++e;
      blocks.emplace_back(i, e);
      i = e;
    }
    const double fill = blocks.empty() ? 0.0 : double(qsorted.size()) / double(blocks.size());
    grouped = opt.mode == SearchMode::kGrouped || (groups * 32 <= g.n && fill >= 2.0);
  }
  bool projected =
      !grouped && nn > 0 && (opt.mode == SearchMode::kAuto || opt.mode == SearchMode::kProjected);
  if (projected) {
    qsorted = qorder;
    std::sort(qsorted.begin(), qsorted.end(), qproj_less);
    blocks.clear();
    for (std::size_t i = 0; i < qsorted.size(); i += kBlock)
      blocks.emplace_back(i, std::min(qsorted.size(), i + kBlock));
  }
  result.grouped = grouped;

  // Reference arrays in scan order: signature then projection (grouped), projection
  // (projected), or row order.
  if (grouped) {
    g.order = by_sig;
  } else {
    g.order.resize(g.n);
    std::iota(g.order.begin(), g.order.end(), 0u);
    if (projected)
      std::sort(g.order.begin(), g.order.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (rproj[a] != rproj[b]) return rproj[a] < rproj[b];
        return a < b;
      });
  }
  g.npad = (g.n + kLanes - 1) / kLanes * kLanes + kLanes;
  g.rnum.assign(nn * g.npad, 0.0f);
  g.rcode.assign(nc * g.npad, -2);
  g.rproj.resize(g.n);
  for (std::size_t pos = 0; pos < g.n; ++pos) g.rproj[pos] = rproj[g.order[pos]];
  for (std::size_t c = 0; c < nn; ++c)
    for (std::size_t pos = 0; pos < g.n; ++pos)
      g.rnum[c * g.npad + pos] = scaled(rnum_raw[c][g.order[pos]], g.num_lo[c], g.num_range[c]);
  for (std::size_t c = 0; c < nc; ++c)
    for (std::size_t pos = 0; pos < g.n; ++pos)
      g.rcode[c * g.npad + pos] = rcodes_cols[c][g.order[pos]];

  std::uint64_t recomputed = 0, scanned = 0;
  auto block_tops = [&](std::size_t b, std::size_t* qids, std::vector<TopK>& tops) {
    const auto [bb, be] = blocks[b];
    const int nq = static_cast<int>(be - bb);
    for (int q = 0; q < nq; ++q) {
      qids[q] = qsorted[bb + q];
      tops[q] = TopK{result.distance.data() + qids[q] * opt.k,
                     result.index.data() + qids[q] * opt.k, opt.k};
    }
    return nq;
  };
  // Tiled full scan of the given queries: each tile of the reference stays in cache while blocks
  // of queries pass over it.
  auto full_scan = [&](const std::vector<std::uint32_t>& ids) {
    const std::size_t nblocks = (ids.size() + kBlock - 1) / kBlock;
    const std::size_t bytes_per_row = (nn + nc) * 4 + 1;
    const std::size_t tile =
        std::max<std::size_t>(kLanes, (std::size_t{1} << 20) / bytes_per_row / kLanes * kLanes);
    constexpr std::size_t kBlocksPerTask = 32;
    const std::size_t tasks = (nblocks + kBlocksPerTask - 1) / kBlocksPerTask;
    std::uint64_t rechecked = 0;
#pragma omp parallel reduction(+ : rechecked) num_threads(parallel_threads())
    {
      std::vector<TopK> tops(kBlock, TopK{nullptr, nullptr, opt.k});
#pragma omp for schedule(dynamic, 1)
      for (std::size_t t = 0; t < tasks; ++t) {
        if (tracker.stopped()) continue;  // asked to stop: the rest is skipped, then thrown
        const std::size_t b0 = t * kBlocksPerTask, b1 = std::min(nblocks, b0 + kBlocksPerTask);
        for (std::size_t a = 0; a < g.n; a += tile) {
          const std::size_t e = std::min(g.n, a + tile);
          for (std::size_t b = b0; b < b1; ++b) {
            const std::size_t qb = b * kBlock;
            const int nq = static_cast<int>(std::min<std::size_t>(kBlock, ids.size() - qb));
            std::size_t qids[kBlock] = {};
            for (int q = 0; q < nq; ++q) {
              qids[q] = ids[qb + q];
              tops[q] = TopK{result.distance.data() + qids[q] * opt.k,
                             result.index.data() + qids[q] * opt.k, opt.k};
            }
            scan_block(g, qids, nq, a, e, 0.0f, 0, tops, rechecked);
          }
        }
        tracker.advance(std::min(ids.size(), b1 * kBlock) - b0 * kBlock);
      }
    }
    recomputed += rechecked;
    scanned += static_cast<std::uint64_t>(ids.size()) * g.n;
  };

  if (grouped) {
    std::vector<std::int32_t> gsig(groups * ng);
    for (std::size_t gi = 0; gi < groups; ++gi)
      for (std::size_t c = 0; c < ng; ++c)
        gsig[gi * ng + c] = g.rcode[c * g.npad + group_start[gi]];
#pragma omp parallel reduction(+ : recomputed, scanned) num_threads(parallel_threads())
    {
      std::vector<std::uint32_t> bound(groups), visit(groups);
      std::vector<std::size_t> count(ng + 2);
      std::vector<TopK> tops(kBlock, TopK{nullptr, nullptr, opt.k});
#pragma omp for schedule(dynamic, 4)
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (tracker.stopped()) continue;
        std::size_t qids[kBlock] = {};
        const int nq = block_tops(b, qids, tops);
        // Mismatch lower bound per group, visited in increasing order (counting sort).
        const std::int32_t* qc = g.qcode.data() + qids[0] * nc;
        std::fill(count.begin(), count.end(), 0);
        for (std::size_t gi = 0; gi < groups; ++gi) {
          std::uint32_t mis = 0;
          for (std::size_t c = 0; c < ng; ++c) mis += gsig[gi * ng + c] != qc[c];
          bound[gi] = mis;
          ++count[mis + 1];
        }
        for (std::size_t c = 1; c < count.size(); ++c) count[c] += count[c - 1];
        for (std::size_t gi = 0; gi < groups; ++gi)
          visit[count[bound[gi]]++] = static_cast<std::uint32_t>(gi);
        for (std::size_t vi = 0; vi < groups; ++vi) {
          const std::size_t gi = visit[vi];
          const double lb = static_cast<double>(bound[gi]) / pd;
          double worst = 0.0;
          for (int q = 0; q < nq; ++q) worst = std::max(worst, tops[q].d[opt.k - 1]);
          if (lb > worst) break;  // every later group is at least as far
          const std::size_t visited = scan_projected(
              g, qids, nq, group_start[gi], group_start[gi + 1], bound[gi], ng, tops, recomputed);
          scanned += visited * static_cast<std::size_t>(nq);
        }
        tracker.advance(static_cast<std::size_t>(nq));
      }
    }
  } else if (projected) {
    // In auto mode a sample of blocks, spread over the projection order, decides whether the
    // projection prunes enough to beat the tiled full scan (it does not when the numeric columns
    // have high intrinsic dimension and the nearest distances are large). Sampled blocks are
    // finished either way; the decision depends on the data only, never on the thread count.
    std::vector<char> done(blocks.size(), 0);
    if (opt.mode == SearchMode::kAuto && blocks.size() > 64) {
      const std::size_t step = blocks.size() / 16;
      std::vector<TopK> tops(kBlock, TopK{nullptr, nullptr, opt.k});
      std::uint64_t sampled = 0, sample_scanned = 0;
      for (std::size_t b = step / 2; b < blocks.size(); b += step) {
        std::size_t qids[kBlock] = {};
        const int nq = block_tops(b, qids, tops);
        sample_scanned +=
            scan_projected(g, qids, nq, 0, g.n, 0, 0, tops, recomputed) * std::uint64_t(nq);
        sampled += static_cast<std::uint64_t>(nq) * g.n;
        done[b] = 1;
        tracker.advance(static_cast<std::size_t>(nq));
      }
      scanned += sample_scanned;
      projected = sample_scanned * 2 <= sampled;
      if (!projected) {
        std::vector<std::uint32_t> rest;
        for (std::size_t b = 0; b < blocks.size(); ++b)
          if (!done[b])
            rest.insert(rest.end(), qsorted.begin() + blocks[b].first,
                        qsorted.begin() + blocks[b].second);
        full_scan(rest);
      }
    }
    if (projected) {
#pragma omp parallel reduction(+ : recomputed, scanned) num_threads(parallel_threads())
      {
        std::vector<TopK> tops(kBlock, TopK{nullptr, nullptr, opt.k});
#pragma omp for schedule(dynamic, 4)
        for (std::size_t b = 0; b < blocks.size(); ++b) {
          if (done[b] || tracker.stopped()) continue;
          std::size_t qids[kBlock] = {};
          const int nq = block_tops(b, qids, tops);
          scanned += scan_projected(g, qids, nq, 0, g.n, 0, 0, tops, recomputed) *
                     static_cast<std::uint64_t>(nq);
          tracker.advance(static_cast<std::size_t>(nq));
        }
      }
    }
  } else {
    full_scan(qorder);
  }
  tracker.throw_if_stopped();
  result.projected = projected;
  result.scanned_pairs = scanned;
  result.exact_recomputations = recomputed;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Euclidean / cosine on standardised numerics (double throughout, exact by construction)
// ---------------------------------------------------------------------------------------------

struct NumericData {
  std::vector<std::size_t> cols;
  std::vector<double> mean, sd;
};

NumericData numeric_data(const Table& scale, const std::vector<std::size_t>& cols,
                         const NeighbourOptions& options) {
  NumericData d;
  for (auto c : cols) {
    if (!scale.column(c).is_numeric()) continue;
    const ColumnStats s = scale_of(options, scale, c);
    if (!(s.sd > 0.0) || !std::isfinite(s.sd)) continue;  // constant or too short: no information
    d.cols.push_back(c);
    d.mean.push_back(s.mean);
    d.sd.push_back(s.sd);
  }
  if (d.cols.empty())
    throw MetricNotApplicable("no numeric column with a positive standard deviation");
  return d;
}

inline double filled(double v, double mean) { return std::isnan(v) ? mean : v; }
inline double zscore(double v, double mean, double sd) { return (filled(v, mean) - mean) / sd; }

Neighbours numeric_search(const Table& query, const Table& reference, const NeighbourOptions& opt,
                          const std::vector<std::size_t>& cols) {
  const Table& scale = opt.scale ? *opt.scale : reference;
  const NumericData nd = numeric_data(scale, cols, opt);
  const std::size_t m = query.rows(), n = reference.rows(), p = nd.cols.size();
  const bool cosine = opt.distance == DistanceKind::kCosine;
  Neighbours result;
  result.k = opt.k;
  result.queries = m;
  result.distance.assign(m * opt.k, INFINITY);
  result.index.assign(m * opt.k, kNoNeighbour);
  if (m == 0 || n == 0) return result;
  // Reference column-major: raw values (missing -> mean) for Euclidean, z-scores for cosine.
  std::vector<double> rv(p * n), qv(m * p), rnorm(n, 0.0), qnorm(m, 0.0);
  for (std::size_t c = 0; c < p; ++c) {
    const auto& y = reference.column(nd.cols[c]).numeric;
    const auto& x = query.column(nd.cols[c]).numeric;
    for (std::size_t j = 0; j < n; ++j)
      rv[c * n + j] = cosine ? zscore(y[j], nd.mean[c], nd.sd[c]) : filled(y[j], nd.mean[c]);
    for (std::size_t q = 0; q < m; ++q)
      qv[q * p + c] = cosine ? zscore(x[q], nd.mean[c], nd.sd[c]) : filled(x[q], nd.mean[c]);
  }
  if (cosine) {
    for (std::size_t c = 0; c < p; ++c)
      for (std::size_t j = 0; j < n; ++j) rnorm[j] += rv[c * n + j] * rv[c * n + j];
    for (std::size_t j = 0; j < n; ++j) rnorm[j] = std::sqrt(rnorm[j]);
    for (std::size_t q = 0; q < m; ++q) {
      double s = 0.0;
      for (std::size_t c = 0; c < p; ++c) s += qv[q * p + c] * qv[q * p + c];
      qnorm[q] = std::sqrt(s);
    }
  }
  constexpr std::size_t kTile = 2048;
  ProgressTracker tracker(opt.progress, opt.progress_task, m);
#pragma omp parallel num_threads(parallel_threads())
  {
    std::vector<double> acc(kTile);
#pragma omp for schedule(dynamic, 16)
    for (std::size_t q = 0; q < m; ++q) {
      if (tracker.stopped()) continue;
      TopK top{result.distance.data() + q * opt.k, result.index.data() + q * opt.k, opt.k};
      for (std::size_t a = 0; a < n; a += kTile) {
        const std::size_t len = std::min(kTile, n - a);
        std::fill(acc.begin(), acc.begin() + len, 0.0);
        for (std::size_t c = 0; c < p; ++c) {
          const double* r = rv.data() + c * n + a;
          const double x = qv[q * p + c];
          if (cosine) {
            for (std::size_t j = 0; j < len; ++j) acc[j] += x * r[j];
          } else {
            const double s = nd.sd[c];
            for (std::size_t j = 0; j < len; ++j) {
              const double t = (x - r[j]) / s;
              acc[j] += t * t;
            }
          }
        }
        for (std::size_t j = 0; j < len; ++j) {
          double d;
          if (cosine) {
            const double denom = qnorm[q] * rnorm[a + j];
            d = denom > 0.0 ? 1.0 - acc[j] / denom : 1.0;
          } else {
            d = std::sqrt(acc[j]);
          }
          top.insert(d, static_cast<std::uint32_t>(a + j));
        }
      }
      tracker.advance(1);
    }
  }
  tracker.throw_if_stopped();
  return result;
}

}  // namespace

DistanceScales distance_scales(const Table& scale) {
  DistanceScales out;
  out.reserve(scale.column_count());
  for (const Column& column : scale.columns()) out.push_back(column_stats(column));
  return out;
}

Neighbours nearest_neighbours(const Table& query, const Table& reference,
                              const NeighbourOptions& options) {
  if (reference.rows() >= kNoNeighbour)
    throw InputError("nearest neighbours: the reference table has too many rows");
  const auto cols = resolve_columns(query, reference, options);
  if (options.distance == DistanceKind::kGower || options.distance == DistanceKind::kHamming)
    return gower_search(query, reference, options, cols);
  return numeric_search(query, reference, options, cols);
}

PairDistance::PairDistance(const Table& query, const Table& reference,
                           const NeighbourOptions& options)
    : query_(query), reference_(reference), options_(options) {
  columns_ = resolve_columns(query, reference, options);
  const Table& scale = options.scale ? *options.scale : reference;
  if (options.distance == DistanceKind::kEuclidean || options.distance == DistanceKind::kCosine) {
    const NumericData nd = numeric_data(scale, columns_, options);
    columns_ = nd.cols;
    mean_ = nd.mean;
    sd_ = nd.sd;
    return;
  }
  for (auto c : columns_) {
    const ColumnStats s = scale_of(options, scale, c);
    const bool numeric =
        reference.column(c).is_numeric() && options.distance == DistanceKind::kGower;
    lo_.push_back(s.lo);
    range_.push_back(numeric ? s.hi - s.lo : NAN);
  }
}

double PairDistance::operator()(std::size_t qi, std::size_t rj) const {
  if (options_.distance == DistanceKind::kGower || options_.distance == DistanceKind::kHamming) {
    double s = 0.0;
    std::size_t mism = 0;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const Column& qc = query_.column(columns_[c]);
      const Column& rc = reference_.column(columns_[c]);
      if (qc.is_categorical()) {
        mism += qc.codes[qi] != rc.codes[rj];
      } else if (usable_range(range_[c])) {
        s += gower_numeric(qc.numeric[qi], rc.numeric[rj], range_[c]);
      } else {
        mism += !numeric_equal(qc.numeric[qi], rc.numeric[rj]);
      }
    }
    return (s + static_cast<double>(mism)) / static_cast<double>(columns_.size());
  }
  const bool cosine = options_.distance == DistanceKind::kCosine;
  double acc = 0.0, nq = 0.0, nr = 0.0;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const double x = query_.column(columns_[c]).numeric[qi];
    const double y = reference_.column(columns_[c]).numeric[rj];
    if (cosine) {
      const double zx = zscore(x, mean_[c], sd_[c]), zy = zscore(y, mean_[c], sd_[c]);
      acc += zx * zy;
      nq += zx * zx;
      nr += zy * zy;
    } else {
      const double t = (filled(x, mean_[c]) - filled(y, mean_[c])) / sd_[c];
      acc += t * t;
    }
  }
  if (!cosine) return std::sqrt(acc);
  const double denom = std::sqrt(nq) * std::sqrt(nr);
  return denom > 0.0 ? 1.0 - acc / denom : 1.0;
}

}  // namespace synthaudit::stats
