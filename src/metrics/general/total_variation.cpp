// Total variation distance per categorical column.
#include <cmath>

#include "metrics/design_weights.hpp"
#include "metrics/general/marginal_plots.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/level_counts.hpp"

namespace synthaudit {

namespace {

// Shares of each level of a categorical column; missing values are one extra level at the end,
// or left out of numerator and denominator when `exclude_missing`. With survey weights a level's
// share is its rows' weight over the total weight (the weighted population share, svymean of the
// level indicators).
std::vector<double> level_shares(const Column& column, bool exclude_missing,
                                 const std::vector<double>& weights) {
  std::vector<double> shares;
  if (weights.empty()) {
    const auto counts = stats::level_counts(column);
    shares.assign(counts.begin(), counts.end());
  } else {
    shares.assign(column.cardinality() + 1, 0.0);
    for (std::size_t i = 0; i < column.codes.size(); ++i)
      shares[column.missing(i) ? column.cardinality() : column.codes[i]] += weights[i];
  }
  if (exclude_missing) shares.back() = 0.0;
  double total = 0.0;
  for (double s : shares) total += s;
  if (total > 0)
    for (auto& s : shares) s /= total;
  return shares;
}

MetricResult compute_total_variation(const MetricInput& in, const Params& params) {
  const bool exclude_missing = params.get_string("missing") == "exclude";
  const bool with_plots = params.get_bool("plots");
  auto plots = nlohmann::json::array();
  MetricResult result;
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  const DesignWeights weights = design_weights(in, syn, params, result.warnings);
  double sum = 0.0;
  std::size_t counted = 0;
  for (std::size_t c = 0; c < conf.column_count(); ++c) {
    if (!conf.column(c).is_categorical() || is_design_column(in, c)) continue;
    const std::string& name = conf.column(c).name;
    if (conf.rows() == 0 || syn.rows() == 0) {
      result.add("total_variation", name, std::nan(""));
      result.warnings.push_back("column '" + name + "': a dataset has no rows");
      continue;
    }
    const auto p = level_shares(conf.column(c), exclude_missing, weights.confidential);
    const auto q = level_shares(syn.column(c), exclude_missing, weights.synthetic);
    double tv = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) tv += std::abs(p[k] - q[k]);
    tv *= 0.5;
    result.add("total_variation", name, tv);
    result.add("tv_complement", name, 1.0 - tv);
    if (with_plots) plots.push_back(plots::category_bars(conf.column(c), syn.column(c)));
    sum += tv;
    ++counted;
  }
  if (with_plots) result.details["plots"] = std::move(plots);
  if (counted == 0) {
    result.warnings.push_back("no categorical column with rows in both datasets");
  } else {
    result.add("mean_total_variation", "all", sum / static_cast<double>(counted));
    result.add("mean_tv_complement", "all", 1.0 - sum / static_cast<double>(counted));
  }
  return result;
}

}  // namespace

MetricSpec total_variation_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "total_variation",
      .family = MetricFamily::kGeneral,
      .summary =
          "Total variation distance between confidential and synthetic level shares of "
          "each categorical column",
      .doc =
          "TV = ½ Σ_k |p_conf(k) − p_syn(k)| over the levels k of the shared dictionary, "
          "missing counted as a level of its own by default (0 = identical shares, 1 = "
          "disjoint). With missing = exclude the shares are over non-missing values only, "
          "which is SDMetrics' TVComplement (pandas value_counts drops NaN). Also 1 − TV and "
          "the mean over categorical columns. Plot: category bars per column (unweighted "
          "shares). With weights: declared the shares are weighted: p(k) = Σ_{rows in k} w / "
          "Σ w, the survey estimate of the population share (svymean of the level "
          "indicators)." +
          std::string(kWeightsDoc),
      .params = {{.name = "missing",
                  .type = ParamType::kString,
                  .default_value = std::string("level"),
                  .doc = "level: missing is a level of its own; exclude: shares among non-missing "
                         "values (SDMetrics)",
                  .choices = {"level", "exclude"}},
                 {.name = "plots",
                  .type = ParamType::kBool,
                  .default_value = true,
                  .doc = "emit category bar plot data (shares per level, missing as NA)"},
                 synthetic_weights_param()},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "mean_total_variation",
                     .ideal = Ideal::lower(),
                     .reading = "mean total variation distance between real and synthetic category "
                                "shares (0 = identical)",
                     .baseline = Baseline::resample(kResampleNote),
                     .unit = Unit::kNumber}},
      .compute = compute_total_variation,
      .statistics = {{"total_variation",
                      "total variation distance ½Σ|p_conf − p_syn| between the level shares (0 = "
                      "identical, 1 = disjoint)",
                      Ideal::lower(),
                      {kColumn}},
                     {"tv_complement",
                      "1 − total_variation, SDMetrics' TVComplement",
                      Ideal::higher(),
                      {kColumn}},
                     {"mean_total_variation",
                      "mean total variation over the categorical columns",
                      Ideal::lower(),
                      {kAll}},
                     {"mean_tv_complement", "1 − mean_total_variation", Ideal::higher(), {kAll}}},
      .references = {cite(sdmetrics_software(),
                          "TVComplement, reproduced on SD2011 with missing: exclude"),
                     cite(lumley_2004(), "weighted level shares with survey weights")},
  };
}

}  // namespace synthaudit
