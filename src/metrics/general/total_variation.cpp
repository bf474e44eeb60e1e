// Total variation distance per categorical column.
#include <cmath>

#include "metrics/design_weights.hpp"
#include "metrics/general/level_tally.hpp"
#include "metrics/general/marginal_plots.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

// Shares of each level from its tally (missing last); missing left out of numerator and
// denominator when `exclude_missing`. With survey weights a level's share is its rows' weight over
// the total weight (the weighted population share, svymean of the level indicators).
std::vector<double> level_shares(const LevelTally& tally, bool weighted, bool exclude_missing) {
  std::vector<double> shares = weighted ? tally.weight : tally.rows_as_doubles();
  if (exclude_missing) shares.back() = 0.0;
  double total = 0.0;
  for (double s : shares) total += s;
  if (total > 0)
    for (auto& s : shares) s /= total;
  return shares;
}

// The compared columns: categorical and not a design variable.
std::vector<std::size_t> compared_columns(const MetricInput& in) {
  std::vector<std::size_t> columns;
  for (std::size_t c = 0; c < in.confidential.column_count(); ++c)
    if (in.confidential.column(c).is_categorical() && !is_design_column(in, c))
      columns.push_back(c);
  return columns;
}

// A partition's sufficient statistics: per compared column the level tallies of both datasets
// (weighted as the partition's weight columns allow), then the synthetic weight column's facts.
std::string total_variation_state(const MetricInput& in, const Params& params) {
  const Table& syn = in.first_synthetic();
  const PartitionWeightColumns weights = partition_weight_columns(in, syn, params);
  StateWriter out;
  for (std::size_t c : compared_columns(in)) {
    tally_levels(in.confidential.column(c), weights.confidential).write(out);
    tally_levels(syn.column(c), weights.synthetic_own).write(out);
  }
  weights.write_facts(out);
  return out.take();
}

MetricResult finalize_total_variation(const std::vector<std::string>& states,
                                      const MetricInput& schema, const Params& params) {
  const bool exclude_missing = params.get_string("missing") == "exclude";
  const bool with_plots = params.get_bool("plots");
  const auto columns = compared_columns(schema);
  std::vector<LevelTally> conf(columns.size()), syn(columns.size());
  WeightColumnFacts facts;
  for (std::size_t p = 0; p < states.size(); ++p) {
    StateReader in(states[p]);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      conf[i].add(LevelTally::read(in));
      syn[i].add(LevelTally::read(in));
    }
    facts.merge_after(read_facts(in));
    in.expect_end();
  }
  MetricResult result;
  const bool conf_weighted = !schema.context.weights.empty();
  const bool syn_weighted =
      use_own_weights(schema, schema.first_synthetic(), facts, params, result.warnings);
  auto plots = nlohmann::json::array();
  double sum = 0.0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const Column& column = schema.confidential.column(columns[i]);
    std::uint64_t conf_rows = 0, syn_rows = 0;
    for (auto n : conf[i].rows) conf_rows += n;
    for (auto n : syn[i].rows) syn_rows += n;
    if (conf_rows == 0 || syn_rows == 0) {
      result.add("total_variation", column.name, std::nan(""));
      result.warnings.push_back("column '" + column.name + "': a dataset has no rows");
      continue;
    }
    const auto p = level_shares(conf[i], conf_weighted, exclude_missing);
    const auto q = level_shares(syn[i], syn_weighted, exclude_missing);
    double tv = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) tv += std::abs(p[k] - q[k]);
    tv *= 0.5;
    result.add("total_variation", column.name, tv);
    result.add("tv_complement", column.name, 1.0 - tv);
    if (with_plots && schema.plots)
      plots.push_back(
          plots::category_bars(column, conf[i].rows_as_doubles(), syn[i].rows_as_doubles()));
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

// One process is one partition: the same code path as a partitioned run.
MetricResult compute_total_variation(const MetricInput& in, const Params& params) {
  return finalize_total_variation({total_variation_state(in, params)}, in, params);
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
      .mergeable = MergeableForm{.partial_state = total_variation_state,
                                 .finalize = finalize_total_variation},
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
