// Is each synthetic mean inside the confidential confidence interval; paired t-test when
// rows correspond.
#include <cmath>

#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/combining.hpp"
#include "stats/distribution.hpp"
#include "stats/survey.hpp"

namespace synthaudit {

namespace {

// The interval of a design-weighted mean: x̄_w ± q·SE with q the t quantile on survey's degf for
// the design (PSUs − strata among the rows of positive weight where x is present; rows − 1 for
// weights alone), or the normal quantile.
stats::MeanInterval weighted_mean_interval(const std::vector<double>& x,
                                           const stats::SurveyDesign& design, double alpha,
                                           bool normal) {
  const auto estimate = stats::survey_mean(x, design);
  stats::MeanInterval interval;
  interval.n = estimate.n;
  interval.mean = estimate.estimate;
  interval.se = estimate.se;
  const auto w = design.weights();
  std::size_t positive = 0;
  for (std::size_t i = 0; i < x.size(); ++i) positive += (!std::isnan(x[i]) && w[i] > 0) ? 1 : 0;
  const double nan = std::nan("");
  if (positive < 2) {
    interval.lower = interval.upper = interval.critical = nan;
    return interval;
  }
  const double df = design.degrees_of_freedom([&](std::size_t row) { return !std::isnan(x[row]); });
  interval.critical = stats::t_quantile(1 - alpha / 2, normal ? stats::kInfiniteDf : df);
  interval.lower = interval.mean - interval.critical * interval.se;
  interval.upper = interval.mean + interval.critical * interval.se;
  return interval;
}

MetricResult compute_mean_in_ci(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const double alpha = params.get_double("alpha");
  const bool normal = params.get_string("interval") == "normal";
  const bool paired = in.context.synthesis == SynthesisType::kPartial && conf.rows() == syn.rows();
  const bool with_plots = params.get_bool("plots");
  auto plots = nlohmann::json::array();
  const DesignWeights weights = design_weights(in, syn, params, result.warnings);
  if (weights.declared()) result.details["design"] = design_summary(in, {weights});
  std::size_t inside = 0, counted = 0, rejected = 0, tested = 0;
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    if (!conf.column(c).is_numeric() || is_design_column(in, c)) continue;
    const std::string& name = conf.column(c).name;
    const auto ci = weights.declared()
                        ? weighted_mean_interval(conf.column(c).numeric,
                                                 *weights.confidential_design, alpha, normal)
                        : stats::mean_interval(conf.column(c).numeric, alpha, normal);
    const auto si = weights.synthetic.empty()
                        ? stats::mean_interval(syn.column(c).numeric, alpha, normal)
                        : weighted_mean_interval(syn.column(c).numeric, *weights.synthetic_design,
                                                 alpha, normal);
    result.add("conf_mean", name, ci.mean);
    result.add("conf_ci_lower", name, ci.lower);
    result.add("conf_ci_upper", name, ci.upper);
    result.add("syn_mean", name, si.mean);
    if (std::isnan(ci.lower) || std::isnan(si.mean)) {
      result.add("syn_mean_inside_conf_ci", name, std::nan(""));
      result.warnings.push_back("column '" + name +
                                "': needs 2 confidential and 1 synthetic non-missing values");
    } else {
      const bool in_ci = si.mean >= ci.lower && si.mean <= ci.upper;
      result.add("syn_mean_inside_conf_ci", name, in_ci ? 1.0 : 0.0);
      // Distance of the synthetic mean from the confidential one in confidential standard errors.
      result.add("mean_difference_in_conf_se", name,
                 ci.se > 0 ? (si.mean - ci.mean) / ci.se : std::nan(""));
      inside += in_ci ? 1 : 0;
      ++counted;
    }
    if (paired) {
      const auto t = stats::paired_t_test(conf.column(c).numeric, syn.column(c).numeric);
      result.add("paired_n", name, static_cast<double>(t.n));
      result.add("paired_mean_difference", name, t.mean_difference);
      result.add("paired_t", name, t.t);
      result.add("paired_df", name, t.df);
      result.add("paired_p_value", name, t.p_value);
      if (!std::isnan(t.p_value)) {
        ++tested;
        if (t.p_value < alpha) ++rejected;
      }
    }
    if (with_plots && !std::isnan(ci.lower)) {
      auto plot = make_plot("forest",
                            "Mean of " + name + " with " +
                                std::to_string(100.0 * (1 - alpha)).substr(0, 5) + "% interval",
                            "estimate", "dataset", name);
      plot["data"].push_back({{"estimand", "mean(" + name + ")"},
                              {"dataset", "confidential"},
                              {"estimate", ci.mean},
                              {"lower", ci.lower},
                              {"upper", ci.upper}});
      if (!std::isnan(si.lower))
        plot["data"].push_back({{"estimand", "mean(" + name + ")"},
                                {"dataset", "synthetic"},
                                {"estimate", si.mean},
                                {"lower", si.lower},
                                {"upper", si.upper}});
      plots.push_back(std::move(plot));
    }
  }
  if (counted > 0)
    result.add("share_of_means_inside_conf_ci", "all", double(inside) / double(counted));
  else
    result.warnings.push_back("no numeric column with enough values");
  if (paired && tested > 0)
    result.add("share_paired_tests_rejecting", "all", double(rejected) / double(tested));
  if (in.context.synthesis == SynthesisType::kPartial && !paired)
    result.warnings.push_back("partial synthesis but different row counts: no paired test");
  if (with_plots) result.details["plots"] = std::move(plots);
  return result;
}

}  // namespace

