// Correlation fit: Pearson/Spearman matrices and their difference, SDMetrics
// CorrelationSimilarity and ContingencySimilarity, Cramér's V difference; correlation-
// difference heatmap and 2-D KDE contour grids of numeric pairs.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/contingency.hpp"
#include "stats/correlation.hpp"
#include "stats/kde2d.hpp"
#include "stats/survey.hpp"

namespace synthaudit {

namespace {

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

MetricResult compute_correlation_fit(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const bool with_spearman = params.get_bool("spearman");
  const int bins = static_cast<int>(params.get_int("contingency_bins"));
  const auto contour_pairs = static_cast<std::size_t>(params.get_int("contour_pairs"));
  const auto grid = static_cast<std::size_t>(params.get_int("contour_grid"));
  const std::size_t ncol = conf.column_count();
  std::vector<std::size_t> compared;
  for (std::size_t c = 0; c < ncol; ++c)
    if (!is_design_column(in, c)) compared.push_back(c);
  if (compared.size() < 2)
    throw MetricNotApplicable("correlation_fit needs at least two columns besides design columns");
  if (conf.rows() == 0 || syn.rows() == 0)
    throw MetricNotApplicable("correlation_fit: a dataset has no rows");

  // --- Numeric pairs: Pearson and Spearman on pairwise-complete rows.
  std::vector<std::size_t> numeric;
  for (std::size_t c : compared)
    if (conf.column(c).is_numeric()) numeric.push_back(c);
  const std::size_t k = numeric.size();
  std::vector<std::span<const double>> xc, xs;
  for (auto c : numeric) {
    xc.emplace_back(conf.column(c).numeric);
    xs.emplace_back(syn.column(c).numeric);
  }
  auto mc = stats::correlation_matrices(xc, with_spearman);
  auto ms = stats::correlation_matrices(xs, with_spearman);
  // Survey weights: Pearson correlations as svyvar's and Spearman correlations of weighted
  // mid-ranks, on the pairwise-complete rows; a side without weights keeps its plain correlations.
  const DesignWeights weights = design_weights(in, syn, params, result.warnings);
  auto weigh = [&](stats::CorrelationMatrices& m, const std::vector<std::span<const double>>& x,
                   const std::vector<double>& w) {
    if (w.empty()) return;
    std::vector<std::vector<std::uint32_t>> order(with_spearman ? k : 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
    for (std::size_t c = 0; c < order.size(); ++c) order[c] = stats::weighted_rank_order(x[c], w);
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = a + 1; b < k; ++b) pairs.emplace_back(a, b);
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const auto [a, b] = pairs[p];
      m.pearson[a * k + b] = m.pearson[b * k + a] =
          stats::survey_moments(x[a], x[b], w).correlation;
      if (with_spearman)
        m.spearman[a * k + b] = m.spearman[b * k + a] =
            stats::survey_spearman(x[a], x[b], w, order[a], order[b]);
    }
  };
  weigh(mc, xc, weights.confidential);
  weigh(ms, xs, weights.synthetic);
  std::vector<std::pair<double, std::pair<std::size_t, std::size_t>>> by_difference;
  double sim_p = 0, sim_s = 0;
  std::size_t n_sim_p = 0, n_sim_s = 0;
  auto heat = make_plot("heatmap", "Pearson correlation difference (synthetic − confidential)",
                        "column", "column");
  // One correlation kind for one pair: both values, their difference and SDMetrics'
  // CorrelationSimilarity 1 − |ρ_c − ρ_s|/2, summed for the mean over pairs.
  auto add_pair = [&](const std::string& kind, const std::string& scope, double c, double s,
                      double& similarity_sum, std::size_t& similarity_count) {
    result.add(kind + "_confidential", scope, c);
    result.add(kind + "_synthetic", scope, s);
    result.add(kind + "_difference", scope, s - c);
    const double similarity = 1 - std::abs(c - s) / 2;
    result.add("correlation_similarity_" + kind, scope, similarity);
    if (std::isfinite(similarity)) {
      similarity_sum += similarity;
      ++similarity_count;
    }
  };
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = a + 1; b < k; ++b) {
      const std::string scope = conf.column(numeric[a]).name + ":" + conf.column(numeric[b]).name;
      const double pc = mc.pearson[a * k + b], ps = ms.pearson[a * k + b];
      add_pair("pearson", scope, pc, ps, sim_p, n_sim_p);
      heat["data"].push_back({{"row", conf.column(numeric[b]).name},
                              {"column", conf.column(numeric[a]).name},
                              {"value", number_or_null(ps - pc)}});
      by_difference.push_back({std::isfinite(ps - pc) ? std::abs(ps - pc) : -1.0, {a, b}});
      if (with_spearman)
        add_pair("spearman", scope, mc.spearman[a * k + b], ms.spearman[a * k + b], sim_s, n_sim_s);
    }
  // The lecture notes' summaries of the lower-triangle differences, and the mean similarity.
  auto add_summary = [&](const std::string& kind, std::span<const double> c,
                         std::span<const double> s, double similarity_sum,
                         std::size_t similarity_count) {
    const auto d = stats::lower_triangle_difference(c, s, k);
    result.add(kind + "_mae", "all", d.mae);
    result.add(kind + "_rmse", "all", d.rmse);
    result.add(kind + "_sum_abs_difference", "all", d.sum_abs);
    if (similarity_count > 0)
      result.add("mean_correlation_similarity_" + kind, "all",
                 similarity_sum / static_cast<double>(similarity_count));
    return d;
  };
  if (k >= 2) {
    const auto dp = add_summary("pearson", mc.pearson, ms.pearson, sim_p, n_sim_p);
    if (with_spearman) add_summary("spearman", mc.spearman, ms.spearman, sim_s, n_sim_s);
    if (dp.undefined > 0)
      result.warnings.push_back(
          std::to_string(dp.undefined) +
          " numeric pair(s) have an undefined Pearson correlation (constant "
          "column or fewer than two complete rows) and are left out of the MAE");
  }

