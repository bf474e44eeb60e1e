#include "stats/contingency.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <numeric>
#include <stdexcept>

#include "core/error.hpp"
#include "core/threads.hpp"

namespace synthaudit::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string format_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.8g", v);  // R's cut(dig.lab = 8)
  return buffer;
}

// counts[cell(r)] += 1 for every row r < rows. Integer counts in four tables, row r going to table
// r mod 4, then summed: consecutive rows in the same cell do not wait on each other's increment
// (which a single table of doubles does, one add latency per row). Counts are exact either way.
// Tables of more cells rarely see the same cell in consecutive rows: one table.
template <typename Cell>
void count_cells(std::size_t rows, std::vector<double>& counts, Cell cell) {
  constexpr std::size_t kTables = 4;
  const std::size_t cells = counts.size();
  if (rows >= std::numeric_limits<std::uint32_t>::max()) {
    for (std::size_t r = 0; r < rows; ++r) counts[cell(r)] += 1.0;
    return;
  }
  thread_local std::vector<std::uint32_t> tally;
  if (cells > (std::size_t{1} << 14)) {
    tally.assign(cells, 0);
    for (std::size_t r = 0; r < rows; ++r) ++tally[cell(r)];
    for (std::size_t c = 0; c < cells; ++c) counts[c] = static_cast<double>(tally[c]);
    return;
  }
  tally.assign(kTables * cells, 0);
  std::uint32_t* t = tally.data();
  std::size_t r = 0;
  for (; r + kTables <= rows; r += kTables) {
    ++t[cell(r)];
    ++t[cells + cell(r + 1)];
    ++t[2 * cells + cell(r + 2)];
    ++t[3 * cells + cell(r + 3)];
  }
  for (; r < rows; ++r) ++t[cell(r)];
  for (std::size_t c = 0; c < cells; ++c)
    counts[c] = static_cast<double>(t[c] + t[cells + c] + t[2 * cells + c] + t[3 * cells + c]);
}

}  // namespace

