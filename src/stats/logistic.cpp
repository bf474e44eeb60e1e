// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 kernels
// (_mm512_extractf64x4_pd) when built with -march=native; nothing here is uninitialised.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "stats/logistic.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/threads.hpp"

namespace synthaudit::stats {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// R's logit link inverse and derivative (family.c): eta clamped at +-30 so mu stays in
// [eps, 1 - eps] and the working weights stay positive.
inline double inverse_logit(double eta) {
  if (eta < -30.0) return kEps;
  if (eta > 30.0) return 1.0 - kEps;
  return 1.0 / (1.0 + std::exp(-eta));
}
inline double mu_eta(double eta) {
  const double opexp = 1.0 + std::exp(eta);
  return (eta > 30.0 || eta < -30.0) ? kEps : std::exp(eta) / (opexp * opexp);
}

// glm.fit's start for a row with response y and case weight w: mustart = (w*y + 0.5) / (w + 1).
inline double start_eta(double y, double w) {
  const double mu = (w * y + 0.5) / (w + 1.0);
  return std::log(mu / (1.0 - mu));
}

// IRLS working weight and response of a row at linear predictor eta.
inline std::pair<double, double> working_at(double eta, double y, double case_weight) {
  const double mu = inverse_logit(eta);
  const double d = mu_eta(eta);
  return {case_weight * d * d / (mu * (1.0 - mu)), eta + (y - mu) / d};
}

struct Blocks {
  std::size_t count = 1;
  std::size_t n = 0;
  std::size_t begin(std::size_t b) const { return n * b / count; }
  std::size_t end(std::size_t b) const { return n * (b + 1) / count; }
};

// Fixed partition of the rows, independent of the thread count.
Blocks make_blocks(std::size_t n) {
  const std::size_t count = std::clamp<std::size_t>(n / 2048, 1, 64);
  return {count, n};
}

constexpr std::size_t kChunk = 1024;

// The design as the fit reads it: dense columns (column-major, `ld` rows apart) and sparse
// blocks, restricted to a list of rows.
struct DesignView {
  std::size_t n = 0;  // used rows
  std::size_t p = 0;
  const double* dense = nullptr;
  std::size_t ld = 0;
  std::size_t dense_count = 0;
  const std::vector<std::size_t>* dense_columns = nullptr;  // null: dense column j is column j
  const std::vector<SparseColumnBlock>* sparse = nullptr;
  const std::vector<std::size_t>* rows = nullptr;  // null or empty: all rows

