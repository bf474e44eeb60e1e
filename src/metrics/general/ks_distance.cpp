// Kolmogorov–Smirnov distance per numeric column.
#include <cmath>
#include <optional>
#include <utility>

#include "core/threads.hpp"
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

// What the report needs of one column: D, both sample sizes and the ECDF plot (when asked for).
struct KsColumn {
  std::string name;
  double d;
  std::size_t conf_size, syn_size;
  nlohmann::json plot;
};

// One report for every path: the whole columns' sorted runs (compute), the runs merged from the
// partitions' states (finalize), or the columns sorted over the ranks together (collective).
MetricResult report_ks_distance(const std::vector<KsColumn>& columns, bool declared,
                                std::vector<std::string> warnings, const Params& params) {
  MetricResult result;
  result.warnings = std::move(warnings);
  const bool with_pvalue = params.get_bool("pvalue");
  const bool with_plots = params.get_bool("plots");
  auto plots = nlohmann::json::array();
  double sum = 0.0;
  std::size_t counted = 0;
  for (const auto& column : columns) {
    const double d = column.d;
    const std::string& name = column.name;
    result.add("ks_distance", name, d);
    result.add("ks_complement", name, 1.0 - d);
    if (with_pvalue)
      result.add("ks_pvalue_independent", name,
                 declared ? std::nan("")
                          : stats::ks_pvalue_asymptotic(d, column.conf_size, column.syn_size));
    if (with_plots && !column.plot.is_null()) plots.push_back(column.plot);
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

MetricResult report_ks_distance(MergedNumericRuns merged, const MetricInput& schema,
                                const Params& params) {
  std::vector<std::string> warnings;
  const bool declared = settle_weights(merged, schema, params, warnings);
  // Plot data the engine drops (schema.plots false) is not drawn; details["plots"] stays.
  const bool with_plots = params.get_bool("plots") && schema.plots;
  std::vector<KsColumn> columns;
  for (std::size_t i = 0; i < merged.columns.size(); ++i) {
    const auto& conf = merged.confidential[i];
    const auto& syn = merged.synthetic[i];
    const std::string& name = schema.confidential.column(merged.columns[i]).name;
    columns.push_back(
        {name,
         declared ? stats::weighted_ks_distance(conf, syn)
                  : stats::ks_distance_sorted(conf.values, syn.values),
         conf.values.size(), syn.values.size(),
         with_plots ? plots::ecdf_overlay(name, conf.values, syn.values) : nlohmann::json()});
  }
  return report_ks_distance(columns, declared, std::move(warnings), params);
}

MetricResult finalize_ks_distance(const std::vector<std::string>& states, const MetricInput& schema,
                                  const Params& params) {
  return report_ks_distance(merge_numeric_runs(states, schema), schema, params);
}

// Columns with at most this many distinct values are counted instead of sorted (the count's
// table then stays within 512 KiB).
constexpr std::size_t kCountedValues = 16384;

// Without weights and without plot data, D needs only how many rows hold each value: a column
// of few distinct values (ages, counts, scores) in both datasets is counted in one pass per
// dataset; the others are sorted as before.
std::vector<KsColumn> ks_columns_without_plots(const MetricInput& in) {
  const Table& syn = in.first_synthetic();
  const auto compared = compared_numeric_columns(in);
  const std::size_t columns = compared.size();
  auto values = [&](std::size_t k) -> const std::vector<double>& {
    return (k % 2 == 0 ? in.confidential : syn).column(compared[k / 2]).numeric;
  };
  using Counts = std::optional<std::vector<std::pair<double, std::size_t>>>;
  std::vector<Counts> counts(2 * columns);
  const auto tasks = static_cast<std::ptrdiff_t>(2 * columns);
#pragma omp parallel for schedule(dynamic) num_threads(parallel_threads())
  for (std::ptrdiff_t k = 0; k < tasks; ++k)
    counts[static_cast<std::size_t>(k)] =
        stats::value_counts_if_few(values(static_cast<std::size_t>(k)), kCountedValues);
  std::vector<std::size_t> sorted_tasks;
  for (std::size_t i = 0; i < columns; ++i)
    if (!counts[2 * i] || !counts[2 * i + 1]) {
      sorted_tasks.push_back(2 * i);
      sorted_tasks.push_back(2 * i + 1);
    }
  std::vector<std::vector<double>> sorted(2 * columns);
  const auto sorts = static_cast<std::ptrdiff_t>(sorted_tasks.size());
#pragma omp parallel for schedule(dynamic) num_threads(parallel_threads())
  for (std::ptrdiff_t t = 0; t < sorts; ++t) {
    const std::size_t k = sorted_tasks[static_cast<std::size_t>(t)];
    sorted[k] = stats::sorted_values(values(k));
  }
  std::vector<KsColumn> out;
  for (std::size_t i = 0; i < columns; ++i) {
    const std::string& name = in.confidential.column(compared[i]).name;
    if (counts[2 * i] && counts[2 * i + 1]) {
      auto size = [](const Counts& c) {
        std::size_t n = 0;
        for (const auto& [value, rows] : *c) n += rows;
        return n;
      };
      out.push_back({name, stats::ks_distance_counted(*counts[2 * i], *counts[2 * i + 1]),
                     size(counts[2 * i]), size(counts[2 * i + 1]), nlohmann::json()});
    } else {
      out.push_back({name, stats::ks_distance_sorted(sorted[2 * i], sorted[2 * i + 1]),
                     sorted[2 * i].size(), sorted[2 * i + 1].size(), nlohmann::json()});
    }
  }
  return out;
}

MetricResult compute_ks_distance(const MetricInput& in, const Params& params) {
  if (in.context.weights.empty() && !(params.get_bool("plots") && in.plots))
    return report_ks_distance(ks_columns_without_plots(in), false, {}, params);
  return report_ks_distance(numeric_runs(in, params), in, params);
}

// The ECDF plot from the co-sorted samples: the pooled quantiles, then both samples' counts at
// or below the points they give.
nlohmann::json co_sorted_ecdf_overlay(const std::string& name, stats::CoSortedSamples& samples) {
  using Sample = stats::CoSortedSamples::Sample;
  std::vector<double> xs;
  if (samples.size(Sample::kPooled) > 0)
    xs = plots::ecdf_points(samples.quantiles_type7(Sample::kPooled, plots::ecdf_probabilities(),
                                                    stats::QuantileArithmetic::kNumpy));
  auto counts = [&](Sample sample) {
    const auto whole = samples.count_at_or_below(sample, xs);
    return std::vector<std::size_t>(whole.begin(), whole.end());
  };
  const auto conf_counts = counts(Sample::kFirst);
  const auto syn_counts = counts(Sample::kSecond);
  return plots::ecdf_overlay_at(name, xs, samples.size(Sample::kFirst), conf_counts,
                                samples.size(Sample::kSecond), syn_counts);
}

MetricResult collective_ks_distance(const MetricInput& partition, const Params& params,
                                    Communicator& communicator) {
  using Sample = stats::CoSortedSamples::Sample;
  const bool with_plots = params.get_bool("plots") && partition.plots;
  const auto compared = compared_numeric_columns(partition);
  std::vector<KsColumn> columns;
  for_each_co_sorted_column(
      partition, communicator, [&](std::size_t i, stats::CoSortedSamples& samples) {
        const std::string& name = partition.confidential.column(compared[i]).name;
        const double d = samples.ks_distance();
        columns.push_back({name, d, samples.size(Sample::kFirst), samples.size(Sample::kSecond),
                           with_plots ? co_sorted_ecdf_overlay(name, samples) : nlohmann::json()});
      });
  return report_ks_distance(columns, false, {}, params);
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
          " A partitioned run without survey weights sorts each column over the ranks together "
          "(a sample sort), so that each rank holds about its share of one column's values; "
          "with weights it merges each partition's sorted values, and the merging process holds "
          "every non-missing numeric value of both datasets.",
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
      .collective =
          CollectiveForm{.applies = co_sorted_columns_apply, .run = collective_ks_distance},
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