CodedColumn code_column(const std::vector<const Column*>& datasets, const BinningOptions& options) {
  if (datasets.empty()) return {};
  const Column& first = *datasets.front();
  if (first.is_categorical()) return code_categorical(datasets, "NA", true);
  CodedColumn out;
  out.name = first.name;
  out.codes.resize(datasets.size());
  // Numeric: breaks from the pooled non-missing values of the break sources.
  auto is_break_source = [&](std::size_t t) {
    return options.break_sources.empty() ||
           std::find(options.break_sources.begin(), options.break_sources.end(), t) !=
               options.break_sources.end();
  };
  std::size_t nbins = 0;
  if (options.method == NumericBinning::kQuantile) {
    std::vector<double> pooled;
    for (std::size_t t = 0; t < datasets.size(); ++t)
      if (is_break_source(t))
        for (double v : datasets[t]->numeric)
          if (!std::isnan(v)) pooled.push_back(v);
    out.breaks = quantile_breaks(pooled, options.groups);
    nbins = out.breaks.empty() ? 0 : std::max<std::size_t>(1, out.breaks.size() - 1);
    for (std::size_t i = 0; i < nbins; ++i) {
      if (out.breaks.size() == 1) {
        out.labels.push_back("[" + format_number(out.breaks[0]) + "," +
                             format_number(out.breaks[0]) + "]");
      } else {
        const bool last = i + 2 == out.breaks.size();
        out.labels.push_back("[" + format_number(out.breaks[i]) + "," +
                             format_number(out.breaks[i + 1]) + (last ? "]" : ")"));
      }
    }
  } else {
    // Equal-width edges need only the range: the smallest value and (as std::minmax_element
    // picks it) the last largest one.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    bool any = false;
    for (std::size_t t = 0; t < datasets.size(); ++t)
      if (is_break_source(t))
        for (double v : datasets[t]->numeric)
          if (!std::isnan(v)) {
            if (!any || v < lo) lo = v;
            if (!any || v >= hi) hi = v;
            any = true;
          }
    if (any) out.breaks = equal_width_edges(lo, hi, options.groups);
    nbins = out.breaks.empty() ? 0 : out.breaks.size() - 1;
    for (std::size_t i = 0; i < nbins; ++i) {
      const std::string lo = i == 0 ? "-Inf" : format_number(out.breaks[i]);
      const std::string hi = i + 1 == nbins ? "Inf" : format_number(out.breaks[i + 1]);
      out.labels.push_back("[" + lo + "," + hi + ")");
    }
  }
  const std::size_t ncodes = first.missing_codes.size();
  for (double code : first.missing_codes) out.labels.push_back(format_number(code));
  out.labels.push_back("NA");
  const auto na = static_cast<std::uint32_t>(nbins + ncodes);
  out.missing_level = na;
  // Quantile breaks as R's cut(right = FALSE, include.lowest = TRUE), equal-width edges as
  // numpy.digitize with open outer ends: both count the interior breaks at or below the value.
  const auto cuts = interior(out.breaks);
  // The number of cuts at or below v (interval_index with kLeft); for a few cuts a branch-free
  // count is several times faster than the binary search on values in random order.
  constexpr std::size_t kCountedCuts = 16;
  auto interval_of = [&](double v) {
    if (cuts.size() > kCountedCuts) return interval_index(v, cuts, IntervalClosure::kLeft);
    std::uint32_t below = 0;
    for (double cut : cuts) below += cut <= v ? 1u : 0u;
    return below;
  };
  for (std::size_t t = 0; t < datasets.size(); ++t) {
    const Column& col = *datasets[t];
    auto& dst = out.codes[t];
    dst.resize(col.numeric.size());
    const bool has_codes = !col.missing_code_index.empty();
    for (std::size_t r = 0; r < col.numeric.size(); ++r) {
      const double v = col.numeric[r];
      if (std::isnan(v)) {
        const std::uint8_t k = has_codes ? col.missing_code_index[r] : 0;
        dst[r] = (k > 0 && k <= ncodes) ? static_cast<std::uint32_t>(nbins + k - 1) : na;
      } else if (nbins == 0) {
        dst[r] = na;  // unreachable: a value exists, so breaks exist when it is a break source
      } else {
        dst[r] = interval_of(v);
      }
    }
  }
  return out;
}

std::vector<double> joint_counts(const std::vector<const CodedColumn*>& columns,
                                 std::size_t dataset, std::size_t max_cells,
                                 std::span<const double> row_weights) {
  std::size_t cells = 1;
  for (const auto* c : columns) {
    if (c->levels() == 0) return {};
    if (cells > max_cells / c->levels())
      throw InputError("table of columns starting with '" + columns.front()->name +
                       "' would have more than " + std::to_string(max_cells) + " cells");
    cells *= c->levels();
  }
  std::vector<double> counts(cells, 0.0);
  if (columns.empty()) return counts;
  const std::size_t rows = columns.front()->codes[dataset].size();
  if (!row_weights.empty()) {
    if (row_weights.size() != rows)
      throw std::invalid_argument("joint_counts: one weight per row expected");
    for (std::size_t r = 0; r < rows; ++r) {
      std::size_t index = 0;
      for (std::size_t k = columns.size(); k-- > 0;)
        index = index * columns[k]->levels() + columns[k]->codes[dataset][r];
      counts[index] += row_weights[r];
    }
  } else if (columns.size() == 1) {
    const auto* a = columns[0]->codes[dataset].data();
    count_cells(rows, counts, [&](std::size_t r) { return a[r]; });
  } else if (columns.size() == 2) {
    const auto* a = columns[0]->codes[dataset].data();
    const auto* b = columns[1]->codes[dataset].data();
    const std::size_t la = columns[0]->levels();
    count_cells(rows, counts, [&](std::size_t r) { return a[r] + la * b[r]; });
  } else {
    for (std::size_t r = 0; r < rows; ++r) {
      std::size_t index = 0;
      for (std::size_t k = columns.size(); k-- > 0;)
        index = index * columns[k]->levels() + columns[k]->codes[dataset][r];
      counts[index] += 1.0;
    }
  }
  return counts;
}