  std::size_t row(std::size_t t) const { return rows == nullptr || rows->empty() ? t : (*rows)[t]; }
  std::size_t dense_column(std::size_t j) const {
    return dense_columns == nullptr ? j : (*dense_columns)[j];
  }
  double at(std::size_t i, std::size_t j) const { return dense[j * ld + i]; }
  std::size_t block_count() const { return sparse == nullptr ? 0 : sparse->size(); }
  double block_value(const SparseColumnBlock& block, std::size_t i) const {
    return block.dense_value >= 0 ? at(i, static_cast<std::size_t>(block.dense_value))
           : block.value.empty()  ? 1.0
                                  : block.value[i];
  }
};

DesignView dense_view(const Eigen::MatrixXd& X) {
  DesignView v;
  v.n = static_cast<std::size_t>(X.rows());
  v.p = static_cast<std::size_t>(X.cols());
  v.dense = X.data();
  v.ld = v.n;
  v.dense_count = v.p;
  return v;
}

DesignView blocked_view(const BlockedDesign& X, const std::vector<std::size_t>& rows) {
  X.check();
  for (auto r : rows)
    if (r >= X.rows) throw std::invalid_argument("fit_logistic: row index beyond the design");
  DesignView v;
  v.n = rows.empty() ? X.rows : rows.size();
  v.p = X.columns;
  v.dense = X.dense.data();
  v.ld = X.rows;
  v.dense_count = X.dense_columns.size();
  v.dense_columns = &X.dense_columns;
  v.sparse = &X.sparse;
  v.rows = &rows;
  return v;
}

// The columns that take part in a fit (the non-aliased ones), numbered 0..k-1 in design order.
struct ActiveColumns {
  Eigen::Index k = 0;
  std::vector<std::size_t> dense_source;               // dense column of each active dense one
  std::vector<Eigen::Index> dense_index;               // its number among the active columns
  std::vector<std::vector<Eigen::Index>> block_index;  // per block column; -1 when not active
};

ActiveColumns active_columns(const DesignView& X, const std::vector<bool>& aliased) {
  std::vector<Eigen::Index> index(X.p, -1);
  Eigen::Index next = 0;
  for (std::size_t j = 0; j < X.p; ++j)
    if (!aliased[j]) index[j] = next++;
  ActiveColumns a;
  a.k = next;
  // Active dense columns in design order, so a dense-only design is read as before blocks existed.
  std::vector<std::pair<std::size_t, std::size_t>> dense;  // (design column, dense column)
  for (std::size_t j = 0; j < X.dense_count; ++j)
    if (index[X.dense_column(j)] >= 0) dense.emplace_back(X.dense_column(j), j);
  std::sort(dense.begin(), dense.end());
  for (const auto& [column, source] : dense) {
    a.dense_source.push_back(source);
    a.dense_index.push_back(index[column]);
  }
  for (std::size_t b = 0; b < X.block_count(); ++b) {
    const auto& block = (*X.sparse)[b];
    a.block_index.emplace_back(block.width);
    for (std::size_t c = 0; c < block.width; ++c) a.block_index[b][c] = index[block.first + c];
  }
  return a;
}

inline void add_lower(Eigen::MatrixXd& a, Eigen::Index r, Eigen::Index c, double v) {
  if (r >= c)
    a(r, c) += v;
  else
    a(c, r) += v;
}

// X'WX and X'Wz over the active columns, W and z from working(t) = (w_t, z_t) for used row t.
// Dense x dense by rank updates of sqrt(w)-scaled row chunks (as a dense-only fit always did);
// everything touching a sparse block by one scatter per row: the block's diagonal, its per-level
// sums of the dense columns, and its cross-tabulation with the earlier blocks.
template <class Working>
void accumulate_by_row(const DesignView& X, const ActiveColumns& act, const Blocks& blocks,
                       const Working& working, Eigen::MatrixXd& out_a, Eigen::VectorXd& out_b) {
  const Eigen::Index k = act.k;
  const auto kd = static_cast<Eigen::Index>(act.dense_source.size());
  const std::size_t nb = X.block_count();
  std::vector<Eigen::MatrixXd> pa(blocks.count);
  std::vector<Eigen::VectorXd> pb(blocks.count);
#pragma omp parallel for schedule(dynamic, 1) if (blocks.count > 1) num_threads(parallel_threads())
  for (std::size_t b = 0; b < blocks.count; ++b) {
    pa[b] = Eigen::MatrixXd::Zero(k, k);
    pb[b] = Eigen::VectorXd::Zero(k);
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(kd, kd);
    Eigen::VectorXd gz = Eigen::VectorXd::Zero(kd);
    Eigen::MatrixXd ws(static_cast<Eigen::Index>(kChunk), kd);
    Eigen::VectorXd zs(static_cast<Eigen::Index>(kChunk));
    // Per block: diagonal, X'Wz and the level-by-dense-column sums (row-major, width x kd).
    std::vector<std::vector<double>> diag(nb), rhs(nb), cross(nb);
    for (std::size_t s = 0; s < nb; ++s) {
      const std::size_t width = (*X.sparse)[s].width;
      diag[s].assign(width, 0.0);
      rhs[s].assign(width, 0.0);
      cross[s].assign(width * static_cast<std::size_t>(kd), 0.0);
    }
    std::vector<double> xrow(static_cast<std::size_t>(kd));
    for (std::size_t r0 = blocks.begin(b); r0 < blocks.end(b); r0 += kChunk) {
      const std::size_t len = std::min(kChunk, blocks.end(b) - r0);
      const auto l = static_cast<Eigen::Index>(len);
      for (std::size_t u = 0; u < len; ++u) {
        const std::size_t t = r0 + u;
        const std::size_t i = X.row(t);
        const auto [w, z] = working(t);
        const double sq = std::sqrt(w);
        const auto uu = static_cast<Eigen::Index>(u);
        zs[uu] = sq * z;
        for (Eigen::Index c = 0; c < kd; ++c) {
          const double x = X.at(i, act.dense_source[static_cast<std::size_t>(c)]);
          xrow[static_cast<std::size_t>(c)] = x;
          ws(uu, c) = sq * x;
        }
        for (std::size_t s = 0; s < nb; ++s) {
          const auto& block = (*X.sparse)[s];
          const std::int32_t col = block.column[i];
          if (col < 0) continue;
          const auto c = static_cast<std::size_t>(col);
          const double v = X.block_value(block, i);
          const double wv = w * v;
          diag[s][c] += wv * v;
          rhs[s][c] += wv * z;
          double* sums = cross[s].data() + c * static_cast<std::size_t>(kd);
          for (std::size_t j = 0; j < xrow.size(); ++j) sums[j] += wv * xrow[j];
          const Eigen::Index kc = act.block_index[s][c];
          if (kc < 0) continue;
          for (std::size_t s2 = 0; s2 < s; ++s2) {
            const auto& other = (*X.sparse)[s2];
            const std::int32_t col2 = other.column[i];
            if (col2 < 0) continue;
            const Eigen::Index kc2 = act.block_index[s2][static_cast<std::size_t>(col2)];
            if (kc2 < 0) continue;
            add_lower(pa[b], kc, kc2, wv * X.block_value(other, i));
          }
        }
      }
      if (kd > 0) {
        gram.selfadjointView<Eigen::Lower>().rankUpdate(ws.topRows(l).transpose());
        gz.noalias() += ws.topRows(l).transpose() * zs.head(l);
      }
    }
    for (Eigen::Index c1 = 0; c1 < kd; ++c1) {
      const Eigen::Index r = act.dense_index[static_cast<std::size_t>(c1)];
      pb[b][r] += gz[c1];
      for (Eigen::Index c2 = 0; c2 <= c1; ++c2)
        add_lower(pa[b], r, act.dense_index[static_cast<std::size_t>(c2)], gram(c1, c2));
    }
    for (std::size_t s = 0; s < nb; ++s) {
      for (std::size_t c = 0; c < (*X.sparse)[s].width; ++c) {
        const Eigen::Index kc = act.block_index[s][c];
        if (kc < 0) continue;
        pa[b](kc, kc) += diag[s][c];
        pb[b][kc] += rhs[s][c];
        for (Eigen::Index j = 0; j < kd; ++j)
          add_lower(pa[b], kc, act.dense_index[static_cast<std::size_t>(j)],
                    cross[s][c * static_cast<std::size_t>(kd) + static_cast<std::size_t>(j)]);
      }
    }
  }
  out_a.setZero(k, k);
  out_b.setZero(k);
  for (std::size_t b = 0; b < blocks.count; ++b) {
    out_a += pa[b];
    out_b += pb[b];
  }
  out_a = out_a.selfadjointView<Eigen::Lower>();
}

// Used rows grouped by the design columns their sparse nonzeros fall in (the tuple of the
// blocks' columns): within a group every row has the same nonzero pattern, so the group adds to
// X'WX the weighted cross-products of its rows' values, each placed at the group's columns.
struct RowGroups {
  std::vector<std::uint32_t> of_row;        // per used row
  std::vector<std::size_t> representative;  // per group: the design row of its first used row
  std::size_t count() const { return representative.size(); }
};

// Groups numbered in order of first appearance, refined block by block: (group so far, column in
// the next block) -> group, through a table of every such pair. Returns no groups when there
// would be more than `limit`, or when a table would be much larger than the rows (a many-level
// block on top of many groups; only with `bounded`).
RowGroups group_rows(const DesignView& X, std::size_t limit, bool bounded) {
  const std::size_t n = X.n;
  RowGroups groups;
  if (n == 0) return groups;
  groups.of_row.assign(n, 0);
  std::size_t count = 1;
  std::vector<std::uint32_t> renumber;
  constexpr std::uint32_t kUnseen = std::numeric_limits<std::uint32_t>::max();
  for (std::size_t s = 0; s < X.block_count(); ++s) {
    const auto& block = (*X.sparse)[s];
    const std::size_t stride = block.width + 1;
    if (bounded && count * stride > 4 * n + 4096) return {};
    renumber.assign(count * stride, kUnseen);
    std::uint32_t next = 0;
    for (std::size_t t = 0; t < n; ++t) {
      auto& group = groups.of_row[t];
      const std::size_t cell =
          group * stride + static_cast<std::size_t>(block.column[X.row(t)] + 1);
      if (renumber[cell] == kUnseen) {
        if (next >= limit) return {};
        renumber[cell] = next++;
      }
      group = renumber[cell];
    }
    count = next;
  }
  groups.representative.assign(count, 0);
  std::vector<char> seen(count, 0);
  for (std::size_t t = 0; t < n; ++t)
    if (!seen[groups.of_row[t]]) {
      seen[groups.of_row[t]] = 1;
      groups.representative[groups.of_row[t]] = X.row(t);
    }
  return groups;
}

// The distinct values a row of a blocked design holds: 1 (an indicator's nonzero), each dense
// column, and the own value of each block that has one. A block with dense_value shares its
// dense column's.
struct RowValues {
  std::size_t count = 0;
  std::vector<std::size_t> own;       // blocks with their own per-row values
  std::vector<std::size_t> of_block;  // per block: which of the values its nonzero is
};

RowValues row_values(const DesignView& X) {
  RowValues v;
  v.count = 1 + X.dense_count;
  for (std::size_t s = 0; s < X.block_count(); ++s) {
    const auto& block = (*X.sparse)[s];
    if (block.dense_value >= 0) {
      v.of_block.push_back(1 + static_cast<std::size_t>(block.dense_value));
    } else if (block.value.empty()) {
      v.of_block.push_back(0);
    } else {
      v.own.push_back(s);
      v.of_block.push_back(v.count++);
    }
  }
  return v;
}

// Per-group sums kept by one chunk of rows at most (doubles): kAutomatic falls back to kByRow
// above it.
constexpr std::size_t kMaxGroupSums = std::size_t{1} << 22;

// How one fit sums X'WX: by row, or by group with the groups found once for all its iterations.
struct Plan {
  Blocks blocks;     // by row: the fixed row blocks
  Blocks chunks;     // by group: the fixed row chunks, each with its own per-group sums
  RowGroups groups;  // empty: by row
  RowValues values;
  bool by_group() const { return groups.count() > 0; }
};

Plan make_plan(const DesignView& X, LogisticOptions::Accumulation mode) {
  Plan plan;
  plan.blocks = make_blocks(X.n);
  plan.chunks = {std::clamp<std::size_t>(X.n / 16384, 1, 16), X.n};
  if (X.block_count() == 0 || X.n == 0 || mode == LogisticOptions::Accumulation::kByRow)
    return plan;
  plan.values = row_values(X);
  const std::size_t triangle = plan.values.count * (plan.values.count + 1) / 2;
  const bool automatic = mode == LogisticOptions::Accumulation::kAutomatic;
  const std::size_t limit =
      automatic ? std::min(X.n / kMinRowsPerGroup, kMaxGroupSums / triangle) : X.n;
  plan.groups = group_rows(X, limit, automatic);
  return plan;
}

// Group g's active columns, each with the row value its nonzero carries.
void group_slots(const DesignView& X, const ActiveColumns& act, const Plan& plan, std::size_t g,
                 std::vector<std::pair<Eigen::Index, std::size_t>>& slots) {
  const std::size_t i = plan.groups.representative[g];
  slots.clear();
  for (std::size_t c = 0; c < act.dense_source.size(); ++c)
    slots.emplace_back(act.dense_index[c], 1 + act.dense_source[c]);
  for (std::size_t s = 0; s < X.block_count(); ++s) {
    const std::int32_t col = (*X.sparse)[s].column[i];
    if (col < 0) continue;
    const Eigen::Index kc = act.block_index[s][static_cast<std::size_t>(col)];
    if (kc >= 0) slots.emplace_back(kc, plan.values.of_block[s]);
  }
}

// The row values (RowValues) of design row i into v[0 .. count).
inline void gather_row_values(const DesignView& X, const Plan& plan, std::size_t i, double* v) {
  v[0] = 1.0;
  for (std::size_t j = 0; j < X.dense_count; ++j) v[1 + j] = X.at(i, j);
  for (std::size_t e = 0; e < plan.values.own.size(); ++e)
    v[1 + X.dense_count + e] = (*X.sparse)[plan.values.own[e]].value[i];
}

// X'WX and X'Wz by group: per chunk of rows, each group's lower triangle of sum w v v' and sum
// w z v over its rows' values v (a rank-one update per row, contiguous), then placed at the
// group's active columns; chunks added in order.
template <class Working>
void accumulate_by_group(const DesignView& X, const ActiveColumns& act, const Plan& plan,
                         const Working& working, Eigen::MatrixXd& out_a, Eigen::VectorXd& out_b) {
  const Eigen::Index k = act.k;
  const std::size_t m = plan.values.count;
  const std::size_t triangle = m * (m + 1) / 2;
  const std::size_t group_count = plan.groups.count();
  const Blocks& chunks = plan.chunks;
  std::vector<Eigen::MatrixXd> pa(chunks.count);
  std::vector<Eigen::VectorXd> pb(chunks.count);
#pragma omp parallel for schedule(dynamic, 1) if (chunks.count > 1) num_threads(parallel_threads())
  for (std::size_t b = 0; b < chunks.count; ++b) {
    std::vector<double> sums(group_count * triangle, 0.0), rhs(group_count * m, 0.0);
    std::vector<char> present(group_count, 0);
    std::vector<double> values(m);
    for (std::size_t t = chunks.begin(b); t < chunks.end(b); ++t) {
      const auto [w, z] = working(t);
      const std::uint32_t g = plan.groups.of_row[t];
      present[g] = 1;
      double* v = values.data();
      gather_row_values(X, plan, X.row(t), v);
      double* sum = sums.data() + g * triangle;
      double* r = rhs.data() + g * m;
      const double wz = w * z;
      for (std::size_t j = 0; j < m; ++j) {
        const double wv = w * v[j];
        double* row = sum + j * (j + 1) / 2;
#pragma omp simd
        for (std::size_t l = 0; l <= j; ++l) row[l] += wv * v[l];
        r[j] += wz * v[j];
      }
    }
    pa[b] = Eigen::MatrixXd::Zero(k, k);
    pb[b] = Eigen::VectorXd::Zero(k);
    // Each group's active columns with the value their nonzero carries.
    std::vector<std::pair<Eigen::Index, std::size_t>> slots;
    for (std::size_t g = 0; g < group_count; ++g) {
      if (!present[g]) continue;
      group_slots(X, act, plan, g, slots);
      const double* sum = sums.data() + g * triangle;
      const double* r = rhs.data() + g * m;
      for (std::size_t a = 0; a < slots.size(); ++a) {
        const auto [ca, va] = slots[a];
        pb[b][ca] += r[va];
        for (std::size_t c = 0; c <= a; ++c) {
          const auto [cc, vc] = slots[c];
          const std::size_t hi = std::max(va, vc), lo = std::min(va, vc);
          add_lower(pa[b], ca, cc, sum[hi * (hi + 1) / 2 + lo]);
        }
      }
    }
  }
  out_a.setZero(k, k);
  out_b.setZero(k);
  for (std::size_t b = 0; b < chunks.count; ++b) {
    out_a += pa[b];
    out_b += pb[b];
  }
  out_a = out_a.selfadjointView<Eigen::Lower>();
}

template <class Working>
void accumulate(const DesignView& X, const ActiveColumns& act, const Plan& plan,
                const Working& working, Eigen::MatrixXd& out_a, Eigen::VectorXd& out_b) {
  if (plan.by_group())
    accumulate_by_group(X, act, plan, working, out_a, out_b);
  else
    accumulate_by_row(X, act, plan.blocks, working, out_a, out_b);
}

// Row i of the design times the active coefficients.
inline double linear_predictor(const DesignView& X, const ActiveColumns& act, std::size_t i,
                               const Eigen::VectorXd& coef) {
  double e = 0.0;
  for (std::size_t c = 0; c < act.dense_source.size(); ++c)
    e += X.at(i, act.dense_source[c]) * coef[act.dense_index[c]];
  for (std::size_t s = 0; s < X.block_count(); ++s) {
    const auto& block = (*X.sparse)[s];
    const std::int32_t col = block.column[i];
    if (col < 0) continue;
    const Eigen::Index kc = act.block_index[s][static_cast<std::size_t>(col)];
    if (kc < 0) continue;
    e += X.block_value(block, i) * coef[kc];
  }
  return e;
}

// By group: the coefficient of each row value in each group (the sum of the active coefficients
// of the group's columns that carry it), so a row's linear predictor is one short dot product.
std::vector<double> group_coefficients(const DesignView& X, const ActiveColumns& act,
                                       const Plan& plan, const Eigen::VectorXd& coef) {
  const std::size_t m = plan.values.count;
  std::vector<double> out(plan.groups.count() * m, 0.0);
  std::vector<std::pair<Eigen::Index, std::size_t>> slots;
  for (std::size_t g = 0; g < plan.groups.count(); ++g) {
    group_slots(X, act, plan, g, slots);
    for (const auto& [column, value] : slots) out[g * m + value] += coef[column];
  }
  return out;
}

// Cholesky of the Gram matrix in column order; a column whose pivot falls below
// rank_tolerance * G_jj is aliased.
std::vector<bool> aliased_from_gram(const Eigen::MatrixXd& G, double rank_tolerance) {
  const auto p = static_cast<std::size_t>(G.cols());
  std::vector<bool> aliased(p, false);
  Eigen::MatrixXd L =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  std::vector<Eigen::Index> kept;
  for (std::size_t jj = 0; jj < p; ++jj) {
    const auto j = static_cast<Eigen::Index>(jj);
    const double gjj = G(j, j);
    if (!(gjj > 0.0)) {
      aliased[jj] = true;
      continue;
    }
    double d = gjj;
    for (std::size_t a = 0; a < kept.size(); ++a) {
      const Eigen::Index k = kept[a];
      double s = G(j, k);
      for (std::size_t c = 0; c < a; ++c) s -= L(j, kept[c]) * L(k, kept[c]);
      L(j, k) = s / L(k, k);
      d -= L(j, k) * L(j, k);
    }
    if (d <= rank_tolerance * gjj) {
      aliased[jj] = true;
      continue;
    }
    L(j, j) = std::sqrt(d);
    kept.push_back(j);
  }
  return aliased;
}

std::vector<bool> aliased_columns_of(const DesignView& X, const Plan& plan, double rank_tolerance) {
  const ActiveColumns all = active_columns(X, std::vector<bool>(X.p, false));
  Eigen::MatrixXd G;
  Eigen::VectorXd unused;
  accumulate(
      X, all, plan,
      [](std::size_t) {
        return std::pair<double, double>{1.0, 0.0};
      },
      G, unused);
  return aliased_from_gram(G, rank_tolerance);
}

// IRLS's first system over all p columns, when the aliasing check already summed it: without case
// weights every row starts with the same working weight up to rounding (mustart is 1/4 or 3/4), so
// X'W1X and X'W1z1 are that weight times X'X and X'z1, and the first step solves the same system.
struct FirstSystem {
  Eigen::MatrixXd gram;  // X'X
  Eigen::VectorXd rhs;   // X'z1
};

LogisticFit fit_view(const DesignView& X, const Plan& plan, std::vector<bool> aliased,
                     const Eigen::VectorXd& y, const LogisticOptions& options,
                     const FirstSystem* first = nullptr) {
  const std::size_t n = X.n;
  const std::size_t p = X.p;
  if (static_cast<std::size_t>(y.size()) != n)
    throw std::invalid_argument("fit_logistic: X and y differ in rows");
  if (!options.weights.empty() && options.weights.size() != n)
    throw std::invalid_argument("fit_logistic: weights and y differ in length");
  auto case_weight = [&](std::size_t t) {
    return options.weights.empty() ? 1.0 : options.weights[t];
  };

  LogisticFit fit;
  fit.aliased = std::move(aliased);
  const ActiveColumns act = active_columns(X, fit.aliased);
  std::vector<Eigen::Index> kept;
  for (std::size_t j = 0; j < p; ++j)
    if (!fit.aliased[j]) kept.push_back(static_cast<Eigen::Index>(j));
  const Eigen::Index k = act.k;
  fit.rank = static_cast<int>(k);
  fit.coefficients = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(p), std::nan(""));
  fit.standard_errors = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(p), std::nan(""));
  fit.fitted = Eigen::VectorXd(static_cast<Eigen::Index>(n));

  // Null deviance (intercept-only fit: mu = weighted mean of y).
  double sw = 0.0, swy = 0.0;
  for (std::size_t t = 0; t < n; ++t) {
    sw += case_weight(t);
    swy += case_weight(t) * y[static_cast<Eigen::Index>(t)];
  }
  auto deviance_term = [](double yi, double mu) {
    return -2.0 * (yi > 0.5 ? std::log(mu) : std::log(1.0 - mu));
  };
  if (n > 0 && sw > 0.0) {
    const double ybar = swy / sw;
    for (std::size_t t = 0; t < n; ++t)
      if (ybar > 0.0 && ybar < 1.0)
        fit.null_deviance += case_weight(t) * deviance_term(y[static_cast<Eigen::Index>(t)], ybar);
  }

  Eigen::VectorXd eta(static_cast<Eigen::Index>(n));
  for (std::size_t t = 0; t < n; ++t)
    eta[static_cast<Eigen::Index>(t)] = start_eta(y[static_cast<Eigen::Index>(t)], case_weight(t));
  const Blocks& blocks = plan.blocks;
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(k), beta_old = beta;
  double dev_old = std::numeric_limits<double>::infinity();
  Eigen::MatrixXd A(k, k);
  Eigen::LLT<Eigen::MatrixXd> llt;
  bool have_beta = false;

  // IRLS working weight and response of used row t at the current eta.
  auto working = [&](std::size_t t) {
    const auto i = static_cast<Eigen::Index>(t);
    return working_at(eta[i], y[i], case_weight(t));
  };
  auto update_eta = [&](const Eigen::VectorXd& coef) -> double {
    double dev = 0.0;
    std::vector<double> partial(blocks.count, 0.0);
    const std::size_t m = plan.values.count;
    const std::vector<double> by_group =
        plan.by_group() ? group_coefficients(X, act, plan, coef) : std::vector<double>{};
#pragma omp parallel for schedule(dynamic, 1) if (blocks.count > 1) num_threads(parallel_threads())
    for (std::size_t b = 0; b < blocks.count; ++b) {
      double s = 0.0;
      std::vector<double> values(m);
      for (std::size_t t = blocks.begin(b); t < blocks.end(b); ++t) {
        const auto tt = static_cast<Eigen::Index>(t);
        double e = 0.0;
        if (plan.by_group()) {
          gather_row_values(X, plan, X.row(t), values.data());
          const double* c = by_group.data() + plan.groups.of_row[t] * m;
          for (std::size_t j = 0; j < m; ++j) e += values[j] * c[j];
        } else {
          e = linear_predictor(X, act, X.row(t), coef);
        }
        eta[tt] = e;
        s += case_weight(t) * deviance_term(y[tt], inverse_logit(e));
      }
      partial[b] = s;
    }
    for (double s : partial) dev += s;
    return dev;
  };

  Eigen::VectorXd rhs(k);
  if (k > 0) {
    for (fit.iterations = 1; fit.iterations <= options.max_iterations; ++fit.iterations) {
      if (fit.iterations == 1 && first != nullptr) {
        A = first->gram(kept, kept);
        rhs = first->rhs(kept);
      } else {
        accumulate(X, act, plan, working, A, rhs);
      }
      llt.compute(A);
      if (llt.info() != Eigen::Success) break;
      Eigen::VectorXd next = llt.solve(rhs);
      double dev = update_eta(next);
      // Step halving when the deviance is not finite or increases (glm.fit halves on
      // non-finite deviance; halving on increase too keeps IRLS monotone).
      for (int halve = 0;
           have_beta && (!std::isfinite(dev) || dev > dev_old * (1 + 1e-12) + 1e-12) && halve < 30;
           ++halve) {
        next = 0.5 * (next + beta);
        dev = update_eta(next);
      }
      beta_old = beta;
      beta = next;
      have_beta = true;
      const bool done = std::abs(dev - dev_old) / (std::abs(dev) + 0.1) < options.tolerance;
      dev_old = dev;
      fit.deviance = dev;
      if (done) {
        fit.converged = true;
        break;
      }
    }
    if (fit.iterations > options.max_iterations) fit.iterations = options.max_iterations;
    // Fisher information at the final coefficients.
    accumulate(X, act, plan, working, A, rhs);
    llt.compute(A);
    fit.covariance = Eigen::MatrixXd::Constant(static_cast<Eigen::Index>(p),
                                               static_cast<Eigen::Index>(p), std::nan(""));
    if (llt.info() == Eigen::Success) {
      const Eigen::MatrixXd inv = llt.solve(Eigen::MatrixXd::Identity(k, k));
      for (Eigen::Index c = 0; c < k; ++c) {
        fit.standard_errors[kept[static_cast<std::size_t>(c)]] = std::sqrt(inv(c, c));
        for (Eigen::Index d = 0; d < k; ++d)
          fit.covariance(kept[static_cast<std::size_t>(c)], kept[static_cast<std::size_t>(d)]) =
              inv(c, d);
      }
      if (options.check_divergence && fit.converged) {
        // The Newton step from the estimate, with the system just factored.
        const Eigen::VectorXd eta_at_estimate = eta;
        update_eta(llt.solve(rhs));
        fit.diverging = (eta - eta_at_estimate).cwiseAbs().maxCoeff() > 1e-3;
        eta = eta_at_estimate;
      }
    } else if (options.check_divergence) {
      // The information matrix degenerated: fitted probabilities reached 0 or 1 along some
      // direction of a full-rank design.
      fit.diverging = true;
    }
    for (Eigen::Index c = 0; c < k; ++c)
      fit.coefficients[kept[static_cast<std::size_t>(c)]] = beta[c];
  } else {
    fit.deviance = update_eta(beta);
    fit.converged = true;
  }
  if (fit.covariance.size() == 0)
    fit.covariance = Eigen::MatrixXd::Constant(static_cast<Eigen::Index>(p),
                                               static_cast<Eigen::Index>(p), std::nan(""));
  for (std::size_t t = 0; t < n; ++t) {
    const double e = eta[static_cast<Eigen::Index>(t)];
    const double mu = 1.0 / (1.0 + std::exp(-e));
    fit.fitted[static_cast<Eigen::Index>(t)] = mu;
    if (mu < 1e-10 || mu > 1.0 - 1e-10) ++fit.separated_rows;
  }
  fit.separation = fit.separated_rows > 0;
  return fit;
}

}  // namespace

