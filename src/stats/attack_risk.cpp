#include "stats/attack_risk.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>

namespace synthaudit::stats {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double clip01(double x) { return std::clamp(x, 0.0, 1.0); }
}  // namespace

SuccessRate wilson_success_rate(double n_total, double n_success, double confidence_level) {
  if (!(n_total > 0)) return {kNaN, kNaN};
  const double z = boost::math::quantile(boost::math::normal_distribution<double>(),
                                         0.5 * (1.0 + confidence_level));
  const double z2 = z * z;
  const double success_variance = n_success * (n_total - n_success) / n_total;
  const double denominator = n_total + z2;
  return {(n_success + 0.5 * z2) / denominator,
          z / denominator * std::sqrt(std::max(0.0, success_variance) + 0.25 * z2)};
}

SuccessRate residual_success(SuccessRate attack, SuccessRate control) {
  if (control.value == 1.0) return {kNaN, kNaN};
  const double margin = 1.0 - control.value;
  const double d_attack = 1.0 / std::abs(margin);
  const double d_control = (attack.value - 1.0) / (margin * margin);
  return {(attack.value - control.value) / margin,
          std::hypot(attack.error * d_attack, control.error * d_control)};
}

AttackSummary summarize_attack(const AttackCounts& counts, double confidence_level) {
  AttackSummary s;
  s.counts = counts;
  s.attack = wilson_success_rate(counts.n_attacks, counts.n_success, confidence_level);
  s.baseline = wilson_success_rate(counts.n_attacks, counts.n_baseline, confidence_level);
  const bool has_control = counts.n_control_attacks > 0;
  s.control = has_control ? wilson_success_rate(counts.n_control_attacks, counts.n_control,
                                                confidence_level)
                          : SuccessRate{kNaN, kNaN};
  const SuccessRate residual = has_control ? residual_success(s.attack, s.control) : s.attack;
  if (std::isnan(residual.value)) {
    s.risk = s.risk_ci_lo = s.risk_ci_hi = kNaN;
  } else {
    s.risk = clip01(residual.value);
    s.risk_ci_lo = clip01(residual.value - residual.error);
    s.risk_ci_hi = clip01(residual.value + residual.error);
  }
  const auto fraction = [](double k, double n) { return n > 0 ? k / n : kNaN; };
  s.attack_fraction = fraction(counts.n_success, counts.n_attacks);
  s.baseline_fraction = fraction(counts.n_baseline, counts.n_attacks);
  s.control_fraction = has_control ? fraction(counts.n_control, counts.n_control_attacks) : kNaN;
  return s;
}

std::vector<std::pair<std::string, double>> attack_statistics(const AttackSummary& s) {
  const AttackCounts& c = s.counts;
  const bool has_control = c.n_control_attacks > 0;
  return {{"n_attacks", c.n_attacks},
          {"n_success", c.n_success},
          {"n_baseline", c.n_baseline},
          {"n_control_attacks", has_control ? c.n_control_attacks : kNaN},
          {"n_control", has_control ? c.n_control : kNaN},
          {"attack_rate", s.attack.value},
          {"baseline_rate", s.baseline.value},
          {"control_rate", s.control.value},
          {"risk", s.risk},
          {"risk_ci_lo", s.risk_ci_lo},
          {"risk_ci_hi", s.risk_ci_hi},
          {"attack_fraction", s.attack_fraction},
          {"baseline_fraction", s.baseline_fraction},
          {"control_fraction", s.control_fraction}};
}

}  // namespace synthaudit::stats
