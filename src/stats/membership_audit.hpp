#pragma once
// What a membership-inference attack achieves where it matters: at low false-positive rates, and
// as a lower bound on the differential-privacy ε it refutes.
//   - TPR at a target FPR, read off the full ROC curve without interpolation (Carlini, Chien,
//     Nasr, Song, Terzis & Tramèr 2022, "Membership inference attacks from first principles"):
//     the largest TPR among the thresholds whose FPR does not exceed the target. When the first
//     threshold already calls more non-members than the target allows (many records tied at the
//     most member-like score), no threshold qualifies except "nobody is a member", so TPR is 0.
//   - The membership advantage max(TPR − FPR) over thresholds (Yeom, Giacomelli, Fredrikson & Jha
//     2018, "Privacy risk in machine learning").
//   - An (ε, δ)-DP mechanism satisfies TPR ≤ e^ε·FPR + δ and 1 − FPR ≤ e^ε·(1 − TPR) + δ for every
//     test (Kairouz, Oh & Viswanath 2015). With two-sided Clopper–Pearson intervals at `confidence`
//     on TPR (tp of n_members) and FPR (fp of n_non_members), each threshold bounds
//       ε ≥ log((TPR_lo − δ) / FPR_hi)   and   ε ≥ log((1 − δ − FPR_hi) / (1 − TPR_lo))
//     (Jagielski, Ullman & Oprea 2020; Nasr, Song, Thakurta, Papernot & Carlini 2021); the bound
//     reported is the largest over thresholds and both forms, 0 when none is positive.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace synthaudit::stats {

// Two-sided Clopper–Pearson (1934) interval for `successes` out of `trials` at `confidence`:
// lower = Beta⁻¹(α/2; x, n − x + 1) (0 when x = 0), upper = Beta⁻¹(1 − α/2; x + 1, n − x) (1 when
// x = n), α = 1 − confidence. statsmodels' proportion_confint(method="beta").
struct ProportionInterval {
  double lower = 0, upper = 1;
};
ProportionInterval clopper_pearson(std::size_t successes, std::size_t trials, double confidence);

// The ε bound of one test (one threshold) from its rates' Clopper–Pearson bounds: the larger of
// log((TPR_lo − δ) / FPR_hi) and log((1 − δ − FPR_hi) / (1 − TPR_lo)) where defined; −∞ when
// neither is.
double epsilon_bound(const ProportionInterval& tpr, const ProportionInterval& fpr, double delta);

struct MembershipAuditOptions {
  std::vector<double> fpr_targets = {0.001, 0.01, 0.1};
  double delta = 1e-5;
  double confidence = 0.95;
};

struct MembershipAudit {
  std::size_t members = 0, non_members = 0;
  // Per target, in the order given: the largest TPR at FPR ≤ target, and whether the first
  // threshold's FPR already exceeded the target (then the TPR is 0 for that reason).
  std::vector<double> tpr_at_fpr;
  std::vector<bool> first_threshold_above_target;
  double advantage = 0;
  double epsilon_lower_bound = 0;
};

// Scores (no NaN; higher = more likely a member) and labels (nonzero = member). NaN statistics when
// either class is empty.
MembershipAudit audit_membership(std::span<const double> scores,
                                 std::span<const std::uint8_t> member,
                                 const MembershipAuditOptions& options);

}  // namespace synthaudit::stats