std::vector<bool> aliased_columns(const Eigen::MatrixXd& X, double rank_tolerance) {
  const auto p = static_cast<std::size_t>(X.cols());
  const auto n = static_cast<std::size_t>(X.rows());
  // Gram matrix X'X by blocks (deterministic order).
  const Blocks blocks = make_blocks(n);
  std::vector<Eigen::MatrixXd> partial(
      blocks.count,
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p)));
#pragma omp parallel for schedule(dynamic, 1) if (blocks.count > 1) num_threads(parallel_threads())
  for (std::size_t b = 0; b < blocks.count; ++b) {
    const auto r0 = static_cast<Eigen::Index>(blocks.begin(b));
    const auto len = static_cast<Eigen::Index>(blocks.end(b) - blocks.begin(b));
    partial[b].selfadjointView<Eigen::Lower>().rankUpdate(X.middleRows(r0, len).transpose());
  }
  Eigen::MatrixXd G =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  for (const auto& part : partial) G += part;
  G = G.selfadjointView<Eigen::Lower>();
  return aliased_from_gram(G, rank_tolerance);
}

std::vector<bool> aliased_columns(const BlockedDesign& X, double rank_tolerance,
                                  const std::vector<std::size_t>& rows) {
  const DesignView view = blocked_view(X, rows);
  return aliased_columns_of(view, make_plan(view, LogisticOptions::Accumulation::kAutomatic),
                            rank_tolerance);
}