MetricSpec mean_in_confidence_interval_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "mean_in_confidence_interval",
      .family = MetricFamily::kGeneral,
      .summary =
          "Whether each synthetic column mean lies inside the confidential confidence "
          "interval for the mean; paired t-test when rows correspond",
      .doc =
          "Per numeric column, over non-missing values: the confidential interval x̄ ± "
          "t_{n−1}(1 − α/2)·s/√n (interval = t, default; interval = normal uses z_{1−α/2} as "
          "R's qnorm) and syn_mean_inside_conf_ci = 1 when the synthetic "
          "mean lies inside it (bounds included), else 0; mean_difference_in_conf_se = "
          "(x̄_syn − x̄_conf)/(s/√n). When rows correspond (synthesis: partial and equal row "
          "counts) also the paired t-test on d = syn − conf over rows where both are "
          "non-missing: t = d̄/(s_d/√n), df = n − 1, two-sided p-value "
          "(scipy.stats.ttest_rel). Summary: share_of_means_inside_conf_ci (higher is "
          "better) and share_paired_tests_rejecting at level α. A synthetic mean outside the "
          "interval signals information loss for the mean; with large n the "
          "interval is narrow, so read it with the standardised difference of "
          "column_summaries. Plot: forest plot per column (confidential and synthetic "
          "intervals). With weights: declared, x̄ is the weighted mean Σwx/Σw and s/√n its "
          "linearised standard error (svymean), the t quantile on (rows of positive weight − 1) "
          "degrees of freedom (survey's degf); the paired t-test stays unweighted (it compares "
          "records, not population estimates)." +
          std::string(kWeightsDoc),
      .params = {{.name = "alpha",
                  .type = ParamType::kDouble,
                  .default_value = 0.05,
                  .doc = "1 − confidence level of the interval, and the test level",
                  .min = 1e-10,
                  .max = 0.5},
                 {.name = "interval",
                  .type = ParamType::kString,
                  .default_value = std::string("t"),
                  .doc = "t: Student t quantile (n − 1 df); normal: normal quantile",
                  .choices = {"t", "normal"}},
                 {.name = "plots",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "emit forest plot data"},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "share_of_means_inside_conf_ci",
                     .ideal = Ideal::higher(),
                     .reading = "share of numeric columns whose synthetic mean lies inside the "
                                "real data's confidence interval",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kShare}},
      .compute = compute_mean_in_ci,
      .statistics =
          {{"{conf_mean|conf_ci_lower|conf_ci_upper|syn_mean}",
            "confidential mean and its confidence interval, and the synthetic mean",
            std::nullopt,
            {kColumn}},
           {"syn_mean_inside_conf_ci",
            "1 when the synthetic mean lies inside the confidential interval, else 0",
            Ideal::higher(),
            {kColumn}},
           {"mean_difference_in_conf_se",
            "(x̄_syn − x̄_conf) in confidential standard errors",
            Ideal::at(0.0),
            {kColumn}},
           {"{paired_n|paired_df}",
            "records in the paired t-test and its degrees of freedom (rows correspond)",
            std::nullopt,
            {kColumn}},
           {"{paired_mean_difference|paired_t}",
            "mean of syn − conf over the same records, and its t statistic",
            Ideal::at(0.0),
            {kColumn}},
           {"paired_p_value", "two-sided p-value of the paired t-test", std::nullopt, {kColumn}},
           {"share_of_means_inside_conf_ci",
            "share of numeric columns whose synthetic mean lies inside the confidential interval",
            Ideal::higher(),
            {kAll}},
           {"share_paired_tests_rejecting",
            "share of paired t-tests rejecting at level alpha",
            Ideal::lower(),
            {kAll}}},
      .references =
          {cite(
               kulik_lecture_notes(),
               "synthetic mean inside the confidential interval; paired test when rows correspond"),
           cite(scipy_2020(), "scipy.stats.t and ttest_rel, reproduced"),
           cite(lumley_2004(), "weighted mean and its linearised standard error (svymean)")},
  };
}

}  // namespace synthaudit
