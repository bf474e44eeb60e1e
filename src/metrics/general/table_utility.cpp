// Table statistics over every one-way and two-way table (three-way on request), synthpop
// utility.tab definitions plus a second VW (over synthetic counts), JSD in natural log, KL and
// the cumulative table KS.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/column_lookup.hpp"
#include "stats/contingency.hpp"

namespace synthaudit {

namespace {

using stats::TableComparison;

struct StatisticField {
  const char* name;
  double TableComparison::*field;
};

// Every statistic reported per table, in output order. synthpop's names where the definition is
// synthpop's; the two VW and JSD definitions carry self-explaining names.
constexpr StatisticField kStatistics[] = {
    {"VW_synthpop", &TableComparison::VW_synthpop},
    {"VW_over_synthetic_counts", &TableComparison::VW_over_synthetic_counts},
    {"FT", &TableComparison::FT},
    {"G", &TableComparison::G},
    {"JSD_log2", &TableComparison::JSD_log2},
    {"JSD_ln", &TableComparison::JSD_ln},
    {"KL_ln", &TableComparison::KL_ln},
    {"KL_infinite_cells", &TableComparison::KL_infinite_cells},
    {"table_KS_cumulative", &TableComparison::table_KS_cumulative},
    {"SPECKS", &TableComparison::SPECKS},
    {"U", &TableComparison::U},
    {"PO50", &TableComparison::PO50},
    {"pMSE", &TableComparison::pMSE},
    {"MabsDD", &TableComparison::MabsDD},
    {"WMabsDD", &TableComparison::WMabsDD},
    {"dBhatt", &TableComparison::dBhatt},
    {"S_VW", &TableComparison::S_VW},
    {"S_FT", &TableComparison::S_FT},
    {"S_G", &TableComparison::S_G},
    {"S_pMSE", &TableComparison::S_pMSE},
    {"S_JSD", &TableComparison::S_JSD},
    {"S_WMabsDD", &TableComparison::S_WMabsDD},
    {"df", &TableComparison::df},
    {"dfG", &TableComparison::dfG},
    {"cells", &TableComparison::cells},
};

// Statistics averaged over the tables of each order ("one-way", "two-way", "three-way").
constexpr const char* kAveraged[] = {"S_pMSE",    "S_VW", "S_FT",     "S_G",    "S_JSD",
                                     "S_WMabsDD", "pMSE", "JSD_log2", "dBhatt", "SPECKS"};

double field_of(const TableComparison& t, const std::string& name) {
  for (const auto& s : kStatistics)
    if (name == s.name) return t.*(s.field);
  return std::numeric_limits<double>::quiet_NaN();
}

const char* order_name(std::size_t way) {
  return way == 1 ? "one-way" : way == 2 ? "two-way" : "three-way";
}

// Row weights rescaled to sum to the row count (svytable(..., Ntotal = n)): weighted cell counts
// on the scale of the sample, so the chance-calibrated statistics keep their sample size. Empty
// (unweighted) stays empty.
std::vector<double> weights_summing_to_rows(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w;
  std::vector<double> scaled;
  if (weights.empty() || total <= 0) return scaled;
  const double factor = static_cast<double>(weights.size()) / total;
  scaled.reserve(weights.size());
  for (double w : weights) scaled.push_back(w * factor);
  return scaled;
}

MetricResult compute_table_utility(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const int ngroups = static_cast<int>(params.get_int("ngroups"));
  const auto max_way = static_cast<std::size_t>(params.get_int("max_way"));
  const auto worst = static_cast<std::size_t>(params.get_int("worst"));
  const auto max_cells = static_cast<std::size_t>(params.get_int("max_cells"));
  const std::string& rank_by = params.get_string("rank_by");

  const DesignWeights weights = design_weights(in, syn, params, result.warnings);
  const auto conf_weights = weights_summing_to_rows(weights.confidential);
  const auto syn_weights = weights_summing_to_rows(weights.synthetic);

  std::vector<std::size_t> selected;
  const auto& names = params.get_string_list("columns");
  if (names.empty()) {
    for (std::size_t c = 0; c < conf.column_count(); ++c)
      if (!is_design_column(in, c)) selected.push_back(c);
  } else {
    for (auto c : stats::resolve_columns(conf, names, "parameters.table_utility.columns"))
      if (!is_design_column(in, c)) selected.push_back(c);
  }
  if (selected.empty()) throw MetricNotApplicable("table_utility: the data have no columns");
  if (conf.rows() == 0 || syn.rows() == 0)
    throw MetricNotApplicable("table_utility: a dataset has no rows");

  // Code every column once: numeric columns into ngroups quantile bins of the pooled confidential
  // and synthetic values, declared missing codes and NA as levels of their own (synthpop).
  std::vector<stats::CodedColumn> coded(selected.size());
  stats::BinningOptions binning{.method = stats::NumericBinning::kQuantile, .groups = ngroups};
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t i = 0; i < selected.size(); ++i)
    coded[i] = stats::code_column({&conf.column(selected[i]), &syn.column(selected[i])}, binning);