LogisticFit fit_logistic(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                         const LogisticOptions& options) {
  if (static_cast<std::size_t>(y.size()) != static_cast<std::size_t>(X.rows()))
    throw std::invalid_argument("fit_logistic: X and y differ in rows");
  const DesignView view = dense_view(X);
  return fit_view(view, make_plan(view, options.accumulation),
                  aliased_columns(X, options.rank_tolerance), y, options);
}

LogisticFit fit_logistic(const BlockedDesign& X, const Eigen::VectorXd& y,
                         const LogisticOptions& options, const std::vector<std::size_t>& rows) {
  const DesignView view = blocked_view(X, rows);
  if (static_cast<std::size_t>(y.size()) != view.n)
    throw std::invalid_argument("fit_logistic: X and y differ in rows");
  const Plan plan = make_plan(view, options.accumulation);
  if (!options.weights.empty())
    return fit_view(view, plan, aliased_columns_of(view, plan, options.rank_tolerance), y, options);
  // The aliasing check's X'X with X'z1 alongside: IRLS's first system.
  FirstSystem first;
  accumulate(
      view, active_columns(view, std::vector<bool>(view.p, false)), plan,
      [&](std::size_t t) {
        const double yt = y[static_cast<Eigen::Index>(t)];
        return std::pair<double, double>{1.0, working_at(start_eta(yt, 1.0), yt, 1.0).second};
      },
      first.gram, first.rhs);
  return fit_view(view, plan, aliased_from_gram(first.gram, options.rank_tolerance), y, options,
                  &first);
}