  // --- Every pair: SDMetrics ContingencySimilarity on equal-width bins of the confidential values
  // (numeric) and levels (categorical), missing values and missing codes as levels of their own.
  std::vector<stats::CodedColumn> coded(ncol);
  const stats::BinningOptions equal_width{
      .method = stats::NumericBinning::kEqualWidth, .groups = bins, .break_sources = {0}};
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t i = 0; i < compared.size(); ++i) {
    const std::size_t c = compared[i];
    coded[c] = stats::code_column({&conf.column(c), &syn.column(c)}, equal_width);
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < compared.size(); ++i)
    for (std::size_t j = i + 1; j < compared.size(); ++j)
      pairs.emplace_back(compared[i], compared[j]);
  std::vector<const stats::CodedColumn*> coded_columns;
  for (const auto& c : coded) coded_columns.push_back(&c);
  const auto tables_conf = stats::pair_counts(coded_columns, pairs, 0);
  const auto tables_syn = stats::pair_counts(coded_columns, pairs, 1);
  std::vector<double> similarity(pairs.size()), v_conf(pairs.size()), v_syn(pairs.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [a, b] = pairs[p];
    const std::vector<const stats::CodedColumn*> cols = {&coded[a], &coded[b]};
    const auto& tc = tables_conf[p];
    const auto& ts = tables_syn[p];
    // Survey weights: the table of estimated population counts (svytable's weighted cells) gives
    // both the cell shares and Cramér's V.
    auto weighted_counts = [&](const std::vector<double>& counts, std::size_t dataset,
                               const std::vector<double>& w) {
      return w.empty() ? counts : stats::joint_counts(cols, dataset, std::size_t{1} << 26, w);
    };
    const auto wc = weighted_counts(tc, 0, weights.confidential);
    const auto ws = weighted_counts(ts, 1, weights.synthetic);
    auto shares_of = [](std::vector<double> counts, double total) {
      for (auto& share : counts) share /= total;
      return counts;
    };
    auto weight_total = [](const std::vector<double>& counts) {
      return std::accumulate(counts.begin(), counts.end(), 0.0);
    };
    const auto pc = shares_of(
        wc, weights.confidential.empty() ? static_cast<double>(conf.rows()) : weight_total(wc));
    const auto ps = shares_of(
        ws, weights.synthetic.empty() ? static_cast<double>(syn.rows()) : weight_total(ws));
    double tv = 0;
    for (std::size_t i = 0; i < pc.size(); ++i) tv += std::abs(pc[i] - ps[i]);
    similarity[p] = 1 - tv / 2;
    if (conf.column(a).is_categorical() && conf.column(b).is_categorical()) {
      v_conf[p] = stats::cramers_v(wc, coded[a].levels(), coded[b].levels());
      v_syn[p] = stats::cramers_v(ws, coded[a].levels(), coded[b].levels());
    }
  }
  double sum_sim = 0, v_abs = 0;
  std::size_t n_v = 0;
  auto vheat =
      make_plot("heatmap", "Cramér's V difference (synthetic − confidential)", "column", "column");
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [a, b] = pairs[p];
    const std::string scope = conf.column(a).name + ":" + conf.column(b).name;
    result.add("contingency_similarity", scope, similarity[p]);
    sum_sim += similarity[p];
    if (conf.column(a).is_categorical() && conf.column(b).is_categorical()) {
      result.add("cramers_v_confidential", scope, v_conf[p]);
      result.add("cramers_v_synthetic", scope, v_syn[p]);
      result.add("cramers_v_difference", scope, v_syn[p] - v_conf[p]);
      vheat["data"].push_back({{"row", conf.column(b).name},
                               {"column", conf.column(a).name},
                               {"value", number_or_null(v_syn[p] - v_conf[p])}});
      if (std::isfinite(v_syn[p] - v_conf[p])) {
        v_abs += std::abs(v_syn[p] - v_conf[p]);
        ++n_v;
      }
    }
  }
  result.add("mean_contingency_similarity", "all", sum_sim / static_cast<double>(pairs.size()));
  if (n_v > 0) result.add("cramers_v_mae", "all", v_abs / static_cast<double>(n_v));

  // --- Plots: heatmaps and KDE contour grids for the numeric pairs whose correlation moved most.
  // The grids cost two kernel sums over every row per pair: none when the plot data are dropped.
  auto plots = nlohmann::json::array();
  if (k >= 2) plots.push_back(heat);
  if (!vheat["data"].empty()) plots.push_back(vheat);
  std::stable_sort(by_difference.begin(), by_difference.end(),
                   [](const auto& l, const auto& r) { return l.first > r.first; });
  const std::size_t contours = in.plots ? std::min(contour_pairs, by_difference.size()) : 0;
  for (std::size_t p = 0; p < contours; ++p) {
    const auto [a, b] = by_difference[p].second;
    const auto& ca = conf.column(numeric[a]);
    const auto& cb = conf.column(numeric[b]);
    auto range = [](std::span<const double> v) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (double x : v)
        if (!std::isnan(x)) {
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
      return std::make_pair(lo, hi);
    };
    const auto [xlo, xhi] = range(ca.numeric);
    const auto [ylo, yhi] = range(cb.numeric);
    if (!(xlo < xhi) || !(ylo < yhi)) continue;
    auto plot = make_plot("contour", "Density of " + ca.name + " and " + cb.name + " (2-D KDE)",
                          ca.name, cb.name, ca.name + ":" + cb.name);
    for (int d = 0; d < 2; ++d) {
      const Table& t = d == 0 ? conf : syn;
      std::span<const double> x = t.column(numeric[a]).numeric, y = t.column(numeric[b]).numeric;
      const auto g = stats::kde2d(x, y, stats::bandwidth_nrd(x), stats::bandwidth_nrd(y), grid,
                                  grid, xlo, xhi, ylo, yhi);
      for (std::size_t j = 0; j < grid; ++j)
        for (std::size_t i = 0; i < grid; ++i)
          plot["data"].push_back({{"x", g.x[i]},
                                  {"y", g.y[j]},
                                  {"dataset", d == 0 ? "confidential" : "synthetic"},
                                  {"density", g.density[i + grid * j]}});
    }
    plots.push_back(plot);
  }
  if (!plots.empty()) result.details["plots"] = plots;
  return result;
}

}  // namespace

