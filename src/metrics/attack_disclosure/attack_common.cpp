#include "metrics/attack_disclosure/attack_common.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "stats/column_lookup.hpp"

namespace synthaudit::attacks {

bool is_design_column(const std::string& name, const EvaluationContext& context) {
  return (!context.weights.empty() && name == context.weights) ||
         (!context.household.empty() && name == context.household);
}

std::vector<std::size_t> attribute_columns(const Table& table, const EvaluationContext& context) {
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < table.columns().size(); ++c)
    if (!is_design_column(table.column(c).name, context)) out.push_back(c);
  return out;
}

std::vector<std::size_t> named_columns(const Table& table, const EvaluationContext& context,
                                       const std::vector<std::string>& names,
                                       const std::string& metric, const std::string& param) {
  const std::string where = metric + " parameter " + param;
  auto columns = stats::resolve_columns(table, names, where);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (is_design_column(names[i], context))
      throw InputError(where + ": '" + names[i] +
                       "' is a survey design column (weights or household), not an attribute");
    for (std::size_t j = 0; j < i; ++j)
      if (columns[j] == columns[i])
        throw InputError(where + ": column '" + names[i] + "' is named twice");
  }
  return columns;
}

ParamSpec confidence_level_param() {
  return {.name = "confidence_level",
          .type = ParamType::kDouble,
          .default_value = 0.95,
          .doc = "confidence level of the Wilson intervals and of the risk interval",
          .min = 0.5,
          .max = 0.999};
}

void add_attack(MetricResult& result, const std::string& metric, const std::string& scope,
                const stats::AttackCounts& counts, double confidence_level) {
  const auto summary = stats::summarize_attack(counts, confidence_level);
  for (const auto& [name, value] : stats::attack_statistics(summary))
    result.add(name, scope, value);
  if (counts.n_control_attacks == 0)
    result.warnings.push_back(
        metric + " " + scope +
        ": no holdout, so no control set: risk is the attack's success rate itself (as "
        "anonymeter reports it), to be read against baseline_rate, the random guess's rate; "
        "it does not separate what the synthesis leaked from what any sample would teach");
}

std::vector<StatisticSpec> attack_statistic_specs(const std::vector<ScopeKind>& scopes,
                                                  const std::string& success_meaning) {
  return {
      {"n_attacks", "targets attacked: every training (confidential) record", std::nullopt, scopes,
       OutputClass::kCount},
      {"n_success", "expected number of successful attacks on them (" + success_meaning + ")",
       std::nullopt, scopes, OutputClass::kCount},
      {"n_baseline", "expected successes of the random-guess attacker on the same targets",
       std::nullopt, scopes, OutputClass::kCount},
      {"n_control_attacks", "control targets attacked: every holdout record (NA without one)",
       std::nullopt, scopes, OutputClass::kCount},
      {"n_control", "expected successes against the control targets", std::nullopt, scopes,
       OutputClass::kCount},
      {"attack_rate", "success rate against the training records (Wilson score centre)",
       Ideal::lower(), scopes},
      {"baseline_rate", "success rate of random guessing (Wilson score centre)", std::nullopt,
       scopes},
      {"control_rate", "success rate against the holdout records (Wilson score centre)",
       std::nullopt, scopes},
      {"risk",
       "(attack_rate − control_rate)/(1 − control_rate) clipped to [0, 1]; without a holdout the "
       "attack rate",
       Ideal::lower(), scopes},
      {"{risk_ci_lo|risk_ci_hi}", "bounds of the risk interval, clipped to [0, 1]", std::nullopt,
       scopes},
      {"{attack_fraction|baseline_fraction|control_fraction}",
       "raw success fraction: expected successes / targets", std::nullopt, scopes},
  };
}

const char* const kAttackRiskDoc =
    "Targets: every confidential (training) record is attacked, and every holdout record is "
    "attacked the same way as the control set, each side at its own size (anonymeter samples "
    "500 targets by default and as many control rows as targets). Rates are Wilson (1927) score "
    "centres; risk = (attack_rate − control_rate)/(1 − control_rate) with its interval "
    "propagated from the two Wilson half-widths, point and bounds clipped to [0, 1], as "
    "anonymeter reports it. Without a holdout there is no control set: risk is then the attack "
    "rate itself (anonymeter's convention), to be read against baseline_rate, and a warning "
    "says so. The random-guess baseline is counted at its exact expected value, so it needs no "
    "seed. Distances (anonymeter's mixed-type distance): d = C + Σ |x − y| / R over the "
    "attacker's columns, C = number of categorical columns that differ (missing equals "
    "missing), R = range of the numeric column over the targets and the synthetic data "
    "together (1 when 0); a missing numeric value counts 1 against a value and 0 against a "
    "missing one. Unlike the distance family's Gower distance the sum is not divided by the "
    "number of columns, terms are not capped at 1 and the range spans targets and synthetic "
    "data (so the control attack scales by the holdout's range, as anonymeter does). Each "
    "difference is taken before scaling and the integer count C added last, so rows at equal "
    "per-column differences are at bit-equal distances and tie exactly (anonymeter scales "
    "first and its rounding splits some ties). Ties among equidistant synthetic records are "
    "resolved by expectation: each target counts the exact probability of success when the "
    "attacker breaks ties uniformly at random (a fraction between 0 and 1), so results do not "
    "depend on row order or thread count.";

}  // namespace synthaudit::attacks
