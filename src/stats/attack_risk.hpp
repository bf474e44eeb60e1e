#pragma once
// Success rates and residual risk of a privacy attack, with the conventions of anonymeter
// (Giomi, Boenisch, Wehmeyer & Tasnádi 2023, "A Unified Framework for Quantifying Privacy Risk in
// Synthetic Data", PoPETs 2023(2)): each rate is the centre of a Wilson (1927) score interval and
// the risk of an attack against a control set is the residual success
//   risk = (attack_rate − control_rate) / (1 − control_rate)
// with its error propagated to first order from the two Wilson half-widths, and the point value
// and interval clipped to [0, 1].
//
// Success counts are doubles: an attack whose outcome is decided by random tie-breaking counts
// its exact expected success (a fraction), and the Wilson formulas hold for them unchanged.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace synthaudit::stats {

// A rate and the half-width of its interval.
struct SuccessRate {
  double value = 0, error = 0;
};

// Wilson score interval of n_success successes in n_total trials at `confidence_level`
// (z = Φ⁻¹((1 + level)/2)): centre (s + z²/2)/(n + z²) and half-width
// z/(n + z²)·√(s(n − s)/n + z²/4). NaN when n_total is 0.
SuccessRate wilson_success_rate(double n_total, double n_success, double confidence_level);

// (attack − control)/(1 − control) and its propagated error (unclipped; NaN when control is 1).
SuccessRate residual_success(SuccessRate attack, SuccessRate control);

// The counts of one attack. The control attack runs the same attack against records that were
// not used to synthesise (a holdout), each side at its own size; n_control_attacks = 0 means no
// control set was available.
struct AttackCounts {
  double n_attacks = 0;          // targets attacked (training records)
  double n_success = 0;          // their (expected) successes
  double n_baseline = 0;         // successes of the random-guess attacker on the same targets
  double n_control_attacks = 0;  // control targets attacked (0: no control set)
  double n_control = 0;          // their (expected) successes
};

struct AttackSummary {
  AttackCounts counts;
  SuccessRate attack, baseline, control;  // control is NaN without a control set
  // Risk clipped to [0, 1] and its interval (value ± error, each clipped). With a control set:
  // the residual success over it; without: the attack rate itself (as anonymeter does).
  double risk = 0, risk_ci_lo = 0, risk_ci_hi = 0;
  // The raw success fractions n_success / n_attacks etc., beside the Wilson centres.
  double attack_fraction = 0, baseline_fraction = 0, control_fraction = 0;
};

AttackSummary summarize_attack(const AttackCounts& counts, double confidence_level = 0.95);

// The statistics of an attack summary under their reported names, in a fixed order:
// n_attacks, n_success, n_baseline, n_control_attacks, n_control, attack_rate, baseline_rate,
// control_rate, risk, risk_ci_lo, risk_ci_hi, attack_fraction, baseline_fraction,
// control_fraction.
std::vector<std::pair<std::string, double>> attack_statistics(const AttackSummary& summary);

}  // namespace synthaudit::stats