std::vector<std::vector<double>> pair_counts(
    const std::vector<const CodedColumn*>& columns,
    const std::vector<std::pair<std::size_t, std::size_t>>& pairs, std::size_t dataset,
    std::size_t max_cells) {
  // Up to four columns per group, and a group table small enough for the cache (128 KB of
  // 32-bit counts); a pair above that is a group of its own.
  constexpr std::size_t kGroupColumns = 4;
  constexpr std::size_t kGroupCells = std::size_t{1} << 15;
  std::vector<std::vector<double>> out(pairs.size());
  std::size_t rows = 0;
  for (const auto& [a, b] : pairs) {
    if (a >= columns.size() || b >= columns.size() || a == b)
      throw std::invalid_argument("pair_counts: a pair of two different columns expected");
    const std::size_t la = columns[a]->levels(), lb = columns[b]->levels();
    if (la == 0 || lb == 0) continue;
    if (la > max_cells / lb)  // as joint_counts
      throw InputError("table of columns starting with '" + columns[a]->name +
                       "' would have more than " + std::to_string(max_cells) + " cells");
    if (rows == 0) rows = columns[a]->codes[dataset].size();
    if (columns[a]->codes[dataset].size() != rows || columns[b]->codes[dataset].size() != rows)
      throw std::invalid_argument("pair_counts: columns of different lengths");
  }

  // Greedy grouping: start from the first pair not yet counted and add the column that completes
  // the most uncounted pairs with the group's columns while the table stays within kGroupCells.
  struct Group {
    std::vector<std::size_t> members;  // column indices; the first varies fastest in the table
    std::vector<std::size_t> pairs;    // indices into `pairs` summed out of this group
  };
  std::vector<Group> groups;
  std::vector<char> counted(pairs.size(), 0);
  auto levels = [&](std::size_t c) { return static_cast<std::size_t>(columns[c]->levels()); };
  auto uncounted_with = [&](std::size_t c, const std::vector<std::size_t>& members) {
    std::size_t n = 0;
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      if (counted[p]) continue;
      const auto [a, b] = pairs[p];
      for (std::size_t m : members)
        if ((a == c && b == m) || (a == m && b == c)) ++n;
    }
    return n;
  };
  for (std::size_t first = 0; first < pairs.size(); ++first) {
    if (counted[first]) continue;
    const auto [a, b] = pairs[first];
    if (levels(a) == 0 || levels(b) == 0) {
      counted[first] = 1;  // an empty table, as joint_counts gives
      continue;
    }
    Group g;
    g.members = {a, b};
    std::size_t cells = levels(a) * levels(b);
    while (g.members.size() < kGroupColumns) {
      std::size_t best = columns.size(), best_gain = 0;
      for (std::size_t c = 0; c < columns.size(); ++c) {
        if (levels(c) == 0 || cells > kGroupCells / levels(c)) continue;
        if (std::find(g.members.begin(), g.members.end(), c) != g.members.end()) continue;
        const std::size_t gain = uncounted_with(c, g.members);
        if (gain > best_gain) {
          best = c;
          best_gain = gain;
        }
      }
      if (best_gain == 0) break;
      g.members.push_back(best);
      cells *= levels(best);
    }
    for (std::size_t p = first; p < pairs.size(); ++p) {
      if (counted[p]) continue;
      const auto [pa, pb] = pairs[p];
      const bool inside = std::find(g.members.begin(), g.members.end(), pa) != g.members.end() &&
                          std::find(g.members.begin(), g.members.end(), pb) != g.members.end();
      if (inside) {
        g.pairs.push_back(p);
        counted[p] = 1;
      }
    }
    groups.push_back(std::move(g));
  }

