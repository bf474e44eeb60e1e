// Column summaries: moments, percentiles and level shares, confidential vs synthetic.
#include <array>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "metrics/design_weights.hpp"
#include "metrics/general/marginal_plots.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/level_counts.hpp"
#include "stats/quantile.hpp"
#include "stats/summary.hpp"
#include "stats/survey.hpp"

namespace synthaudit {

namespace {

constexpr std::array<int, 9> kPercentiles = {1, 5, 10, 25, 50, 75, 90, 95, 99};

struct NumericSummary {
  stats::Moments m;
  std::array<double, kPercentiles.size()> percentile{};
  std::size_t rows = 0;
};

NumericSummary summarise(const Column& column, const std::vector<double>& sorted) {
  NumericSummary s;
  s.m = stats::moments(column.numeric);
  s.rows = column.numeric.size();
  for (std::size_t k = 0; k < kPercentiles.size(); ++k)
    s.percentile[k] =
        stats::quantile_type7(sorted, kPercentiles[k] / 100.0, stats::QuantileArithmetic::kNumpy);
  return s;
}

// With survey weights: mean, sd, skewness and kurtosis from the weighted moments (svymean,
// svyvar; g1 and g2 from the weighted central moments Σw(x − x̄)^k/Σw), the percentiles by
// svyquantile(qrule = "hf7"). Counts (n, missing, zeros), min and max stay those of the rows.
NumericSummary summarise_weighted(const Column& column, const std::vector<double>& sorted,
                                  const std::vector<double>& weights) {
  NumericSummary s = summarise(column, sorted);
  const auto m = stats::survey_moments(column.numeric, weights);
  s.m.mean = m.mean_x;
  s.m.variance = m.variance_x;
  s.m.sd = std::sqrt(m.variance_x);
  const bool spread = m.central2 > 0;
  s.m.skewness_g1 = spread ? m.central3 / std::pow(m.central2, 1.5) : std::nan("");
  s.m.excess_kurtosis_g2 = spread ? m.central4 / (m.central2 * m.central2) - 3.0 : std::nan("");
  for (std::size_t k = 0; k < kPercentiles.size(); ++k)
    s.percentile[k] =
        stats::weighted_quantile_hf7(column.numeric, weights, kPercentiles[k] / 100.0);
  return s;
}

// Weighted shares of missing values among all rows and of zeros among the present values.
struct WeightedShares {
  double missing, zeros;
};
WeightedShares weighted_shares(const Column& column, const std::vector<double>& weights) {
  double total = 0, missing = 0, present = 0, zeros = 0;
  for (std::size_t r = 0; r < column.numeric.size(); ++r) {
    total += weights[r];
    if (std::isnan(column.numeric[r])) {
      missing += weights[r];
    } else {
      present += weights[r];
      if (column.numeric[r] == 0) zeros += weights[r];
    }
  }
  return {total > 0 ? missing / total : std::nan(""), present > 0 ? zeros / present : std::nan("")};
}

// Weight (or row count, unweighted) of every level of a categorical column, missing last.
std::vector<double> level_totals(const Column& column, const std::vector<double>& weights) {
  if (weights.empty()) {
    const auto counts = stats::level_counts(column);
    return {counts.begin(), counts.end()};
  }
  std::vector<double> totals(column.cardinality() + 1, 0.0);
  for (std::size_t r = 0; r < column.codes.size(); ++r)
    totals[column.missing(r) ? column.cardinality() : column.codes[r]] += weights[r];
  return totals;
}

std::string percentile_name(int p) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "p%02d", p);
  return buffer;
}

double share(std::size_t count, std::size_t total) {
  return total == 0 ? std::nan("") : static_cast<double>(count) / static_cast<double>(total);
}

// Standardised mean difference (Austin 2009): (x̄_s − x̄_c) / sqrt((s_c² + s_s²)/2); for a share,
// (p_s − p_c) / sqrt((p_c(1 − p_c) + p_s(1 − p_s))/2). NaN when the denominator is 0.
double smd(double diff, double var_c, double var_s) {
  const double pooled = std::sqrt((var_c + var_s) / 2.0);
  return pooled > 0 ? diff / pooled : std::nan("");
}

