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

// One path for one process and for a partitioned run: the whole columns' sorted runs, taken
// from the tables (compute) or merged exactly from the partitions' runs (finalize), give the same
// numbers; the merging process holds every non-missing numeric value.
MetricResult report_wasserstein(MergedNumericRuns merged, const MetricInput& schema,
                                const Params& params) {
  MetricResult result;
  const bool declared = settle_weights(merged, schema, params, result.warnings);
  const auto& columns = merged.columns;
  const auto& conf = merged.confidential;
  const auto& syn = merged.synthetic;
  const bool with_plots = params.get_bool("plots");
  auto plots = nlohmann::json::array();
  double sum_iqr = 0, sum_range = 0;
  std::size_t n_iqr = 0, n_range = 0;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::string& name = schema.confidential.column(columns[i]).name;
    const auto& a = conf[i].values;
    const auto& b = syn[i].values;
    const double w =
        declared ? stats::weighted_wasserstein1(conf[i], syn[i]) : stats::wasserstein1_sorted(a, b);
    result.add("wasserstein", name, w);
    if (std::isnan(w)) {
      result.warnings.push_back("column '" + name + "' has no non-missing values in one dataset");
      continue;
    }
    const double iqr = declared
                           ? stats::weighted_quantile_hf7(a, conf[i].weights, 0.75) -
                                 stats::weighted_quantile_hf7(a, conf[i].weights, 0.25)
                           : stats::quantile_type7(a, 0.75, stats::QuantileArithmetic::kNumpy) -
                                 stats::quantile_type7(a, 0.25, stats::QuantileArithmetic::kNumpy);
    const double range = a.back() - a.front();
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
    if (with_plots) plots.push_back(plots::qq_pairs(name, a, b));
  }
  if (n_iqr > 0) result.add("mean_wasserstein_iqr_scaled", "all", sum_iqr / double(n_iqr));
  if (n_range > 0) result.add("mean_wasserstein_range_scaled", "all", sum_range / double(n_range));
  if (n_iqr == 0 && n_range == 0)
    result.warnings.push_back("no numeric column with spread to compare");
  if (with_plots) result.details["plots"] = std::move(plots);
  return result;
}

MetricResult finalize_wasserstein(const std::vector<std::string>& states, const MetricInput& schema,
                                  const Params& params) {
  return report_wasserstein(merge_numeric_runs(states, schema), schema, params);
}

MetricResult compute_wasserstein(const MetricInput& in, const Params& params) {
  return report_wasserstein(numeric_runs(in, params), in, params);
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
          " A partitioned run merges each partition's sorted values: the merging process "
          "holds every non-missing numeric value of both datasets.",
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
