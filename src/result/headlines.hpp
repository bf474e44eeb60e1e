#pragma once
// The headline statistics of a results document, read back from it: each headline's value for
// every candidate, its baseline with the baseline's noise, and ranks by distance to the ideal.
// Shared by the verdict (result/verdict.hpp) and the scorecard (report/report.hpp); reads only
// the document and names no metric.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metric.hpp"

namespace synthaudit {

// A baseline value beside a headline: the holdout's or the resamples' value of the statistic, or
// the value theory gives, with its sampling standard deviation where one is known.
struct BaselineValue {
  std::string name;  // "holdout", "resample" or "analytic"
  std::string kind;  // the declaration's kind: "holdout", "resample", "statistic", "analytic"
  std::optional<double> value;
  std::optional<double> sd;
  std::string note;
};

// A replicate's permutation test of a headline against its holdout re-splits
// (engine/permutation_null.hpp), as the document records it.
struct NullResult {
  double p_value = 1.0;
  double monte_carlo_error = 0.0;
  double resplits = 0.0;
  double observed_excess = 0.0;
  double as_extreme = 0.0;  // re-splits at least as extreme as the observed excess
};

struct HeadlineRow {
  std::string metric, family, statistic, scope, reading, axis, unit;
  Ideal ideal;
  nlohmann::json baseline_declaration;  // the metric's declaration (null when none)
  // Per candidate, in the document's candidate order.
  std::vector<std::optional<double>> values;
  std::vector<std::string> sources;  // "mean", "combined", "replicate" or "" (no value)
  std::vector<std::vector<std::optional<double>>> replicates;
  std::vector<std::optional<double>> ranks;             // 1 = closest to the ideal; ties share
  std::vector<std::optional<BaselineValue>> baselines;  // per candidate (its noise may differ)
  // Per candidate: its value on subsamples of the holdout's size, when the holdout is smaller
  // than the synthetic data (the engine's "at_baseline_size"), and that size.
  std::vector<std::optional<double>> size_matched_values;
  std::vector<std::optional<double>> size_matched_sd;  // the candidate's noise at that size
  std::vector<std::optional<double>> size_matched_rows;
  // Per candidate, per replicate: the permutation test of this headline, where one was made.
  std::vector<std::vector<std::optional<NullResult>>> nulls;
  // The independent-marginals baseline's value (the verdict's utility floor), where it ran.
  std::optional<double> floor_value;
  std::optional<double> floor_sd;  // the spread of its value over its draws
  // A gate's per-scope statistic (metrics/metric.hpp: Headline::gate_names); "" = not a gate.
  std::string gate_names;
};

struct HeadlineTable {
  std::vector<std::string> candidates;  // user candidates only, never the baselines
  std::vector<HeadlineRow> rows;
  // Mean rank over the utility (risk) headlines a candidate has a value for; never averaged
  // together.
  std::vector<std::optional<double>> utility_rank, risk_rank;
  std::vector<std::size_t> ranked_utility, ranked_risk;
};

// The headlines of the whole data, or, given a subgroup's label ("sex=female"), those of that
// subgroup judged against its own baselines (engine/subgroups.hpp); metrics not run in the
// subgroup, or with the subgroup suppressed, are left out.
HeadlineTable headline_table(const nlohmann::json& document, const std::string& subgroup = "");

// A candidate's entry value of (statistic, scope): its mean over replicates, its combined value,
// or the value of its only replicate; `source` says which.
std::optional<double> entry_value(const nlohmann::json& entry, const std::string& statistic,
                                  const std::string& scope, std::string* source = nullptr);

// The value of (statistic, scope) in a values list; nullopt when absent or NA.
std::optional<double> find_value(const nlohmann::json& values, const std::string& statistic,
                                 const std::string& scope);

// The baseline of a metric's statistic for one candidate, as declared by `declaration` (a
// headline's "baseline" object), or, when `declaration` is null, the metric's `name` baseline
// entry (holdout or resample). nullopt when the metric has no such baseline.
std::optional<BaselineValue> baseline_value(const nlohmann::json& metric,
                                            const nlohmann::json& declaration,
                                            const std::string& name, const std::string& statistic,
                                            const std::string& scope, const std::string& candidate);

// Ranks by distance to the ideal, ties sharing their mean rank; nullopt values get no rank.
std::vector<std::optional<double>> rank_by_ideal(const std::vector<std::optional<double>>& values,
                                                 const Ideal& ideal);

}  // namespace synthaudit