  // Every table of order 1..max_way, in column order (a:b with a before b, as synthpop's pairs).
  std::vector<std::vector<std::size_t>> tables;
  const std::size_t k = selected.size();
  for (std::size_t a = 0; a < k; ++a) tables.push_back({a});
  if (max_way >= 2)
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = a + 1; b < k; ++b) tables.push_back({a, b});
  if (max_way >= 3)
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = a + 1; b < k; ++b)
        for (std::size_t c = b + 1; c < k; ++c) tables.push_back({a, b, c});

  std::vector<TableComparison> stats_of(tables.size());
  std::vector<char> skipped(tables.size(), 0);
  std::vector<std::vector<double>> conf_counts(tables.size()), syn_counts(tables.size());
  // Tables are independent: one per iteration, results in fixed slots (thread-count independent).
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
  for (std::size_t t = 0; t < tables.size(); ++t) {
    std::vector<const stats::CodedColumn*> cols;
    std::size_t cells = 1;
    for (auto i : tables[t]) {
      cols.push_back(&coded[i]);
      cells *= std::max<std::size_t>(1, coded[i].levels());
    }
    if (cells > max_cells) {
      skipped[t] = 1;
      continue;
    }
    conf_counts[t] = stats::joint_counts(cols, 0, max_cells, conf_weights);
    syn_counts[t] = stats::joint_counts(cols, 1, max_cells, syn_weights);
    stats_of[t] = stats::compare_tables(conf_counts[t], syn_counts[t]);
  }

  auto scope_of = [&](const std::vector<std::size_t>& table) {
    std::string scope;
    for (auto i : table) scope += (scope.empty() ? "" : ":") + coded[i].name;
    return scope;
  };
  std::vector<std::string> skipped_names;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    if (skipped[t]) {
      skipped_names.push_back(scope_of(tables[t]));
      continue;
    }
    const std::string scope = scope_of(tables[t]);
    for (const auto& s : kStatistics) result.add(s.name, scope, stats_of[t].*(s.field));
  }
  if (!skipped_names.empty())
    result.warnings.push_back(std::to_string(skipped_names.size()) +
                              " table(s) over max_cells = " + std::to_string(max_cells) +
                              " cells were skipped, e.g. " + skipped_names.front());

  // Means over the tables of each order (tables with an undefined value are left out and counted).
  for (std::size_t way = 1; way <= max_way; ++way) {
    for (const char* name : kAveraged) {
      double sum = 0;
      std::size_t n = 0;
      for (std::size_t t = 0; t < tables.size(); ++t) {
        if (skipped[t] || tables[t].size() != way) continue;
        const double v = field_of(stats_of[t], name);
        if (std::isfinite(v)) {
          sum += v;
          ++n;
        }
      }
      if (n > 0)
        result.add(std::string("mean_") + name, order_name(way), sum / static_cast<double>(n));
    }
  }

  // Per column, the mean S_pMSE over the tables of the highest order that contain it (synthpop
  // utility.tables' var.scores); tables with an undefined S_pMSE are left out.
  std::vector<double> variable_score(k, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < k; ++i) {
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t t = 0; t < tables.size(); ++t) {
      if (skipped[t] || tables[t].size() != max_way || !std::isfinite(stats_of[t].S_pMSE)) continue;
      if (std::find(tables[t].begin(), tables[t].end(), i) == tables[t].end()) continue;
      sum += stats_of[t].S_pMSE;
      ++n;
    }
    if (n == 0) continue;
    variable_score[i] = sum / static_cast<double>(n);
    result.add("variable_mean_S_pMSE", coded[i].name, variable_score[i]);
  }

  // The worst tables by rank_by, with their cells, for the report.
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < tables.size(); ++t)
    if (!skipped[t]) order.push_back(t);
  auto key = [&](std::size_t t) {
    const double v = field_of(stats_of[t], rank_by);
    return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
  };
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return key(a) > key(b); });
  auto worst_json = nlohmann::json::array();
  for (std::size_t r = 0; r < std::min(worst, order.size()); ++r) {
    const std::size_t t = order[r];
    nlohmann::json entry = {
        {"rank", r + 1},   {"table", scope_of(tables[t])}, {"ranked_by", rank_by},
        {"value", key(t)}, {"S_pMSE", stats_of[t].S_pMSE}, {"df", stats_of[t].df}};
    // Cells (non-empty in either dataset) with labels, counts and synthpop's standardised
    // difference (s − d·c/(1−c))/√((s + d)c).
    auto cells = nlohmann::json::array();
    const auto& cd = conf_counts[t];
    const auto& cs = syn_counts[t];
    double nd = 0, ns = 0;
    for (std::size_t i = 0; i < cd.size(); ++i) {
      nd += cd[i];
      ns += cs[i];
    }
    const double cc = ns / (nd + ns);
    for (std::size_t i = 0; i < cd.size() && cells.size() < 400; ++i) {
      if (cd[i] + cs[i] <= 0) continue;
      nlohmann::json levels = nlohmann::json::array();
      std::size_t rest = i;
      for (auto col : tables[t]) {
        levels.push_back(coded[col].labels[rest % coded[col].levels()]);
        rest /= coded[col].levels();
      }
      cells.push_back(
          {{"levels", levels},
           {"confidential", cd[i]},
           {"synthetic", cs[i]},
           {"zdiff", (cs[i] - cd[i] * cc / (1 - cc)) / std::sqrt((cs[i] + cd[i]) * cc)}});
    }
    entry["cells"] = cells;
    worst_json.push_back(entry);
  }
  result.details["worst_tables"] = worst_json;
  auto bins = nlohmann::json::object();
  for (const auto& c : coded)
    if (!c.breaks.empty()) bins[c.name] = c.breaks;
  result.details["numeric_breaks"] = bins;

  // Heatmap of S_pMSE over column pairs (both triangles so the matrix reads either way).
  if (max_way >= 2) {
    auto plot = make_plot("heatmap", "Two-way table S_pMSE (1 = as expected by chance)", "column",
                          "column");
    for (std::size_t t = 0; t < tables.size(); ++t) {
      if (skipped[t] || tables[t].size() != 2) continue;
      const double v = stats_of[t].S_pMSE;
      const auto& a = coded[tables[t][0]].name;
      const auto& b = coded[tables[t][1]].name;
      const nlohmann::json value = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
      plot["data"].push_back({{"row", a}, {"column", b}, {"value", value}});
      plot["data"].push_back({{"row", b}, {"column", a}, {"value", value}});
    }
    result.details["plots"] = nlohmann::json::array({plot});
  }
  // Three-way tables drawn as synthpop does: the S_pMSE of every pair together with the column
  // of the highest variable score as the third.
  if (max_way >= 3) {
    std::size_t third = k;
    for (std::size_t i = 0; i < k; ++i)
      if (std::isfinite(variable_score[i]) &&
          (third == k || variable_score[i] > variable_score[third]))
        third = i;
    if (third < k) {
      auto plot = make_plot("heatmap",
                            "Three-way table S_pMSE for pairs together with " + coded[third].name,
                            "column", "column");
      for (std::size_t t = 0; t < tables.size(); ++t) {
        if (skipped[t] || tables[t].size() != 3) continue;
        std::vector<std::size_t> pair;
        for (auto i : tables[t])
          if (i != third) pair.push_back(i);
        if (pair.size() != 2) continue;
        const double v = stats_of[t].S_pMSE;
        const nlohmann::json value = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
        const auto& a = coded[pair[0]].name;
        const auto& b = coded[pair[1]].name;
        plot["data"].push_back({{"row", a}, {"column", b}, {"value", value}});
        plot["data"].push_back({{"row", b}, {"column", a}, {"value", value}});
      }
      if (!result.details.contains("plots")) result.details["plots"] = nlohmann::json::array();
      result.details["plots"].push_back(plot);
    }
  }
  return result;
}

}  // namespace