#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    const std::size_t m = g.members.size();
    std::array<const std::uint32_t*, kGroupColumns> code{};
    std::array<std::size_t, kGroupColumns> radix{};
    std::size_t cells = 1;
    for (std::size_t i = 0; i < m; ++i) {
      code[i] = columns[g.members[i]]->codes[dataset].data();
      radix[i] = levels(g.members[i]);
      cells *= radix[i];
    }
    std::vector<double> table(cells, 0.0);
    switch (m) {
      case 2:
        count_cells(rows, table, [&](std::size_t r) { return code[0][r] + radix[0] * code[1][r]; });
        break;
      case 3:
        count_cells(rows, table, [&](std::size_t r) {
          return code[0][r] + radix[0] * (code[1][r] + radix[1] * code[2][r]);
        });
        break;
      default:
        count_cells(rows, table, [&](std::size_t r) {
          return code[0][r] +
                 radix[0] * (code[1][r] + radix[1] * (code[2][r] + radix[2] * code[3][r]));
        });
    }
    // Sum each pair's table out of the group's, walking the cells with their digits.
    std::vector<std::pair<std::size_t, std::size_t>> at;  // positions of (a, b) in members
    for (std::size_t p : g.pairs) {
      const auto position = [&](std::size_t c) {
        return static_cast<std::size_t>(std::find(g.members.begin(), g.members.end(), c) -
                                        g.members.begin());
      };
      at.emplace_back(position(pairs[p].first), position(pairs[p].second));
      out[p].assign(radix[at.back().first] * radix[at.back().second], 0.0);
    }
    std::array<std::size_t, kGroupColumns> digit{};
    for (std::size_t cell = 0; cell < cells; ++cell) {
      if (table[cell] != 0)
        for (std::size_t i = 0; i < g.pairs.size(); ++i) {
          const auto [pa, pb] = at[i];
          out[g.pairs[i]][digit[pa] + radix[pa] * digit[pb]] += table[cell];
        }
      for (std::size_t i = 0; i < m && ++digit[i] == radix[i]; ++i) digit[i] = 0;
    }
  }
  return out;
}

std::vector<std::uint64_t> row_keys(const std::vector<const CodedColumn*>& columns,
                                    std::size_t dataset) {
  std::uint64_t radix = 1;
  for (const auto* c : columns) {
    if (c->levels() == 0) return {};
    if (radix > (std::uint64_t{1} << 63) / c->levels())
      throw InputError("group-by key over columns starting with '" + columns.front()->name +
                       "' has too many combinations");
    radix *= c->levels();
  }
  if (columns.empty()) return {};
  const std::size_t rows = columns.front()->codes[dataset].size();
  std::vector<std::uint64_t> keys(rows, 0);
  for (std::size_t k = columns.size(); k-- > 0;) {
    const auto& codes = columns[k]->codes[dataset];
    const std::uint64_t levels = columns[k]->levels();
    for (std::size_t r = 0; r < rows; ++r) keys[r] = keys[r] * levels + codes[r];
  }
  return keys;
}

