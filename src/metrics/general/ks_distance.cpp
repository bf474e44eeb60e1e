// Kolmogorov–Smirnov distance per numeric column.
#include <cmath>

#include "metrics/design_weights.hpp"
#include "metrics/general/level_tally.hpp"
#include "metrics/general/marginal_plots.hpp"
#include "metrics/general/sorted_runs.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/ecdf.hpp"
#include "stats/summary.hpp"
#include "stats/weighted_ecdf.hpp"

namespace synthaudit {

namespace {

// One path for one process and for a partitioned run: the whole columns' sorted runs, taken
// from the tables (compute) or merged exactly from the partitions' runs (finalize), give the same
// numbers; the merging process holds every non-missing numeric value.
MetricResult report_ks_distance(MergedNumericRuns merged, const MetricInput& schema,
                                const Params& params) {
  MetricResult result;
  const bool declared = settle_weights(merged, schema, params, result.warnings);
  const auto& columns = merged.columns;
  const auto& conf = merged.confidential;
  const auto& syn = merged.synthetic;
  const bool with_pvalue = params.get_bool("pvalue");
  const bool with_plots = params.get_bool("plots");
  auto plots = nlohmann::json::array();
  double sum = 0.0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const auto& a = conf[i].values;
    const auto& b = syn[i].values;
    const double d =
        declared ? stats::weighted_ks_distance(conf[i], syn[i]) : stats::ks_distance_sorted(a, b);
    const std::string& name = schema.confidential.column(columns[i]).name;
    result.add("ks_distance", name, d);
    result.add("ks_complement", name, 1.0 - d);
    if (with_pvalue)
      result.add("ks_pvalue_independent", name,
                 declared ? std::nan("") : stats::ks_pvalue_asymptotic(d, a.size(), b.size()));
    if (with_plots) plots.push_back(plots::ecdf_overlay(name, a, b));
    if (std::isnan(d)) {
      result.warnings.push_back("column '" + name + "' has no non-missing values in one dataset");
    } else {
      sum += d;
      ++counted;
    }
  }
  if (counted == 0) {
    result.warnings.push_back("no numeric column with values in both datasets");
  } else {
    result.add("mean_ks_distance", "all", sum / static_cast<double>(counted));
    result.add("mean_ks_complement", "all", 1.0 - sum / static_cast<double>(counted));
  }
  if (with_plots) result.details["plots"] = std::move(plots);
  if (with_pvalue && declared)
    result.warnings.push_back(
        "ks_pvalue_independent is NaN with survey weights: the two-sample KS distribution has no "
        "form for weighted samples");
  if (with_pvalue)
    result.warnings.push_back(
        "ks_pvalue_independent assumes independent samples; synthetic data are generated from "
        "the confidential data, so the p-value is not valid as a test");
  return result;
}

MetricResult finalize_ks_distance(const std::vector<std::string>& states, const MetricInput& schema,
                                  const Params& params) {
  return report_ks_distance(merge_numeric_runs(states, schema), schema, params);
}

MetricResult compute_ks_distance(const MetricInput& in, const Params& params) {
  return report_ks_distance(numeric_runs(in, params), in, params);
}

}  // namespace

MetricSpec ks_distance_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "ks_distance",
      .family = MetricFamily::kGeneral,
      .summary =
          "Kolmogorov–Smirnov distance between confidential and synthetic marginals of "
          "each numeric column",
      .doc =
          "D = sup_t |F_conf(t) − F_syn(t)| over the empirical CDFs of the non-missing values "
          "(0 = identical, 1 = disjoint). Also 1 − D, SDMetrics' KSComplement, and the mean "
          "over numeric columns. The optional asymptotic p-value assumes independent samples, "
          "which synthetic and confidential data are not: report D, not the p-value. Plot: "
          "ECDF overlay per column (unweighted). Survey weights: with weights: declared, D is "
          "between the design-weighted ECDFs F_w(t) = Σ_{x_i ≤ t} w_i / Σ w_i (Lumley 2004) and "
          "the p-value is NaN (the asymptotic distribution assumes unweighted independent "
          "samples); synthetic_weights says whether the synthetic data carry their own weight "
          "column (auto: when usable; own; none), and the weight and household columns are not "
          "compared."
          " A partitioned run merges each partition's sorted values: the merging process "
          "holds every non-missing numeric value of both datasets.",
      .params = {{.name = "pvalue",
                  .type = ParamType::kBool,
                  .default_value = false,
                  .doc = "also report the asymptotic two-sample p-value (with the dependence "
                         "caveat)"},
                 {.name = "plots",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "emit ECDF overlay plot data (both ECDFs at up to 200 pooled quantiles)"},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "mean_ks_distance",
                     .ideal = Ideal::lower(),
                     .reading = "mean Kolmogorov–Smirnov distance between real and synthetic "
                                "numeric marginals (0 = identical)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute_ks_distance,
      .mergeable =
          MergeableForm{.partial_state = numeric_runs_state, .finalize = finalize_ks_distance},
      .statistics =
          {{"ks_distance",
            "Kolmogorov–Smirnov distance D between the two marginals (0 = identical, 1 = disjoint)",
            Ideal::lower(),
            {kColumn}},
           {"ks_complement",
            "1 − D, SDMetrics' KSComplement (1 = identical)",
            Ideal::higher(),
            {kColumn}},
           {"ks_pvalue_independent",
            "asymptotic two-sample p-value, valid only for independent samples, which synthetic "
            "and confidential data are not (parameter pvalue); NaN with survey weights",
            std::nullopt,
            {kColumn}},
           {"mean_ks_distance", "mean of D over the numeric columns", Ideal::lower(), {kAll}},
           {"mean_ks_complement", "1 − mean_ks_distance", Ideal::higher(), {kAll}}},
      .references = {cite(sdmetrics_software(), "KSComplement, reproduced on SD2011"),
                     cite(scipy_2020(), "scipy.stats.ks_2samp: D and the asymptotic p-value"),
                     cite(lumley_2004(), "design-weighted ECDFs with survey weights")},
  };
}

}  // namespace synthaudit
