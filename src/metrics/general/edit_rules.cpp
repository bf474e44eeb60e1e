// Edit rules: does the synthetic data break what real data (almost) never break? Each declared
// rule (stats/edit_rule.hpp) is counted on the confidential data, the synthetic data and the
// holdout, and the synthetic violation rate is tested against the confidential one.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "metrics/metric.hpp"
#include "metrics/references.hpp"
#include "stats/attack_risk.hpp"
#include "stats/distribution.hpp"
#include "stats/edit_rule.hpp"
#include "stats/multiple_testing.hpp"

namespace synthaudit {

namespace {

std::string rule_scope(const stats::EditRuleSpec& rule) { return "rule=" + rule.name; }

double rate(std::size_t part, std::size_t whole) {
  return whole == 0 ? NAN : static_cast<double>(part) / static_cast<double>(whole);
}

MetricResult compute_edit_rules(const MetricInput& in, const Params& params) {
  const auto& declared = in.context.rules;
  if (declared.empty())
    throw MetricNotApplicable("edit_rules: no edit rules declared (rules:, --rules)");
  const double level = params.get_double("level");
  const auto examples = static_cast<std::size_t>(params.get_int("examples"));
  const Table& synthetic = in.first_synthetic();
  MetricResult result;
  std::vector<double> p_values;
  std::vector<std::size_t> error_rules;
  std::vector<double> excess(declared.size(), NAN);
  nlohmann::json described = nlohmann::json::array();
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const stats::EditRule rule = stats::EditRule::compile(declared[i], in.confidential);
    const stats::RuleCount syn = rule.count(synthetic, examples);
    const stats::RuleCount conf = rule.count(in.confidential);
    const std::string scope = rule_scope(declared[i]);
    const double syn_rate = rate(syn.violations, syn.applies);
    const double conf_rate = rate(conf.violations, conf.applies);
    const auto interval = stats::wilson_success_rate(static_cast<double>(syn.applies),
                                                     static_cast<double>(syn.violations), 0.95);
    result.add("applies", scope, static_cast<double>(syn.applies));
    result.add("violations", scope, static_cast<double>(syn.violations));
    result.add("violation_rate", scope, syn_rate);
    result.add("violation_rate_lower", scope, interval.value - interval.error);
    result.add("violation_rate_upper", scope, interval.value + interval.error);
    result.add("with_missing", scope, static_cast<double>(syn.with_missing));
    result.add("confidential_applies", scope, static_cast<double>(conf.applies));
    result.add("confidential_violations", scope, static_cast<double>(conf.violations));
    result.values.back().records = static_cast<double>(conf.violations);
    result.add("confidential_violation_rate", scope, conf_rate);
    result.values.back().records = static_cast<double>(conf.violations);
    result.add("confidential_with_missing", scope, static_cast<double>(conf.with_missing));
    result.values.back().records = static_cast<double>(conf.with_missing);
    if (in.holdout != nullptr) {
      const stats::RuleCount held = rule.count(*in.holdout);
      result.add("holdout_violation_rate", scope, rate(held.violations, held.applies));
      result.values.back().records = static_cast<double>(held.violations);
    }
    excess[i] = syn_rate - conf_rate;
    result.add("excess_violation_rate", scope, excess[i]);
    result.add("violation_rate_ratio", scope, conf_rate > 0 ? syn_rate / conf_rate : NAN);
    const double p = stats::fisher_exact_greater(
        static_cast<double>(syn.violations), static_cast<double>(syn.applies),
        static_cast<double>(conf.violations), static_cast<double>(conf.applies));
    result.add("p_value", scope, p);
    if (declared[i].severity == "error") {
      error_rules.push_back(i);
      p_values.push_back(p);
    }
    if (examples > 0 && !syn.examples.empty()) {
      RecordValues records;
      records.scope = scope;
      records.data = "synthetic";
      std::vector<double> rows;
      for (std::size_t r : syn.examples) rows.push_back(static_cast<double>(r) + 1.0);
      records.add_field(rule.over_groups() ? "first_row_of_group" : "row", std::move(rows));
      result.records.push_back(std::move(records));
    }
    described.push_back({{"name", declared[i].name},
                         {"severity", declared[i].severity},
                         {"when", declared[i].when},
                         {"then", declared[i].then},
                         {"group_by", declared[i].group_by},
                         {"over", rule.over_groups() ? "groups" : "records"}});
  }
  // Holm's step-down over the error rules: the family-wise error of "broken more often than in
  // the confidential data" is at most `level`.
  const std::vector<double> corrected = stats::corrected_p_values(p_values, "holm");
  double broken = 0.0, worst = NAN;
  for (std::size_t k = 0; k < error_rules.size(); ++k) {
    const std::size_t i = error_rules[k];
    result.add("p_value_holm", rule_scope(declared[i]), corrected[k]);
    const bool is_broken = corrected[k] <= level && excess[i] > 0;
    result.add("broken", rule_scope(declared[i]), is_broken ? 1.0 : 0.0);
    broken += is_broken ? 1.0 : 0.0;
    if (!std::isnan(excess[i]) && (std::isnan(worst) || excess[i] > worst)) worst = excess[i];
  }
  result.add("error_rules_broken", "all", error_rules.empty() ? NAN : broken);
  result.add("max_excess_violation_rate", "all", worst);
  result.details["rules"] = std::move(described);
  return result;
}

}  // namespace