MetricResult compute_column_summaries(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const bool with_plots = params.get_bool("plots");
  const DesignWeights weights = design_weights(in, syn, params, result.warnings);
  const auto rule = params.get_string("bandwidth") == "silverman" ? stats::BandwidthRule::kSilverman
                                                                  : stats::BandwidthRule::kScott;
  auto plots = nlohmann::json::array();
  double smd_sum = 0;
  std::size_t smd_count = 0;
  double level_sum = 0;
  std::size_t level_columns = 0;
  // Sort every numeric column of both tables up front, in parallel over columns.
  std::vector<std::span<const double>> to_sort;
  std::vector<std::size_t> slot(conf.column_count(), 0);
  for (std::size_t c = 0; c < conf.column_count(); ++c)
    if (conf.column(c).is_numeric() && !is_design_column(in, c)) {
      slot[c] = to_sort.size();
      to_sort.emplace_back(conf.column(c).numeric);
      to_sort.emplace_back(syn.column(c).numeric);
    }
  const auto sorted = stats::sorted_columns(to_sort);
  auto summary_of = [](const Column& column, const std::vector<double>& sorted_column,
                       const std::vector<double>& row_weights) {
    return row_weights.empty() ? summarise(column, sorted_column)
                               : summarise_weighted(column, sorted_column, row_weights);
  };
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    if (is_design_column(in, c)) continue;
    const Column& cc = conf.column(c);
    const Column& sc = syn.column(c);
    const std::string& name = cc.name;
    if (cc.is_numeric()) {
      const std::vector<double>& a = sorted[slot[c]];
      const std::vector<double>& b = sorted[slot[c] + 1];
      const NumericSummary x = summary_of(cc, a, weights.confidential);
      const NumericSummary y = summary_of(sc, b, weights.synthetic);
      const double sd_c = x.m.sd;
      // (statistic, confidential, synthetic, standardised difference or NaN)
      std::vector<std::tuple<std::string, double, double, double>> stats_rows;
      const double mean_diff = y.m.mean - x.m.mean;
      auto scaled = [&](double diff) { return sd_c > 0 ? diff / sd_c : std::nan(""); };
      stats_rows.emplace_back("n", double(x.m.n), double(y.m.n), std::nan(""));
      stats_rows.emplace_back("missing", double(x.m.missing), double(y.m.missing), std::nan(""));
      double mc = share(x.m.missing, x.rows), ms = share(y.m.missing, y.rows);
      double zc = share(x.m.zeros, x.m.n), zs = share(y.m.zeros, y.m.n);
      if (!weights.confidential.empty()) {
        const auto w = weighted_shares(cc, weights.confidential);
        mc = w.missing;
        zc = w.zeros;
      }
      if (!weights.synthetic.empty()) {
        const auto w = weighted_shares(sc, weights.synthetic);
        ms = w.missing;
        zs = w.zeros;
      }
      stats_rows.emplace_back("missing_share", mc, ms, smd(ms - mc, mc * (1 - mc), ms * (1 - ms)));
      stats_rows.emplace_back("mean", x.m.mean, y.m.mean,
                              smd(mean_diff, x.m.variance, y.m.variance));
      stats_rows.emplace_back("sd", x.m.sd, y.m.sd, scaled(y.m.sd - x.m.sd));
      stats_rows.emplace_back("skewness_g1", x.m.skewness_g1, y.m.skewness_g1, std::nan(""));
      stats_rows.emplace_back("excess_kurtosis_g2", x.m.excess_kurtosis_g2, y.m.excess_kurtosis_g2,
                              std::nan(""));
      stats_rows.emplace_back("min", x.m.min, y.m.min, scaled(y.m.min - x.m.min));
      for (std::size_t k = 0; k < kPercentiles.size(); ++k)
        stats_rows.emplace_back(percentile_name(kPercentiles[k]), x.percentile[k], y.percentile[k],
                                scaled(y.percentile[k] - x.percentile[k]));
      stats_rows.emplace_back("max", x.m.max, y.m.max, scaled(y.m.max - x.m.max));
      stats_rows.emplace_back("zeros", double(x.m.zeros), double(y.m.zeros), std::nan(""));
      stats_rows.emplace_back("zero_share", zc, zs, smd(zs - zc, zc * (1 - zc), zs * (1 - zs)));
      for (const auto& [stat, vc, vs, std_diff] : stats_rows) {
        result.add("conf_" + stat, name, vc);
        result.add("syn_" + stat, name, vs);
        result.add("diff_" + stat, name, vs - vc);
        if (stat != "n" && stat != "missing" && stat != "zeros" && stat != "skewness_g1" &&
            stat != "excess_kurtosis_g2")
          result.add("std_diff_" + stat, name, std_diff);
      }
      const double d = smd(mean_diff, x.m.variance, y.m.variance);
      if (std::isfinite(d)) {
        smd_sum += std::abs(d);
        ++smd_count;
      } else {
        result.warnings.push_back("column '" + name +
                                  "': standardised mean difference undefined (no values or no "
                                  "variation in either dataset)");
      }
      if (with_plots) {
        plots.push_back(plots::histogram_overlay(name, a, b, 30));
        plots.push_back(plots::density_overlay(name, a, b, rule, 128));
      }
    } else {
      const std::size_t k = cc.cardinality();
      const auto nc = stats::level_counts(cc), ns = stats::level_counts(sc);
      const auto tc = level_totals(cc, weights.confidential);
      const auto ts = level_totals(sc, weights.synthetic);
      double total_c = 0, total_s = 0;
      for (double t : tc) total_c += t;
      for (double t : ts) total_s += t;
      double max_abs_smd = 0;
      bool any = false;
      for (std::size_t l = 0; l <= k; ++l) {
        if (nc[l] == 0 && ns[l] == 0) continue;
        const std::string level =
            l == k ? "NA" : cc.dictionary->level(static_cast<std::uint32_t>(l));
        const std::string scope = name + "=" + level;
        const double pc = total_c > 0 ? tc[l] / total_c : std::nan("");
        const double ps = total_s > 0 ? ts[l] / total_s : std::nan("");
        const double d = smd(ps - pc, pc * (1 - pc), ps * (1 - ps));
        result.add("conf_count", scope, double(nc[l]));
        result.add("syn_count", scope, double(ns[l]));
        result.add("conf_share", scope, pc);
        result.add("syn_share", scope, ps);
        result.add("diff_share", scope, ps - pc);
        result.add("std_diff_share", scope, d);
        if (std::isfinite(d)) {
          max_abs_smd = std::max(max_abs_smd, std::abs(d));
          any = true;
        }
      }
      if (any) {
        result.add("max_abs_std_diff_share", name, max_abs_smd);
        level_sum += max_abs_smd;
        ++level_columns;
      }
    }
  }
  if (smd_count > 0)
    result.add("mean_abs_std_mean_difference", "all", smd_sum / static_cast<double>(smd_count));
  if (level_columns > 0)
    result.add("mean_max_abs_std_share_difference", "all",
               level_sum / static_cast<double>(level_columns));
  if (with_plots) result.details["plots"] = std::move(plots);
  return result;
}

}  // namespace

