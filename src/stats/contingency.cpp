#include "stats/contingency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <numeric>

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

double quantile_type7(std::span<const double> sorted, double p) {
  if (sorted.empty()) return kNaN;
  const double index = 1.0 + static_cast<double>(sorted.size() - 1) * p;  // 1-based, as R
  const double lo = std::floor(index);
  const double hi = std::ceil(index);
  const double qlo = sorted[static_cast<std::size_t>(lo) - 1];
  const double qhi = sorted[static_cast<std::size_t>(hi) - 1];
  const double h = index - lo;
  if (index > lo && qhi != qlo) return (1.0 - h) * qlo + h * qhi;
  return qlo;
}

std::vector<double> quantiles_type7(std::vector<double>& values, std::span<const double> probs) {
  std::vector<double> out(probs.size(), kNaN);
  if (values.empty()) return out;
  const std::size_t n = values.size();
  // Order statistics needed (0-based), selected in increasing order on shrinking ranges: O(n) per
  // distinct statistic instead of a full O(n log n) sort of the pooled column.
  std::vector<std::size_t> need;
  for (double p : probs) {
    const double index = 1.0 + static_cast<double>(n - 1) * p;
    need.push_back(static_cast<std::size_t>(std::floor(index)) - 1);
    need.push_back(static_cast<std::size_t>(std::ceil(index)) - 1);
  }
  std::sort(need.begin(), need.end());
  need.erase(std::unique(need.begin(), need.end()), need.end());
  std::size_t from = 0;
  for (std::size_t k : need) {
    std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(from),
                     values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    from = k + 1;
  }
  for (std::size_t i = 0; i < probs.size(); ++i) {
    const double index = 1.0 + static_cast<double>(n - 1) * probs[i];
    const double lo = std::floor(index);
    const double hi = std::ceil(index);
    const double qlo = values[static_cast<std::size_t>(lo) - 1];
    const double qhi = values[static_cast<std::size_t>(hi) - 1];
    const double h = index - lo;
    out[i] = (index > lo && qhi != qlo) ? (1.0 - h) * qlo + h * qhi : qlo;
  }
  return out;
}

std::vector<double> quantile_breaks(std::vector<double>& values, int ngroups) {
  if (values.empty() || ngroups < 1) return {};
  // R: seq(0, 1, 1/n) is from + (0:n) * by.
  const double by = 1.0 / static_cast<double>(ngroups);
  std::vector<double> probs;
  for (int i = 0; i <= ngroups; ++i) probs.push_back(static_cast<double>(i) * by);
  auto breaks = quantiles_type7(values, probs);
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());  // sorted already
  return breaks;
}

std::vector<double> equal_width_edges(std::span<const double> values, int bins) {
  if (values.empty() || bins < 1) return {};
  auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  double first = *lo_it, last = *hi_it;
  if (first == last) {
    first -= 0.5;
    last += 0.5;
  }
  // numpy.linspace: i·step + start, the last edge set to stop.
  const double step = (last - first) / static_cast<double>(bins);
  std::vector<double> edges(static_cast<std::size_t>(bins) + 1);
  for (int i = 0; i <= bins; ++i)
    edges[static_cast<std::size_t>(i)] = static_cast<double>(i) * step + first;
  edges.back() = last;
  return edges;
}

std::uint32_t open_bin_index(double x, std::span<const double> edges) {
  if (edges.size() <= 2) return 0;
  const auto interior = edges.subspan(1, edges.size() - 2);
  return static_cast<std::uint32_t>(std::upper_bound(interior.begin(), interior.end(), x) -
                                    interior.begin());
}

std::uint32_t interval_index(double x, std::span<const double> breaks) {
  if (breaks.size() <= 2) return 0;
  // Number of breaks b_1..b_{k-1} that are ≤ x: [b_i, b_{i+1}) with the last interval closed.
  const auto inner = breaks.subspan(1, breaks.size() - 2);
  return static_cast<std::uint32_t>(std::upper_bound(inner.begin(), inner.end(), x) -
                                    inner.begin());
}

CodedColumn code_column(const std::vector<const Column*>& datasets, const BinningOptions& options) {
  CodedColumn out;
  if (datasets.empty()) return out;
  const Column& first = *datasets.front();
  out.name = first.name;
  out.codes.resize(datasets.size());
  if (first.is_categorical()) {
    const std::size_t nlev = first.cardinality();
    for (std::size_t k = 0; k < nlev; ++k)
      out.labels.push_back(first.dictionary->level(static_cast<std::uint32_t>(k)));
    out.labels.push_back("NA");
    const auto na = static_cast<std::uint32_t>(nlev);
    out.missing_level = na;
    for (std::size_t t = 0; t < datasets.size(); ++t) {
      const auto& codes = datasets[t]->codes;
      auto& dst = out.codes[t];
      dst.resize(codes.size());
      for (std::size_t r = 0; r < codes.size(); ++r) dst[r] = is_missing(codes[r]) ? na : codes[r];
    }
    return out;
  }
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
  const bool quantile = options.method == NumericBinning::kQuantile;
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
        dst[r] = quantile ? interval_index(v, out.breaks) : open_bin_index(v, out.breaks);
      }
    }
  }
  return out;
}

std::vector<double> joint_counts(const std::vector<const CodedColumn*>& columns,
                                 std::size_t dataset, std::size_t max_cells) {
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
  if (columns.size() == 1) {
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
