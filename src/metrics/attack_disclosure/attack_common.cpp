#include "metrics/attack_disclosure/attack_common.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>

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

AttackRisk add_attack(MetricResult& result, const std::string& metric, const std::string& scope,
                      const stats::AttackCounts& counts, double confidence_level) {
  const auto summary = stats::summarize_attack(counts, confidence_level);
  for (const auto& [name, value] : stats::attack_statistics(summary))
    result.add(name, scope, value);
  AttackRisk residual{NAN, NAN};
  if (counts.n_control_attacks > 0) {
    // The risk interval's half-width is z standard deviations of the unclipped estimate.
    const double z = boost::math::quantile(boost::math::normal_distribution<double>(),
                                           0.5 * (1.0 + confidence_level));
    const auto unclipped = stats::residual_success(
        stats::wilson_success_rate(counts.n_attacks, counts.n_success, confidence_level),
        stats::wilson_success_rate(counts.n_control_attacks, counts.n_control, confidence_level));
    residual = {summary.risk, unclipped.error / z};
  }
  result.add("residual_risk", scope, residual.risk);
  result.add("residual_risk_sd", scope, residual.sd);
  if (counts.n_control_attacks == 0)
    result.warnings.push_back(
        metric + " " + scope +
        ": no holdout, so no control set: risk is the attack's success rate itself (as "
        "anonymeter reports it), to be read against baseline_rate, the random guess's rate; "
        "it does not separate what the synthesis leaked from what any sample would teach");
  return residual;
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
      {"residual_risk",
       "risk against the control set (NA without a holdout): what a fresh real sample scores "
       "is 0 in expectation, since the control set's success rate is subtracted",
       Ideal::lower(), scopes},
      {"residual_risk_sd",
       "standard deviation of the unclipped risk estimate, from the two Wilson intervals "
       "(half-width of the risk interval / z; NA without a holdout)",
       std::nullopt, scopes},
  };
}

Headline residual_risk_headline(const std::string& statistic, const std::string& sd_statistic,
                                const std::string& reading) {
  return {.statistic = statistic,
          .ideal = Ideal::lower(),
          .reading = reading,
          .axis = "risk",
          .baseline = Baseline::analytic(
              0.0, sd_statistic,
              "0: the attack's success against the control set (holdout records that were not "
              "used to synthesise) is already subtracted, so a fresh real sample of the "
              "population scores 0 in expectation; noise from the Wilson intervals of the two "
              "success rates"),
          .unit = Unit::kShare};
}

const char* const kAttackRiskDoc =
    "Targets: every confidential (training) record is attacked, and every holdout record is "
    "attacked the same way as the control set, each side at its own size (anonymeter samples "
    "500 targets by default and as many control rows as targets). Rates are Wilson (1927) score "
    "centres; risk = (attack_rate − control_rate)/(1 − control_rate) with its interval "
    "propagated from the two Wilson half-widths, point and bounds clipped to [0, 1], as "
    "anonymeter reports it. Without a holdout there is no control set: risk is then the attack "
    "rate itself (anonymeter's convention), to be read against baseline_rate, and a warning "
    "says so. residual_risk is risk when there is a control set and NA otherwise, with "
    "residual_risk_sd, the standard deviation of its unclipped estimate (the risk interval's "
    "half-width / z); it is the headline, read against 0, the value a fresh real sample scores "
    "in expectation because the control set's rate is subtracted. The random-guess baseline is "
    "counted at its exact expected value, so it needs no "
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
    "depend on row order or thread count. The nearest synthetic records are found by an exact "
    "search pruned by categorical signature and a numeric projection bound, equal to computing "
    "every distance (ties included), and shared within an evaluation between attacks on the "
    "same targets with the same attacker columns and k (inference attacks on several secrets "
    "with the same aux columns search once); the distance family's searches are not shared "
    "with them, since the two distances differ.";

}  // namespace synthaudit::attacks