MetricSpec table_utility_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "table_utility",
      .family = MetricFamily::kGeneral,
      .summary =
          "synthpop utility.tab statistics (VW, FT, G, JSD, SPECKS, pMSE, S_pMSE...) over "
          "every one-way and two-way table, plus VW over synthetic counts, KL and cumulative KS",
      .doc =
          "For each table (every column, every pair; every triple with max_way = 3) the "
          "confidential counts d and synthetic counts s per cell, numeric columns cut into "
          "`ngroups` type-7 quantile bins of the pooled confidential + synthetic values "
          "(left-closed, last closed, duplicate breaks dropped), declared missing codes and NA "
          "as levels of their own (synthpop utility.tab / group_num). Cells empty in both are "
          "dropped; c = Σs/N, N = Σs + Σd, diff = s − d·c/(1−c), expect = (s + d)c. "
          "VW_synthpop = Σ diff²/expect; FT = 4Σ(√s − √(d·c/(1−c)))²; G = 2Σ s·log((s/Σs)/(d/Σd)) "
          "over cells non-empty in both; JSD_log2 (synthpop) and JSD_ln (natural log) the "
          "Jensen–Shannon divergence of the cell shares; KL_ln = Σ p_d log(p_d/p_s) (+∞ when a "
          "cell has p_s = 0 < p_d, counted in KL_infinite_cells); VW_over_synthetic_counts = "
          "Σ(d − s)²/s (+∞ when a cell has s = 0 < d); table_KS_cumulative = max over "
          "cells in table order of |Σp_d − Σp_s|; SPECKS and U = KS distance and "
          "Mann–Whitney U between the cell propensities s/(s+d) of synthetic and confidential "
          "records; PO50 = % records whose dataset is predicted by p_s > p_d, minus 50; pMSE = "
          "VW_synthpop·c(1−c)²/N; MabsDD = Σ|diff|/Σs; WMabsDD = Σ|diff|/√expect/√(2/π); "
          "dBhatt = √(1 − Σ√(p_d p_s)). Standardised: S_VW = S_pMSE = VW/df, S_FT = FT/df, "
          "S_G = G/dfG, S_JSD = JSD_log2·2N/df/ln 2, S_WMabsDD = WMabsDD/df, df = cells − 1, "
          "dfG = cells non-empty in both − 1. S_ values near 1 are what chance gives; larger is "
          "worse. Also means over the one-way and two-way tables and the worst tables. max_way = 3 "
          "gives "
          "synthpop's utility.tables(tables = \"threeway\") statistics for every triple, "
          "variable_mean_S_pMSE per column over the tables of the highest order (synthpop's "
          "var.scores) and a heatmap of the pairs together with the worst column. synthpop "
          "switches a numeric column to equal-width groups when quantile groups give fewer than "
          "3 levels; here the quantile groups are kept. With weights: declared the cell counts "
          "are weighted counts rescaled to the dataset's row count (svytable(..., Ntotal = n)); "
          "the bins stay those of the unweighted values, and the S_ statistics' chance value of "
          "1 holds only for equal weights (unequal weights inflate it by the design effect)." +
          std::string(kWeightsDoc),
      .params = {{.name = "ngroups",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{5},
                  .doc = "quantile groups for numeric columns (synthpop ngroups)",
                  .min = 1,
                  .max = 1000},
                 {.name = "max_way",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{2},
                  .doc = "largest table order: 1, 2 (pairs) or 3 (triples)",
                  .min = 1,
                  .max = 3},
                 {.name = "columns",
                  .type = ParamType::kStringList,
                  .default_value = std::vector<std::string>{},
                  .doc = "columns to tabulate (default: all)",
                  .names_columns = true},
                 {.name = "worst",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{5},
                  .doc = "how many of the worst tables to list with their cells in details",
                  .min = 0,
                  .max = 100000},
                 {.name = "rank_by",
                  .type = ParamType::kString,
                  .default_value = std::string("S_pMSE"),
                  .doc = "statistic that ranks the worst tables (larger = worse)",
                  .choices = {"S_pMSE", "S_FT", "S_G", "S_JSD", "S_WMabsDD", "pMSE", "JSD_log2",
                              "dBhatt", "SPECKS", "MabsDD"}},
                 {.name = "max_cells",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{1000000},
                  .doc = "tables with more cells are skipped with a warning (synthpop max.table)",
                  .min = 1,
                  .max = 1e9},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines =
          {{.statistic = "mean_S_pMSE",
            .scope = "two-way",
            .ideal = Ideal::at(1.0, TargetScale::kRatio),
            .reading = "mean standardised pMSE over all two-way tables (about 1 = "
                       "indistinguishable from chance)",
            .baseline = Baseline::analytic(
                1.0, "",
                "the standardised pMSE is scaled so that data from the same distribution score 1"),
            .unit = Unit::kNumber}},
      .compute = compute_table_utility,
      .statistics =
          {{"VW_synthpop",
            "synthpop's VW: Σ diff²/expect over the cells of the table",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"VW_over_synthetic_counts",
            "Σ (d − s)²/s over the cells (+∞ when a cell has s = 0 < d)",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"FT",
            "Freeman–Tukey statistic 4Σ(√s − √(d·c/(1−c)))²",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"G",
            "likelihood-ratio statistic 2Σ s·log((s/Σs)/(d/Σd)) over the cells non-empty in both",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"JSD_log2",
            "Jensen–Shannon divergence of the cell shares, log base 2 (synthpop)",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"JSD_ln",
            "Jensen–Shannon divergence of the cell shares, natural log",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"KL_ln",
            "Kullback–Leibler divergence Σ p_d log(p_d/p_s), confidential ‖ synthetic (+∞ when a "
            "cell has p_s = 0 < p_d)",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"KL_infinite_cells",
            "cells with p_s = 0 < p_d, which make KL_ln infinite",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"table_KS_cumulative",
            "largest difference of the cumulative cell shares in table order",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"SPECKS",
            "Kolmogorov–Smirnov distance between the cell propensities s/(s+d) of synthetic and "
            "confidential records",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"U",
            "Mann–Whitney U of the synthetic records' cell propensities against the confidential "
            "records' (ties ½); its chance value depends on the two sizes",
            std::nullopt,
            {kColumn, kColumnPair, kColumnTriple}},
           {"PO50",
            "percentage of records whose dataset the cell propensity predicts, minus 50 (0 = "
            "chance)",
            Ideal::at(0.0),
            {kColumn, kColumnPair, kColumnTriple}},
           {"pMSE",
            "propensity mean squared error of the table: VW_synthpop·c(1−c)²/N",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"MabsDD",
            "Σ|diff|/Σs: mean absolute difference of the counts",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"WMabsDD",
            "Σ|diff|/√expect/√(2/π): absolute differences weighted by their expected spread",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"dBhatt",
            "Bhattacharyya distance √(1 − Σ√(p_d p_s)) of the cell shares",
            Ideal::lower(),
            {kColumn, kColumnPair, kColumnTriple}},
           {"{S_VW|S_pMSE|S_FT|S_G|S_JSD|S_WMabsDD}",
            "the statistic divided by its degrees of freedom (its expectation by chance): about 1 "
            "for a correct synthesis, far below 1 for a near-copy, above 1 for a poor fit",
            Ideal::at(1.0, TargetScale::kRatio),
            {kColumn, kColumnPair, kColumnTriple}},
           {"df",
            "degrees of freedom: non-empty cells − 1",
            std::nullopt,
            {kColumn, kColumnPair, kColumnTriple}},
           {"dfG",
            "degrees of freedom of G: cells non-empty in both − 1",
            std::nullopt,
            {kColumn, kColumnPair, kColumnTriple}},
           {"cells",
            "non-empty cells of the table",
            std::nullopt,
            {kColumn, kColumnPair, kColumnTriple}},
           {"mean_{S_pMSE|S_VW|S_FT|S_G|S_JSD|S_WMabsDD}",
            "mean of the standardised statistic over the tables of one order",
            Ideal::at(1.0, TargetScale::kRatio),
            {kTableOrder}},
           {"variable_mean_S_pMSE",
            "mean S_pMSE of the tables of the highest order that contain the column (synthpop "
            "var.scores)",
            Ideal::at(1.0, TargetScale::kRatio),
            {kColumn}},
           {"mean_{pMSE|JSD_log2|dBhatt|SPECKS}",
            "mean of the statistic over the tables of one order",
            Ideal::lower(),
            {kTableOrder}}},
      .references =
          {cite(raab_nowok_dibben_2021(),
                "utility.tab: VW, FT, G, JSD, SPECKS, PO50, pMSE, MabsDD, WMabsDD, dBhatt and "
                "their standardised forms"),
           cite(synthpop_software(),
                "utility.tab reproduced on SD2011 (28 tables × 19 statistics); "
                "utility.tables(tables = \"threeway\") from its definitions (35 triples)"),
           cite(snoke_2018(), "pMSE and its standardisation S_pMSE"),
           cite(voas_williamson_2001(), "goodness-of-fit statistics for synthetic tables"),
           cite(kulik_lecture_notes(),
                "VW over synthetic counts, JSD in natural log, KL and the cumulative table KS"),
           cite(lumley_2004(), "weighted cell counts with survey weights (svytable)")},
  };
}

}  // namespace synthaudit
