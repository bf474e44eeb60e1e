// SDMetrics' DisclosureProtection (and its CategoricalCAP / 0CAP scores) on the full data,
// from one group-by of (key, joint target) cells.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "metrics/key_disclosure/key_scenarios.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

MetricResult compute_disclosure_protection(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (in.context.scenarios.empty())
    throw MetricNotApplicable("no disclosure keys and targets given");
  const auto coding = keydisc::coding_options(params);
  const bool zero_cap = params.get_string("computation_method") == "zero_cap";
  MetricResult result;
  double worst = 2;
  for (const auto& scenario : in.context.scenarios) {
    const auto s = keydisc::code_scenario({&conf, &syn}, scenario, coding);
    const std::string scope = keydisc::scope_of_targets(s.key_names, s.target_names);
    std::vector<stats::CodedColumn> targets;
    std::vector<const stats::CodedColumn*> parts;
    double levels_product = 1;
    for (auto c : s.target_columns) targets.push_back(stats::code_column({&conf, &syn}, c, coding));
    for (const auto& t : targets) {
      parts.push_back(&t);
      // pandas nunique(dropna=False) on the real data: levels present, missing counted once.
      std::vector<char> seen(t.levels(), 0);
      for (auto code : t.codes[0]) seen[code] = 1;
      levels_product *= static_cast<double>(std::count(seen.begin(), seen.end(), 1));
    }
    const stats::GroupIds joint = stats::combine(parts);
    const stats::PairIds cells = stats::combine_pair(s.keys, joint);
    const auto nsk = stats::count_ids(s.keys.ids[1], s.keys.groups);
    const auto nsc = stats::count_ids(cells.pairs.ids[1], cells.pairs.groups);
    double score_found = 0, found = 0;
    for (std::size_t r = 0; r < conf.rows(); ++r) {
      const auto k = s.keys.ids[0][r];
      if (nsk[k] == 0) continue;
      found += 1;
      score_found += static_cast<double>(nsc[cells.pairs.ids[0][r]]) / nsk[k];
    }
    const double n = static_cast<double>(conf.rows());
    const double categorical_cap = found > 0 ? 1.0 - score_found / found : 0.0;
    const double zero = n > 0 ? 1.0 - score_found / n : 0.0;
    const double protection = zero_cap ? zero : categorical_cap;
    const double baseline = levels_product > 0 ? 1.0 - 1.0 / levels_product : 0.0;
    const double score =
        baseline == 0 ? (protection == 0 ? 0.0 : 1.0) : std::min(protection / baseline, 1.0);
    result.add("categorical_cap", scope, categorical_cap);
    result.add("zero_cap", scope, zero);
    result.add("cap_protection", scope, protection);
    result.add("baseline_protection", scope, baseline);
    result.add("disclosure_protection", scope, score);
    worst = std::min(worst, score);
  }
  if (worst <= 1) result.add("disclosure_protection_min", "all", worst);
  return result;
}

}  // namespace

MetricSpec disclosure_protection_metric() {
  using enum ScopeKind;
  using namespace references;
  auto params = keydisc::coding_params("exact", 10);
  params.push_back({.name = "computation_method",
                    .type = ParamType::kString,
                    .default_value = std::string("cap"),
                    .doc = "cap: records whose key is absent from the synthetic data are left out "
                           "(SDMetrics CategoricalCAP); zero_cap: they count as a failed attack, "
                           "score 0 (SDMetrics 0CAP)",
                    .choices = {"cap", "zero_cap"}});
  return MetricSpec{
      .name = "disclosure_protection",
      .family = MetricFamily::kKeyDisclosure,
      .summary =
          "SDMetrics DisclosureProtection: 1 − mean CAP of the targets (jointly) from the "
          "keys, relative to the 1 − 1/∏levels baseline, on the full data",
      .doc =
          "With the targets of a scenario taken jointly and missing values a category of their "
          "own (as SDMetrics fills nulls): categorical_cap = 1 − mean over confidential records "
          "whose key occurs in the synthetic data of the share of those synthetic records with "
          "the record's targets (SDMetrics CategoricalCAP, 0 when no key occurs); zero_cap = the "
          "same with absent keys scoring 0 (SDMetrics 0CAP); baseline_protection = 1 − 1/∏_t "
          "(levels of target t present in the confidential data, missing counted); "
          "disclosure_protection = min(cap_protection / baseline, 1) (0 or 1 when the baseline "
          "is 0). Computed exactly on all rows (SDMetrics' DisclosureProtectionEstimate "
          "subsamples 1000 rows). Numeric columns as `numeric` says (equal_width with bins = 10 "
          "is SDMetrics' discretisation of continuous columns). Reading: 1 = an intruder "
          "learns no more than by guessing uniformly; higher is safer.",
      .params = params,
      .granularity = MetricGranularity::kPerReplicate,
      .needs_scenarios = true,
      .headlines = {{.statistic = "disclosure_protection_min",
                     .ideal = Ideal::higher(),
                     .reading = "SDMetrics disclosure protection score, worst scenario (1 = the "
                                "synthetic data tell an intruder no more than a uniform guess)",
                     .axis = "risk",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kNumber}},
      .compute = compute_disclosure_protection,
      .statistics = {{"categorical_cap",
                      "1 − mean CAP over the confidential records whose key occurs in the "
                      "synthetic data (SDMetrics' CategoricalCAP)",
                      Ideal::higher(),
                      {kScenario}},
                     {"zero_cap",
                      "1 − mean CAP with absent keys scoring 0 (SDMetrics' 0CAP)",
                      Ideal::higher(),
                      {kScenario}},
                     {"cap_protection",
                      "the protection chosen by computation_method",
                      Ideal::higher(),
                      {kScenario}},
                     {"baseline_protection",
                      "1 − 1/∏(levels of each target): the protection of a uniform guess",
                      std::nullopt,
                      {kScenario}},
                     {"disclosure_protection",
                      "min(cap_protection / baseline_protection, 1), SDMetrics' "
                      "DisclosureProtection (1 = no better than guessing)",
                      Ideal::higher(),
                      {kScenario}},
                     {"disclosure_protection_min",
                      "the lowest disclosure_protection over the scenarios",
                      Ideal::higher(),
                      {kAll}}},
      .references = {cite(sdmetrics_software(),
                          "DisclosureProtection and CategoricalCAP, reproduced on SD2011"),
                     cite(taub_2018(), "correct attribution probability")},
  };
}

}  // namespace synthaudit
