// Wasserstein-1 distance per numeric column, raw and scaled.
#include <cmath>

#include "metrics/design_weights.hpp"
#include "metrics/general/level_tally.hpp"
#include "metrics/general/marginal_plots.hpp"
#include "metrics/general/sorted_runs.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/distribution.hpp"
#include "stats/quantile.hpp"
#include "stats/summary.hpp"
#include "stats/survey.hpp"
#include "stats/weighted_ecdf.hpp"

namespace synthaudit {

namespace {

// What the report needs of one column: W1, the confidential IQR and range, and the QQ plot
// (when asked for; read only when W1 is a number).
struct WassersteinColumn {
  std::string name;
  double w, iqr, range;
  nlohmann::json plot;
};

// One report for every path: the whole columns' sorted runs (compute), the runs merged from the
// partitions' states (finalize), or the columns sorted over the ranks together (collective).
MetricResult report_wasserstein(const std::vector<WassersteinColumn>& columns,
                                std::vector<std::string> warnings, const Params& params) {
  MetricResult result;
  result.warnings = std::move(warnings);
  const bool with_plots = params.get_bool("plots");
  auto plots = nlohmann::json::array();
  double sum_iqr = 0, sum_range = 0;
  std::size_t n_iqr = 0, n_range = 0;
  for (const auto& column : columns) {
    const std::string& name = column.name;
    const double w = column.w;
    result.add("wasserstein", name, w);
    if (std::isnan(w)) {
      result.warnings.push_back("column '" + name + "' has no non-missing values in one dataset");
      continue;
    }
    const double iqr = column.iqr;
    const double range = column.range;
    result.add("wasserstein_iqr_scaled", name, iqr > 0 ? w / iqr : std::nan(""));
    result.add("wasserstein_range_scaled", name, range > 0 ? w / range : std::nan(""));
    if (iqr > 0) {
      sum_iqr += w / iqr;
      ++n_iqr;
    } else {
      result.warnings.push_back("column '" + name +
                                "': confidential interquartile range is 0, no IQR-scaled value");
    }
    if (range > 0) {
      sum_range += w / range;
      ++n_range;
    }
    if (with_plots) plots.push_back(column.plot);
  }
  if (n_iqr > 0) result.add("mean_wasserstein_iqr_scaled", "all", sum_iqr / double(n_iqr));
  if (n_range > 0) result.add("mean_wasserstein_range_scaled", "all", sum_range / double(n_range));
  if (n_iqr == 0 && n_range == 0)
    result.warnings.push_back("no numeric column with spread to compare");
  if (with_plots) result.details["plots"] = std::move(plots);
  return result;
}

MetricResult report_wasserstein(MergedNumericRuns merged, const MetricInput& schema,
                                const Params& params) {
  std::vector<std::string> warnings;
  const bool declared = settle_weights(merged, schema, params, warnings);
  const bool with_plots = params.get_bool("plots");
  std::vector<WassersteinColumn> columns;
  for (std::size_t i = 0; i < merged.columns.size(); ++i) {
    const auto& conf = merged.confidential[i];
    const auto& syn = merged.synthetic[i];
    const auto& a = conf.values;
    const auto& b = syn.values;
    WassersteinColumn column{
        schema.confidential.column(merged.columns[i]).name,
        declared ? stats::weighted_wasserstein1(conf, syn) : stats::wasserstein1_sorted(a, b),
        std::nan(""), std::nan(""), nlohmann::json()};
    if (!std::isnan(column.w)) {
      column.iqr = declared ? stats::weighted_quantile_hf7(a, conf.weights, 0.75) -
                                  stats::weighted_quantile_hf7(a, conf.weights, 0.25)
                            : stats::quantile_type7(a, 0.75, stats::QuantileArithmetic::kNumpy) -
                                  stats::quantile_type7(a, 0.25, stats::QuantileArithmetic::kNumpy);
      column.range = a.back() - a.front();
      if (with_plots) column.plot = plots::qq_pairs(column.name, a, b);
    }
    columns.push_back(std::move(column));
  }
  return report_wasserstein(columns, std::move(warnings), params);
}

MetricResult finalize_wasserstein(const std::vector<std::string>& states, const MetricInput& schema,
                                  const Params& params) {
  return report_wasserstein(merge_numeric_runs(states, schema), schema, params);
}

MetricResult compute_wasserstein(const MetricInput& in, const Params& params) {
  return report_wasserstein(numeric_runs(in, params), in, params);
}

MetricResult collective_wasserstein(const MetricInput& partition, const Params& params,
                                    Communicator& communicator) {
  using Sample = stats::CoSortedSamples::Sample;
  constexpr auto kNumpy = stats::QuantileArithmetic::kNumpy;
  const bool with_plots = params.get_bool("plots");
  const auto compared = compared_numeric_columns(partition);
  std::vector<WassersteinColumn> columns;
  for_each_co_sorted_column(
      partition, communicator, [&](std::size_t i, stats::CoSortedSamples& samples) {
        WassersteinColumn column{partition.confidential.column(compared[i]).name,
                                 samples.wasserstein1(), std::nan(""), std::nan(""),
                                 nlohmann::json()};
        if (!std::isnan(column.w)) {
          const auto quartiles = samples.quantiles_type7(Sample::kFirst, {0.25, 0.75}, kNumpy);
          column.iqr = quartiles[1] - quartiles[0];
          const auto ends = samples.at(Sample::kFirst, {0, samples.size(Sample::kFirst) - 1});
          column.range = ends[1] - ends[0];
          if (with_plots) {
            const auto probabilities = plots::qq_probabilities();
            column.plot =
                plots::qq_pairs_at(column.name, probabilities,
                                   samples.quantiles_type7(Sample::kFirst, probabilities, kNumpy),
                                   samples.quantiles_type7(Sample::kSecond, probabilities, kNumpy));
          }
        }
        columns.push_back(std::move(column));
      });
  return report_wasserstein(columns, {}, params);
}

}  // namespace

MetricSpec wasserstein_distance_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "wasserstein_distance",
      .family = MetricFamily::kGeneral,
      .summary =
          "Wasserstein-1 (earth mover's) distance between confidential and synthetic "
          "marginals of each numeric column, raw and scaled",
      .doc =
          "W1 = ∫ |F_conf(t) − F_syn(t)| dt = ∫_0^1 |Q_conf(u) − Q_syn(u)| du over the "
          "empirical distributions of the non-missing values, in the column's units "
          "(scipy.stats.wasserstein_distance). Also wasserstein_iqr_scaled = W1 / IQR_conf "
          "(type-7 quartiles of the confidential values) and wasserstein_range_scaled = W1 / "
          "(max − min)_conf, so columns on different scales can be averaged "
          "(mean_wasserstein_iqr_scaled, mean_wasserstein_range_scaled); a scaled value is "
          "NaN when the confidential IQR or range is 0. 0 = identical marginals. Plot: QQ "
          "pairs (100 type-7 quantiles per column, unweighted). Survey weights: with weights: "
          "declared, F_conf and F_syn are the design-weighted distribution functions "
          "(scipy.stats.wasserstein_distance with u_weights and v_weights), the IQR is from "
          "svyquantile (qrule hf7) quartiles (Lumley 2004); synthetic_weights says whether the "
          "synthetic data carry their own weight column (auto: when usable; own; none), and the "
          "weight and household columns are not compared."
          " A partitioned run without survey weights sorts each column over the ranks together "
          "(a sample sort), so that each rank holds about its share of one column's values; "
          "with weights it merges each partition's sorted values, and the merging process holds "
          "every non-missing numeric value of both datasets.",
      .params = {{.name = "plots",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "emit QQ plot data"},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "mean_wasserstein_iqr_scaled",
                     .ideal = Ideal::lower(),
                     .reading = "mean Wasserstein-1 distance between real and synthetic numeric "
                                "marginals, in units of the real interquartile range",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute_wasserstein,
      .mergeable =
          MergeableForm{.partial_state = numeric_runs_state, .finalize = finalize_wasserstein},
      .collective =
          CollectiveForm{.applies = co_sorted_columns_apply, .run = collective_wasserstein},
      .statistics = {{"wasserstein",
                      "Wasserstein-1 distance between the marginals, in the column's units",
                      Ideal::lower(),
                      {kColumn}},
                     {"wasserstein_iqr_scaled",
                      "Wasserstein-1 distance divided by the confidential interquartile range",
                      Ideal::lower(),
                      {kColumn}},
                     {"wasserstein_range_scaled",
                      "Wasserstein-1 distance divided by the confidential range",
                      Ideal::lower(),
                      {kColumn}},
                     {"mean_wasserstein_iqr_scaled",
                      "mean IQR-scaled distance over the numeric columns",
                      Ideal::lower(),
                      {kAll}},
                     {"mean_wasserstein_range_scaled",
                      "mean range-scaled distance over the numeric columns",
                      Ideal::lower(),
                      {kAll}}},
      .references = {cite(vallender_1974(),
                          "W1 as the area between the two distribution functions"),
                     cite(scipy_2020(), "scipy.stats.wasserstein_distance, reproduced"),
                     cite(lumley_2004(), "svyquantile quartiles with survey weights")},
  };
}

}  // namespace synthaudit