MetricSpec column_summaries_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "column_summaries",
      .family = MetricFamily::kGeneral,
      .summary =
          "Side-by-side univariate summaries of every column (moments, percentiles, zeros, "
          "level counts and shares) with differences and standardised differences",
      .doc =
          "Numeric columns, over the non-missing values: n, missing, missing_share, mean, sd "
          "(divisor n − 1), skewness_g1 = m3/m2^{3/2} and excess_kurtosis_g2 = m4/m2² − 3 with "
          "biased central moments m_k = Σ(x − x̄)^k/n (scipy.stats.skew / kurtosis, bias=True), "
          "min, percentiles p01 p05 p10 p25 p50 p75 p90 p95 p99 (Hyndman–Fan type 7 = R "
          "quantile() default = numpy 'linear'), max, zeros and zero_share (among non-missing). "
          "Statistics come as conf_S, syn_S and diff_S = syn − conf, scope = column. std_diff_mean "
          "is the standardised mean difference (x̄_s − x̄_c)/√((s_c² + s_s²)/2) (Austin 2009); "
          "std_diff of sd, min, max and percentiles is the difference divided by the confidential "
          "sd; std_diff of a share is (p_s − p_c)/√((p_c(1−p_c) + p_s(1−p_s))/2). Categorical "
          "columns: count and share of every level present in either dataset, missing as level "
          "NA (scope column=level), with the same share differences, and max_abs_std_diff_share "
          "per column. Summary: mean_abs_std_mean_difference over numeric columns (|SMD| < 0.1 is "
          "the usual 'negligible' reading) and mean_max_abs_std_share_difference over "
          "categorical columns. Plots: histogram (30 bins) and Gaussian KDE (128 points) overlays "
          "per numeric column (category bars are in total_variation). With weights: declared the "
          "means, sds, skewness and kurtosis are weighted (svymean; svyvar over the present "
          "values; g1 and g2 from the weighted central moments Σw(x − x̄)^k/Σw), the percentiles "
          "are svyquantile(qrule = \"hf7\") (type 7 when the weights are equal), and the "
          "missing, zero and level shares are shares of the total weight; n, missing, zeros, "
          "counts, min and max stay numbers of rows and row values, and the plots are "
          "unweighted." +
          std::string(kWeightsDoc),
      .params = {{.name = "plots",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "emit histogram and density plot data"},
                 {.name = "bandwidth",
                  .type = ParamType::kString,
                  .default_value = std::string("scott"),
                  .doc = "KDE bandwidth rule for the density plots: scott (n^{-1/5}·sd) or "
                         "silverman ((3n/4)^{-1/5}·sd), as scipy.stats.gaussian_kde",
                  .choices = {"scott", "silverman"}},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "mean_abs_std_mean_difference",
                     .ideal = Ideal::lower(),
                     .reading = "mean absolute standardised difference between real and "
                                "synthetic column means (below 0.1 is negligible)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute_column_summaries,
      .statistics =
          {{"{conf|syn}_{missing_share|mean|sd|skewness_g1|excess_kurtosis_g2|zero_share}",
            "the summary of a numeric column in the confidential (conf_) or synthetic (syn_) data",
            std::nullopt,
            {kColumn}},
           {"{conf|syn}_{n|missing|zeros}",
            "the number of values, missing values and zeros of a numeric column in one dataset",
            std::nullopt,
            {kColumn},
            OutputClass::kCount},
           {"{conf|syn}_{p01|p05|p10|p25|p50|p75|p90|p95|p99}",
            "a percentile of a numeric column in one dataset",
            std::nullopt,
            {kColumn},
            OutputClass::kQuantile},
           {"{conf|syn}_{min|max}",
            "the smallest and largest value of a numeric column in one dataset",
            std::nullopt,
            {kColumn},
            OutputClass::kExtreme},
           {"diff_{missing_share|mean|sd|skewness_g1|excess_kurtosis_g2|zero_share}",
            "synthetic − confidential value of the summary",
            Ideal::at(0.0),
            {kColumn}},
           {"diff_{n|missing|zeros}",
            "synthetic − confidential number of values, missing values or zeros",
            Ideal::at(0.0),
            {kColumn},
            OutputClass::kCount},
           {"diff_{p01|p05|p10|p25|p50|p75|p90|p95|p99}",
            "synthetic − confidential percentile",
            Ideal::at(0.0),
            {kColumn},
            OutputClass::kQuantile},
           {"diff_{min|max}",
            "synthetic − confidential smallest or largest value",
            Ideal::at(0.0),
            {kColumn},
            OutputClass::kExtreme},
           {"std_diff_{missing_share|mean|sd|zero_share}",
            "standardised difference: the standardised mean difference for the mean, the "
            "difference in confidential standard deviations for sd, the pooled-binomial form for a "
            "share",
            Ideal::at(0.0),
            {kColumn}},
           {"std_diff_{p01|p05|p10|p25|p50|p75|p90|p95|p99}",
            "difference of the percentiles in confidential standard deviations",
            Ideal::at(0.0),
            {kColumn},
            OutputClass::kQuantile},
           {"std_diff_{min|max}",
            "difference of the smallest or largest values in confidential standard deviations",
            Ideal::at(0.0),
            {kColumn},
            OutputClass::kExtreme},
           {"{conf|syn}_count",
            "count of a level of a categorical column in one dataset",
            std::nullopt,
            {kColumnLevel},
            OutputClass::kCount},
           {"{conf|syn}_share",
            "share of a level of a categorical column in one dataset",
            std::nullopt,
            {kColumnLevel}},
           {"diff_share",
            "synthetic − confidential share of the level",
            Ideal::at(0.0),
            {kColumnLevel}},
           {"std_diff_share",
            "standardised difference of the level's share",
            Ideal::at(0.0),
            {kColumnLevel}},
           {"max_abs_std_diff_share",
            "largest absolute standardised share difference over the column's levels",
            Ideal::lower(),
            {kColumn}},
           {"mean_abs_std_mean_difference",
            "mean absolute standardised mean difference over the numeric columns (below 0.1 is "
            "usually read as negligible)",
            Ideal::lower(),
            {kAll}},
           {"mean_max_abs_std_share_difference",
            "mean of max_abs_std_diff_share over the categorical columns",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(urban_institute_2023(),
                          "univariate comparisons: moments, percentiles, zeros, level shares"),
                     cite(austin_2009(), "standardised mean difference and its 0.1 reading"),
                     cite(hyndman_fan_1996(), "type-7 percentiles"),
                     cite(scipy_2020(), "skew, kurtosis and gaussian_kde, reproduced"),
                     cite(lumley_2004(), "svymean, svyvar and svyquantile with survey weights")},
  };
}

}  // namespace synthaudit