double BlockedDesign::row_dot(std::size_t i, const Eigen::VectorXd& beta) const {
  double e = 0.0;
  for (std::size_t j = 0; j < dense_columns.size(); ++j)
    e += dense(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) *
         beta[static_cast<Eigen::Index>(dense_columns[j])];
  for (const auto& block : sparse) {
    const std::int32_t col = block.column[i];
    if (col < 0) continue;
    e += sparse_value(block, i) *
         beta[static_cast<Eigen::Index>(block.first + static_cast<std::size_t>(col))];
  }
  return e;
}

Eigen::MatrixXd BlockedDesign::to_dense() const {
  check();
  Eigen::MatrixXd X =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(columns));
  for (std::size_t j = 0; j < dense_columns.size(); ++j)
    X.col(static_cast<Eigen::Index>(dense_columns[j])) = dense.col(static_cast<Eigen::Index>(j));
  for (const auto& block : sparse)
    for (std::size_t i = 0; i < rows; ++i)
      if (block.column[i] >= 0)
        X(static_cast<Eigen::Index>(i),
          static_cast<Eigen::Index>(block.first + static_cast<std::size_t>(block.column[i]))) =
            sparse_value(block, i);
  return X;
}

void BlockedDesign::check() const {
  if (static_cast<std::size_t>(dense.rows()) != rows ||
      static_cast<std::size_t>(dense.cols()) != dense_columns.size())
    throw std::invalid_argument("BlockedDesign: dense part does not have rows x dense_columns");
  std::vector<int> covered(columns, 0);
  for (auto j : dense_columns) {
    if (j >= columns) throw std::invalid_argument("BlockedDesign: dense column beyond p");
    ++covered[j];
  }
  for (const auto& block : sparse) {
    if (block.first + block.width > columns)
      throw std::invalid_argument("BlockedDesign: sparse block beyond p");
    if (block.column.size() != rows || (!block.value.empty() && block.value.size() != rows))
      throw std::invalid_argument("BlockedDesign: sparse block does not have one entry per row");
    if (block.dense_value >= 0 &&
        (static_cast<std::size_t>(block.dense_value) >= dense_columns.size() ||
         !block.value.empty()))
      throw std::invalid_argument(
          "BlockedDesign: a sparse block's dense_value is not a dense column, or comes with "
          "values");
    for (std::size_t c = 0; c < block.width; ++c) ++covered[block.first + c];
    for (const std::int32_t c : block.column)
      if (c < -1 || c >= static_cast<std::int64_t>(block.width))
        throw std::invalid_argument("BlockedDesign: a row's column lies outside its block");
  }
  for (int times : covered)
    if (times != 1)
      throw std::invalid_argument("BlockedDesign: blocks do not cover every column exactly once");
}

}  // namespace synthaudit::stats