MetricSpec edit_rules_metric() {
  using enum ScopeKind;
  using namespace references;
  return MetricSpec{
      .name = "edit_rules",
      .family = MetricFamily::kGeneral,
      .summary =
          "Declared edit rules (impossible records and combinations): how often the "
          "synthetic data break each one, against the confidential data's rate",
      .doc =
          "Each rule of the spec's `rules:` (or `--rules FILE`; docs/config.md, \"Edit rules\") "
          "is a condition `then` that every record (with `group_by`: every group of records) "
          "where `when` holds should meet, as an editing rule of official statistics states "
          "it (Fellegi & Holt 1976; de Waal, Pannekoek & Scholtus 2011). Real data break rules "
          "too, so each rule is counted on the synthetic data and on the confidential data: "
          "the records (groups) it applies to, those that break it (violations; a comparison "
          "with a missing value is false, so a rule on a missing value is broken), its "
          "violation rate with a 95 % Wilson interval, the records with a missing value in a "
          "column it reads, and the holdout's rate when a holdout is given. excess_violation_"
          "rate = synthetic rate − confidential rate; p_value is the one-sided Fisher exact test "
          "that the synthetic rate exceeds the confidential one (as scipy's fisher_exact, "
          "alternative greater), p_value_holm its Holm correction over the error-severity "
          "rules. Headlines: error_rules_broken, the error rules whose corrected p-value is at "
          "most `level` with a positive excess (0 for a fresh real sample in all but a share "
          "`level` of cases), and max_excess_violation_rate, the largest excess over the error "
          "rules. The first violating synthetic rows of each rule (1-based; for group rules the "
          "first row of each violating group) go to records.tsv: synthetic records only.",
      .params = {{.name = "level",
                  .type = ParamType::kDouble,
                  .default_value = 0.01,
                  .doc = "family-wise level of the one-sided tests over the error rules "
                         "(Holm): a rule counts as broken when its corrected p-value is at most "
                         "this and the synthetic rate is higher",
                  .min = 0.0,
                  .max = 1.0},
                 {.name = "examples",
                  .type = ParamType::kInt,
                  .default_value = std::int64_t{5},
                  .doc = "violating synthetic rows of each rule listed in records.tsv (0: none)",
                  .min = 0,
                  .max = 1000}},
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "error_rules_broken",
                     .ideal = Ideal::lower(),
                     .reading = "error-severity edit rules the synthetic data break "
                                "significantly more often than the confidential data (Holm)",
                     .baseline = Baseline::analytic(
                         0.0, "",
                         "0: a fresh real sample breaks no rule more often than the "
                         "confidential data, but for a share `level` of samples"),
                     .unit = Unit::kNumber,
                     .gate_names = "broken"},
                    {.statistic = "max_excess_violation_rate",
                     .ideal = Ideal::lower(),
                     .reading = "largest excess of an error rule's synthetic violation rate "
                                "over its confidential rate",
                     .baseline = Baseline::holdout(kHoldoutNote),
                     .unit = Unit::kShare}},
      .compute = compute_edit_rules,
      .statistics =
          {{"applies",
            "synthetic records (groups) the rule applies to: where `when` holds",
            std::nullopt,
            {kRule}},
           {"violations",
            "of those, the synthetic records (groups) that break it",
            Ideal::lower(),
            {kRule}},
           {"violation_rate",
            "violations / applies in the synthetic data",
            Ideal::lower(),
            {kRule}},
           {"violation_rate_{lower|upper}",
            "95 % Wilson interval of the synthetic rate",
            std::nullopt,
            {kRule}},
           {"with_missing",
            "synthetic records (groups) the rule applies to with a missing value in a column "
            "it reads",
            std::nullopt,
            {kRule}},
           {"confidential_{applies|violations|with_missing}",
            "the same counts in the confidential data",
            std::nullopt,
            {kRule},
            OutputClass::kCount},
           {"confidential_violation_rate",
            "violations / applies in the confidential data",
            std::nullopt,
            {kRule}},
           {"holdout_violation_rate",
            "violations / applies in the holdout (with a holdout)",
            std::nullopt,
            {kRule}},
           {"excess_violation_rate", "synthetic rate − confidential rate", Ideal::lower(), {kRule}},
           {"violation_rate_ratio",
            "synthetic rate / confidential rate (NA when the confidential rate is 0)",
            std::nullopt,
            {kRule}},
           {"p_value",
            "one-sided Fisher exact test that the synthetic rate exceeds the confidential one",
            std::nullopt,
            {kRule}},
           {"p_value_holm",
            "p_value corrected by Holm over the error-severity rules",
            std::nullopt,
            {kRule}},
           {"broken",
            "1 for an error rule with p_value_holm at most `level` and a positive excess, else 0",
            Ideal::lower(),
            {kRule}},
           {"error_rules_broken",
            "error rules with p_value_holm at most `level` and a positive excess",
            Ideal::lower(),
            {kAll}},
           {"max_excess_violation_rate",
            "the largest excess_violation_rate of an error rule",
            Ideal::lower(),
            {kAll}}},
      .references = {cite(fellegi_holt_1976(), "edit rules a record must satisfy"),
                     cite(de_waal_pannekoek_scholtus_2011(),
                          "edit rules over records and groups of records (households)"),
                     cite(fisher_1935(), "the exact test of two violation rates"),
                     cite(wilson_1927(), "the interval of a violation rate")},
  };
}

}  // namespace synthaudit
