#include "stats/contingency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <numeric>
#include <stdexcept>

#include "core/error.hpp"

namespace synthaudit::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string format_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.8g", v);  // R's cut(dig.lab = 8)
  return buffer;
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
  std::vector<double> pooled;
  for (std::size_t t = 0; t < datasets.size(); ++t) {
    if (!options.break_sources.empty() &&
        std::find(options.break_sources.begin(), options.break_sources.end(), t) ==
            options.break_sources.end())
      continue;
    for (double v : datasets[t]->numeric)
      if (!std::isnan(v)) pooled.push_back(v);
  }
  std::size_t nbins = 0;
  if (options.method == NumericBinning::kQuantile) {
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
    out.breaks = equal_width_edges(pooled, options.groups);
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
        dst[r] = interval_index(v, cuts, IntervalClosure::kLeft);
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
    for (auto code : columns[0]->codes[dataset]) counts[code] += 1.0;
  } else if (columns.size() == 2) {
    const auto& a = columns[0]->codes[dataset];
    const auto& b = columns[1]->codes[dataset];
    const std::size_t la = columns[0]->levels();
    for (std::size_t r = 0; r < rows; ++r) counts[a[r] + la * b[r]] += 1.0;
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
