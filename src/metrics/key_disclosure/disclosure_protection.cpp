// SDMetrics' DisclosureProtection (and its CategoricalCAP / 0CAP scores) on the full data,
// from one group-by of (key, joint target) cells.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "metrics/key_disclosure/key_scenarios.hpp"
#include "metrics/references.hpp"

namespace synthaudit {

namespace {

// Σ over the confidential records whose key occurs in the synthetic data of the share of those
// synthetic records whose targets all match the record's under `rule` (numeric targets within
// its tolerance, coded ones equal; a missing value matches a missing one only when the rule says
// so, and a record with a missing key matches no record then), and how many such records there
// are. With exact equality and missing a value this is the cell count of the joint targets.
struct CapSums {
  double score_found = 0, found = 0;
};
CapSums cap_sums_by_rule(const Table& conf, const Table& syn, const keydisc::ScenarioCodes& s,
                         const std::vector<stats::CodedColumn>& targets,
                         const keydisc::MatchingRule& rule) {
  std::vector<std::size_t> tolerant;             // target indices matched within the tolerance
  std::vector<const stats::CodedColumn*> coded;  // the others, as levels
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (rule.tolerant() && conf.column(s.target_columns[i]).is_numeric())
      tolerant.push_back(i);
    else
      coded.push_back(&targets[i]);
  }
  const stats::GroupIds keys_and_levels =
      coded.empty() ? s.keys : stats::combine_pair(s.keys, stats::combine(coded)).pairs;
  const std::uint32_t C = keys_and_levels.groups;
  auto unmatchable = [&](std::size_t t, std::size_t r, bool with_targets) {
    if (rule.missing_matches) return false;
    for (const auto& key : s.keys_coded)
      if (key.codes[t][r] == key.missing_level) return true;
    if (with_targets)
      for (const auto* c : coded)
        if (c->codes[t][r] == c->missing_level) return true;
    return false;
  };
  // Synthetic rows grouped by (key, coded targets), ordered by the first tolerant target.
  const auto& cell_of_syn = keys_and_levels.ids[1];
  std::vector<std::uint32_t> start(C + 1, 0);
  for (auto c : cell_of_syn) ++start[c + 1];
  for (std::uint32_t c = 0; c < C; ++c) start[c + 1] += start[c];
  std::vector<std::uint32_t> rows(cell_of_syn.size());
  {
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::uint32_t z = 0; z < cell_of_syn.size(); ++z) rows[fill[cell_of_syn[z]]++] = z;
  }
  const std::vector<double>* first_values =
      tolerant.empty() ? nullptr : &syn.column(s.target_columns[tolerant.front()]).numeric;
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    const double x = (*first_values)[a], y = (*first_values)[b];
    return !std::isnan(x) && (std::isnan(y) || x < y);
  };
  if (first_values)
    for (std::uint32_t c = 0; c < C; ++c)
      std::sort(rows.begin() + start[c], rows.begin() + start[c + 1], before);
  const auto n_key = stats::count_ids(s.keys.ids[1], s.keys.groups);

  CapSums sums;
  for (std::size_t r = 0; r < conf.rows(); ++r) {
    const auto k = s.keys.ids[0][r];
    if (n_key[k] == 0 || unmatchable(0, r, false)) continue;
    sums.found += 1;
    if (unmatchable(0, r, true)) continue;
    const auto c = keys_and_levels.ids[0][r];
    auto first = rows.begin() + start[c], last = rows.begin() + start[c + 1];
    double matched = static_cast<double>(last - first);
    if (first_values) {
      const double v = conf.column(s.target_columns[tolerant.front()]).numeric[r];
      const auto nonmissing_end = std::partition_point(
          first, last, [&](std::uint32_t z) { return !std::isnan((*first_values)[z]); });
      if (std::isnan(v)) {
        if (rule.missing_matches)
          first = nonmissing_end;
        else
          last = first;
      } else {
        const double radius = rule.radius(v);
        first = std::lower_bound(first, nonmissing_end, v - radius,
                                 [&](std::uint32_t z, double x) { return (*first_values)[z] < x; });
        last = std::upper_bound(first, nonmissing_end, v + radius,
                                [&](double x, std::uint32_t z) { return x < (*first_values)[z]; });
      }
      matched = 0;
      for (auto it = first; it != last; ++it) {
        bool all = true;
        for (std::size_t i = 1; i < tolerant.size() && all; ++i) {
          const auto column = s.target_columns[tolerant[i]];
          all = rule.matches(conf.column(column).numeric[r], syn.column(column).numeric[*it]);
        }
        matched += all;
      }
    }
    sums.score_found += matched / static_cast<double>(n_key[k]);
  }
  return sums;
}

MetricResult compute_disclosure_protection(const MetricInput& in, const Params& params) {
  const Table& conf = in.confidential;
  const Table& syn = in.first_synthetic();
  if (in.context.scenarios.empty())
    throw MetricNotApplicable("no disclosure keys and targets given");
  const auto coding = keydisc::coding_options(params);
  const bool zero_cap = params.get_string("computation_method") == "zero_cap";
  const auto rule = keydisc::matching_rule(params);
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
    bool tolerant = false;
    for (auto c : s.target_columns) tolerant |= rule.tolerant() && conf.column(c).is_numeric();
    double score_found = 0, found = 0;
    if (rule.missing_matches && !tolerant) {
      // SDMetrics' rule: cells of (key, joint targets), missing a level of its own.
      const stats::GroupIds joint = stats::combine(parts);
      const stats::PairIds cells = stats::combine_pair(s.keys, joint);
      const auto nsk = stats::count_ids(s.keys.ids[1], s.keys.groups);
      const auto nsc = stats::count_ids(cells.pairs.ids[1], cells.pairs.groups);
      for (std::size_t r = 0; r < conf.rows(); ++r) {
        const auto k = s.keys.ids[0][r];
        if (nsk[k] == 0) continue;
        found += 1;
        score_found += static_cast<double>(nsc[cells.pairs.ids[0][r]]) / nsk[k];
      }
    } else {
      const CapSums sums = cap_sums_by_rule(conf, syn, s, targets, rule);
      score_found = sums.score_found;
      found = sums.found;
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
  for (auto& p : keydisc::matching_params()) params.push_back(std::move(p));
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
          "is SDMetrics' discretisation of continuous columns). Matching follows the family's "
          "rule (disclosure_matching): with numeric_tolerance 0, relative_tolerance 0 and "
          "missing_matches true it is SDMetrics'; otherwise a synthetic record counts when every "
          "target matches under the rule (numeric targets within the tolerance of the "
          "confidential value, the others equal) and a record with a missing key value has no "
          "key when missing values do not match (it counts as found nowhere). Reading: 1 = an "
          "intruder "
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