TableComparison compare_tables(std::span<const double> confidential,
                               std::span<const double> synthetic) {
  TableComparison t;
  const std::size_t ncells = std::min(confidential.size(), synthetic.size());
  double nd = 0, ns = 0;
  for (std::size_t i = 0; i < ncells; ++i) {
    nd += confidential[i];
    ns += synthetic[i];
  }
  if (nd <= 0 || ns <= 0) {
    // One dataset is empty: every statistic is undefined.
    for (double* v : {&t.cells,
                      &t.df,
                      &t.dfG,
                      &t.VW_synthpop,
                      &t.VW_over_synthetic_counts,
                      &t.FT,
                      &t.G,
                      &t.JSD_log2,
                      &t.JSD_ln,
                      &t.KL_ln,
                      &t.KL_infinite_cells,
                      &t.table_KS_cumulative,
                      &t.SPECKS,
                      &t.U,
                      &t.PO50,
                      &t.pMSE,
                      &t.MabsDD,
                      &t.WMabsDD,
                      &t.dBhatt,
                      &t.S_VW,
                      &t.S_FT,
                      &t.S_G,
                      &t.S_pMSE,
                      &t.S_JSD,
                      &t.S_WMabsDD})
      *v = kNaN;
    return t;
  }
  const double N = nd + ns;
  const double cc = ns / N;
  double cum_d = 0, cum_s = 0;
  struct Cell {
    double score, d, s;
  };
  std::vector<Cell> kept;
  double sum_sok = 0, sum_dok = 0, cells_both = 0;
  double bhatt = 0, predicted = 0;
  for (std::size_t i = 0; i < ncells; ++i) {
    const double d = confidential[i], s = synthetic[i];
    const double pd = d / nd, ps = s / ns;
    cum_d += pd;
    cum_s += ps;
    t.table_KS_cumulative = std::max(t.table_KS_cumulative, std::abs(cum_d - cum_s));
    if (d + s <= 0) continue;
    t.cells += 1;
    const double expect = (s + d) * cc;
    const double diff = s - d * cc / (1 - cc);
    t.VW_synthpop += diff * diff / expect;
    const double ft = std::sqrt(s) - std::sqrt(cc / (1 - cc) * d);
    t.FT += ft * ft;
    t.VW_over_synthetic_counts += s > 0 ? (d - s) * (d - s) / s : kInf;
    const double ph = (pd + ps) * 0.5;
    if (pd > 0) t.JSD_log2 += pd * std::log2(pd / ph) / 2;
    if (ps > 0) t.JSD_log2 += ps * std::log2(ps / ph) / 2;
    if (pd > 0) {
      if (ps > 0) {
        t.KL_ln += pd * std::log(pd / ps);
      } else {
        t.KL_infinite_cells += 1;
      }
    }
    if (s > 1e-8 && d > 1e-8) {
      sum_sok += s;
      sum_dok += d;
      cells_both += 1;
    }
    predicted += ps > pd ? s : d;
    t.MabsDD += std::abs(diff);
    t.WMabsDD += std::abs(diff) / std::sqrt(expect);
    bhatt += std::sqrt(pd * ps);
    kept.push_back({s / (s + d), d, s});
  }
  // G over cells present in both, with the totals of those cells (synthpop).
  for (std::size_t i = 0; i < ncells; ++i) {
    const double d = confidential[i], s = synthetic[i];
    if (s > 1e-8 && d > 1e-8) t.G += s * std::log(s / sum_sok / d * sum_dok);
  }
  t.G *= 2;
  t.FT *= 4;
  t.JSD_ln = t.JSD_log2 * std::numbers::ln2;
  if (t.KL_infinite_cells > 0) t.KL_ln = kInf;
  t.df = t.cells - 1;
  t.dfG = cells_both - 1;
  t.pMSE = t.VW_synthpop * cc * (1 - cc) * (1 - cc) / N;
  t.PO50 = predicted / N * 100 - 50;
  t.MabsDD /= ns;
  t.WMabsDD /= std::sqrt(2 / std::numbers::pi);
  t.dBhatt = std::sqrt(std::max(0.0, 1 - bhatt));

  // SPECKS and U: every synthetic record carries its cell's propensity s/(s+d), every confidential
  // record too; KS distance and Mann–Whitney U (ties counted ½) between the two samples, computed
  // on the cells sorted by propensity (equal propensities step together).
  std::sort(kept.begin(), kept.end(),
            [](const Cell& a, const Cell& b) { return a.score < b.score; });
  double fs = 0, fd = 0, d_below = 0;
  for (std::size_t i = 0; i < kept.size();) {
    double group_s = 0, group_d = 0;
    std::size_t j = i;
    for (; j < kept.size() && kept[j].score == kept[i].score; ++j) {
      group_s += kept[j].s;
      group_d += kept[j].d;
    }
    t.U += group_s * (d_below + group_d / 2);
    d_below += group_d;
    fs += group_s / ns;
    fd += group_d / nd;
    t.SPECKS = std::max(t.SPECKS, std::abs(fs - fd));
    i = j;
  }

  const double df = t.df > 0 ? t.df : kNaN;
  const double dfG = t.dfG > 0 ? t.dfG : kNaN;
  t.S_VW = t.S_pMSE = t.VW_synthpop / df;
  t.S_FT = t.FT / df;
  t.S_JSD = t.JSD_log2 * 2 * N / df / std::numbers::ln2;
  t.S_G = t.G / dfG;
  t.S_WMabsDD = t.WMabsDD / df;
  return t;
}

}  // namespace synthaudit::stats
