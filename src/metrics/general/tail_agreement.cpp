// Agreement of the tails of every numeric column: how many synthetic values lie at or beyond the
// confidential data's 1st, 5th, 95th and 99th percentiles, against the confidential data's own
// share there.
#include <algorithm>
#include <array>
#include <cmath>

#include "metrics/design_weights.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/quantile.hpp"
#include "stats/survey.hpp"

namespace synthaudit {

namespace {

struct Tail {
  const char* name;
  double probability;  // the confidential percentile that bounds the tail
  bool lower;          // values at or below it (else at or above it)
};

constexpr std::array<Tail, 4> kTails = {{{"bottom_1pct", 0.01, true},
                                         {"bottom_5pct", 0.05, true},
                                         {"top_5pct", 0.95, false},
                                         {"top_1pct", 0.99, false}}};

std::vector<double> non_missing(const Column& column) {
  std::vector<double> values;
  values.reserve(column.numeric.size());
  for (double v : column.numeric)
    if (!std::isnan(v)) values.push_back(v);
  return values;
}

std::size_t in_tail(const std::vector<double>& values, double threshold, bool lower) {
  return static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [&](double v) {
    return lower ? v <= threshold : v >= threshold;
  }));
}

// Share of the present values in the tail: of the rows, or with survey weights of the weight of
// the rows with a value (svymean of the tail indicator).
double tail_share(const Column& column, const std::vector<double>& weights, double threshold,
                  bool lower, std::size_t count, std::size_t present) {
  if (weights.empty()) return static_cast<double>(count) / static_cast<double>(present);
  double inside = 0, total = 0;
  for (std::size_t r = 0; r < column.numeric.size(); ++r) {
    const double v = column.numeric[r];
    if (std::isnan(v)) continue;
    total += weights[r];
    if (lower ? v <= threshold : v >= threshold) inside += weights[r];
  }
  return total > 0 ? inside / total : std::nan("");
}

MetricResult compute_tail_agreement(const MetricInput& in, const Params& params) {
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const DesignWeights weights = design_weights(in, syn, params, result.warnings);
  double sum = 0;
  std::size_t counted = 0;
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    if (!conf.column(c).is_numeric()) continue;
    if (is_design_column(in, c)) continue;
    const std::string& name = conf.column(c).name;
    std::vector<double> x = non_missing(conf.column(c));
    const std::vector<double> y = non_missing(syn.column(c));
    if (x.empty() || y.empty()) {
      result.warnings.push_back("column '" + name + "': no values in " +
                                (x.empty() ? "the confidential" : "the synthetic") + " data");
      continue;
    }
    std::sort(x.begin(), x.end());
    for (const Tail& tail : kTails) {
      const double threshold =
          weights.confidential.empty()
              ? stats::quantile_type7(x, tail.probability)
              : stats::weighted_quantile_hf7(conf.column(c).numeric, weights.confidential,
                                             tail.probability);
      const std::size_t nx = in_tail(x, threshold, tail.lower);
      const std::size_t ny = in_tail(y, threshold, tail.lower);
      const double px =
          tail_share(conf.column(c), weights.confidential, threshold, tail.lower, nx, x.size());
      const double py =
          tail_share(syn.column(c), weights.synthetic, threshold, tail.lower, ny, y.size());
      const std::string suffix = std::string("_") + tail.name;
      result.add("threshold" + suffix, name, threshold);
      result.add("conf_count" + suffix, name, static_cast<double>(nx));
      result.add("syn_count" + suffix, name, static_cast<double>(ny));
      // Both reveal the confidential count: the share with the released row count, the ratio
      // with the released synthetic share.
      result.add("conf_share" + suffix, name, px, static_cast<double>(nx));
      result.add("syn_share" + suffix, name, py);
      result.add("share_ratio" + suffix, name, py / px, static_cast<double>(nx));
      sum += std::abs(py - px);
      ++counted;
    }
  }
  if (counted == 0) {
    result.warnings.push_back("no numeric column with values in both datasets");
  } else {
    result.add("mean_abs_tail_share_difference", "all", sum / static_cast<double>(counted));
  }
  return result;
}

}  // namespace

MetricSpec tail_agreement_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "tail_agreement",
      .family = MetricFamily::kGeneral,
      .summary =
          "Share of synthetic values in the bottom and top 1 % and 5 % of every numeric "
          "column, the tails bounded by the confidential percentiles",
      .doc =
          "For each numeric column (non-missing values; declared missing codes are missing) the "
          "confidential percentiles q at 1 %, 5 %, 95 % and 99 % (Hyndman–Fan type 7, R's "
          "quantile() default), and in each tail the count and share of confidential and "
          "synthetic values at or beyond q (x ≤ q for the bottom tails, x ≥ q for the top "
          "tails). The confidential share is the nominal 1 % or 5 % plus what ties at q add "
          "(an integer column can have far more than 1 % at its 1st percentile), so the "
          "synthetic share is compared with it: share_ratio = synthetic share / confidential "
          "share (1 = the tail is as heavy as in the confidential data, 0 = the synthesiser "
          "never reaches it, above 1 = it piles values there). Summary: "
          "mean_abs_tail_share_difference, the mean |synthetic share − confidential share| over "
          "the columns and four tails. Its holdout baseline (the metric run with the holdout in "
          "place of the synthetic data) is what a fresh real sample scores. With weights: "
          "declared the percentiles are svyquantile(qrule = \"hf7\") and the shares are "
          "shares of the weight of the rows with a value (svymean of the tail indicator); the "
          "counts stay numbers of rows." +
          std::string(kWeightsDoc),
      .params = {synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "mean_abs_tail_share_difference",
                     .ideal = Ideal::lower(),
                     .reading = "mean difference between synthetic and confidential shares in the "
                                "1 % and 5 % tails of the numeric columns (0 = same tails)",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kNumber}},
      .compute = compute_tail_agreement,
      .statistics =
          {{"threshold_{bottom_1pct|bottom_5pct|top_5pct|top_1pct}",
            "the confidential percentile (1st, 5th, 95th or 99th) that bounds the tail",
            std::nullopt,
            {kColumn},
            OutputClass::kQuantile},
           {"{conf|syn}_count_{bottom_1pct|bottom_5pct|top_5pct|top_1pct}",
            "values at or beyond the confidential percentile",
            std::nullopt,
            {kColumn},
            OutputClass::kCount},
           {"{conf|syn}_share_{bottom_1pct|bottom_5pct|top_5pct|top_1pct}",
            "share of the non-missing values at or beyond the confidential percentile",
            std::nullopt,
            {kColumn}},
           {"share_ratio_{bottom_1pct|bottom_5pct|top_5pct|top_1pct}",
            "synthetic share in the tail divided by the confidential share (1 = same tail "
            "weight)",
            Ideal::at(1.0, TargetScale::kRatio),
            {kColumn}},
           {"mean_abs_tail_share_difference",
            "mean |synthetic − confidential share| over the numeric columns and the four tails",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(hyndman_fan_1996(), "type-7 percentiles bounding the tails"),
                     cite(lumley_2004(), "weighted percentiles and shares with survey weights")},
  };
}

}  // namespace synthaudit