MetricSpec correlation_fit_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "correlation_fit",
      .family = MetricFamily::kGeneral,
      .summary =
          "Pearson/Spearman correlation differences (MAE, RMSE), SDMetrics "
          "CorrelationSimilarity and ContingencySimilarity, Cramér's V differences",
      .doc =
          "Numeric columns: Pearson and Spearman (average ranks) correlations on pairwise-"
          "complete rows for every pair, confidential and synthetic, difference syn − conf, and "
          "over the lower triangle the MAE, RMSE and sum of absolute differences; "
          "correlation_similarity = 1 − |ρ_conf − ρ_syn|/2 per pair (SDMetrics "
          "CorrelationSimilarity). Every pair of columns: contingency_similarity = 1 − ½Σ|p_conf − "
          "p_syn| over the joint table (SDMetrics ContingencySimilarity), numeric columns cut into "
          "`contingency_bins` equal-width bins of the confidential range with open outer ends "
          "(SDMetrics discretize_column), missing values a level of their own. Categorical pairs: "
          "Cramér's V = √(χ²/(n(min(r,c) − 1))) (no bias correction, missing as a level), per "
          "dataset and the difference. Plots: correlation-difference "
          "heatmaps and 2-D KDE contour grids (MASS::kde2d, bandwidth.nrd) for the "
          "`contour_pairs` numeric pairs whose correlation moved most. Survey weights: with "
          "weights: declared, every correlation is the design-based point estimate of its "
          "population value (and so are their differences, similarities and summaries): Pearson "
          "correlations are svyvar's over the pairwise-complete rows (Lumley 2004); Spearman "
          "correlations are the weighted Pearson correlations of weighted mid-ranks, a value's "
          "rank being the weight of the rows below it plus half the weight of its ties (the "
          "weighted Pearson of weighted ranks of Bailey & Emad's wCorr, whose ranks add the "
          "tied rows' mean weight instead of half of it: with integer weights ours equal the "
          "repeated rows' Spearman, wCorr's do not); contingency_similarity compares weighted cell "
          "shares (svytable) and Cramér's V is computed on the table of estimated population "
          "counts (cells summing the weights, n = Σw; V does not change when the weights are "
          "rescaled, so this is also V of the weighted cell shares). The KDE contour grids treat "
          "the rows alike. synthetic_weights says "
          "whether the synthetic data carry their own "
          "weight "
          "column (auto: when usable; own; none), and the weight and household columns are not "
          "compared.",
      .params = {{.name = "spearman",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "also compute Spearman correlations (one sort per column)"},
                 {.name = "contingency_bins",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{10},
                  .doc =
                      "equal-width bins for numeric columns in contingency_similarity (SDMetrics "
                      "num_discrete_bins)",
                  .min = 1,
                  .max = 10000},
                 {.name = "contour_pairs",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{3},
                  .doc = "numeric pairs that get a 2-D KDE contour grid (0 = none; not computed "
                         "where the plot data are not kept)",
                  .min = 0,
                  .max = 100},
                 {.name = "contour_grid",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{25},
                  .doc = "grid points per axis of each contour grid",
                  .min = 2,
                  .max = 200},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "pearson_mae",
                     .ideal = Ideal::lower(),
                     .reading = "mean absolute difference between real and synthetic Pearson "
                                "correlations of numeric pairs",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber},
                    {.statistic = "mean_contingency_similarity",
                     .ideal = Ideal::higher(),
                     .reading =
                         "mean similarity of real and synthetic two-way tables (1 = identical)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute_correlation_fit,
      .statistics = {{"{pearson|spearman}_{confidential|synthetic}",
                      "correlation of the pair in one dataset, over its pairwise-complete rows",
                      std::nullopt,
                      {kColumnPair}},
                     {"{pearson|spearman}_difference",
                      "synthetic − confidential correlation of the pair",
                      Ideal::at(0.0),
                      {kColumnPair}},
                     {"correlation_similarity_{pearson|spearman}",
                      "1 − |ρ_conf − ρ_syn|/2, SDMetrics' CorrelationSimilarity",
                      Ideal::higher(),
                      {kColumnPair}},
                     {"{pearson|spearman}_mae",
                      "mean absolute correlation difference over the lower triangle",
                      Ideal::lower(),
                      {kAll}},
                     {"{pearson|spearman}_rmse",
                      "root mean squared correlation difference over the lower triangle",
                      Ideal::lower(),
                      {kAll}},
                     {"{pearson|spearman}_sum_abs_difference",
                      "sum of absolute correlation differences over the lower triangle",
                      Ideal::lower(),
                      {kAll}},
                     {"mean_correlation_similarity_{pearson|spearman}",
                      "mean CorrelationSimilarity over the numeric pairs",
                      Ideal::higher(),
                      {kAll}},
                     {"contingency_similarity",
                      "1 − ½Σ|p_conf − p_syn| over the joint table of the pair, SDMetrics' "
                      "ContingencySimilarity",
                      Ideal::higher(),
                      {kColumnPair}},
                     {"cramers_v_{confidential|synthetic}",
                      "Cramér's V of a categorical pair in one dataset (no bias correction)",
                      std::nullopt,
                      {kColumnPair}},
                     {"cramers_v_difference",
                      "synthetic − confidential Cramér's V",
                      Ideal::at(0.0),
                      {kColumnPair}},
                     {"mean_contingency_similarity",
                      "mean ContingencySimilarity over every pair of columns",
                      Ideal::higher(),
                      {kAll}},
                     {"cramers_v_mae",
                      "mean absolute Cramér's V difference over the categorical pairs",
                      Ideal::lower(),
                      {kAll}}},
      .references = {cite(urban_institute_2023(),
                          "correlation-difference matrix summarised by MAE, RMSE and the sum of "
                          "absolute differences"),
                     cite(sdmetrics_software(),
                          "CorrelationSimilarity and ContingencySimilarity, reproduced on SD2011"),
                     cite(cramer_1946(), "Cramér's V"),
                     cite(venables_ripley_2002(),
                          "MASS::kde2d and bandwidth.nrd for the contour grids"),
                     cite(lumley_2004(), "svyvar correlations with survey weights"),
                     cite(bailey_emad_wcorr(),
                          "weighted Spearman as the weighted Pearson correlation of weighted "
                          "ranks (ties and a row's own weight handled differently, see the doc)")},
  };
}

}  // namespace synthaudit
