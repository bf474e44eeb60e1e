#pragma once
// Shared by the sdc-risk metrics (k_anonymity, l_diversity, t_closeness, individual_risk,
// replicated_uniques; suda2 for its per-record output): each measure is computed on the
// confidential data and on the synthetic data alike, on the keys of each disclosure scenario, and
// reported side by side under scopes that end in ";data=confidential" or ";data=synthetic".
#include <cmath>
#include <string>
#include <vector>

#include "metrics/key_disclosure/key_scenarios.hpp"
#include "metrics/metric.hpp"
#include "stats/equivalence_classes.hpp"

namespace synthaudit::sdc {

// The two data sets every measure is computed on, in this order: index 0 the confidential data,
// 1 the synthetic data (the replicate, or the holdout or resample a baseline puts in its place).
inline constexpr const char* kDataNames[2] = {"confidential", "synthetic"};

// `records` of data set `data`'s `n` records as a share: for the confidential data also the count
// it reveals (MetricValue::records), which output checking withholds when small; the synthetic
// data's counts are released with the data.
inline void add_share_of_records(MetricResult& result, std::string statistic, std::string scope,
                                 double records, double n, std::size_t data) {
  if (data == 0)
    result.add_share(std::move(statistic), std::move(scope), records, n);
  else
    result.add(std::move(statistic), std::move(scope), n > 0 ? records / n : std::nan(""));
}

// A bar of `plot` (a "bars" plot per data set) for `records` of data set `data`'s `n` records; the
// confidential data's bar stands for its records (`count`, the plot convention), so output
// checking drops it when it counts few.
inline void add_share_bar(nlohmann::json& plot, const std::string& level, std::size_t data,
                          double records, double n) {
  nlohmann::json bar = {
      {"level", level}, {"dataset", kDataNames[data]}, {"share", n > 0 ? records / n : 0.0}};
  if (data == 0) bar["count"] = records;
  plot["data"].push_back(std::move(bar));
}

// The key coding parameters of the key-disclosure family (numeric, bins, breaks), so that a
// numeric key can be banded as agencies band age, and `missing_keys` (wildcard | value) for the
// measures that count class frequencies; l_diversity and t_closeness, whose classes partition
// the records (a missing key value is a value of its own there), have no missing-key rule.
std::vector<ParamSpec> key_params(bool with_missing_keys);
stats::MissingKeys missing_keys(const Params& params);

// `record_level` (default false): write each record's `values` (a phrase for the parameter's doc)
// to records.tsv.
ParamSpec record_level_param(const std::string& values);
// With record_level = true, adds one data set's per-record values (name, one value per record)
// under `scope`; the confidential data's are marked as depending on them alone.
void add_record_values(MetricResult& result, const Params& params, const std::string& scope,
                       std::size_t data,
                       std::vector<std::pair<std::string, std::vector<double>>> fields);

// One scenario's keys coded on (confidential, synthetic), and each data set's key patterns.
struct ScenarioClasses {
  keydisc::ScenarioCodes codes;
  std::vector<std::uint32_t> missing_levels;  // per key
  stats::KeyPatterns patterns[2];
};
ScenarioClasses scenario_classes(const Table& confidential, const Table& synthetic,
                                 const DisclosureScenario& scenario, const Params& params);

// "keys=a,b": a scenario's scope without the data set (plots, values of both).
std::string keys_scope(const std::vector<std::string>& keys);
// "keys=a,b;<qualifier>;data=confidential" (no qualifier when empty).
std::string scope(const std::vector<std::string>& keys, const std::string& qualifier,
                  std::size_t data);

// The scenarios of the evaluation, or MetricNotApplicable when none are declared.
const std::vector<DisclosureScenario>& scenarios(const MetricInput& input);

// The doc paragraph every sdc-risk metric shares: the two data sets, missing keys, key coding.
extern const char* const kSideBySideDoc;

}  // namespace synthaudit::sdc
