#pragma once
// Inference from m synthetic replicates (combining rules) and interval comparisons.
// Reiter 2002 and 2003, Raghunathan, Reiter & Rubin 2003 (combining rules); Karr et al. 2006,
// Snoke et al. 2018 and Barrientos et al. 2024 (interval comparisons).
#include <cstddef>
#include <limits>
#include <span>
#include <string>

namespace synthaudit::stats {

inline constexpr double kInfiniteDf = std::numeric_limits<double>::infinity();

// Quantile of Student's t with `df` degrees of freedom; the normal quantile when df is infinite.
double t_quantile(double probability, double df);

struct Interval {
  double lower = 0.0, upper = 0.0;
};

// Estimate, variance, degrees of freedom and the two-sided `level` interval q ± t_df sqrt(T).
struct Inference {
  double estimate = 0.0;
  double variance = 0.0;
  double df = kInfiniteDf;
  Interval interval;
  double standard_error() const;
};
Inference make_inference(double estimate, double variance, double df, double level);

struct Combined : Inference {
  std::size_t m = 0;
  double between = 0.0;            // b_m (NaN when m = 1)
  double within = 0.0;             // v̄_m
  double raw_variance = 0.0;       // T_p, or T_f before the non-negative adjustment
  bool variance_adjusted = false;  // full synthesis: T_f ≤ 0, T_f* = (n_syn/n) v̄ used (δ = 1)
  std::string note;                // how m = 1, b = 0 or T_f ≤ 0 were handled, "" otherwise
};

// Partial synthesis (Reiter 2003): q̄ = Σq/m, b = Σ(q − q̄)²/(m − 1), v̄ = Σv/m, T_p = b/m + v̄,
// ν_p = (m − 1)(1 + v̄/(b/m))², t interval.
// m = 1: b cannot be estimated; T_p = v̄ and a normal interval (ν = ∞), which ignores the
// synthesis variance (noted). b = 0: ν_p = ∞ (the limit of the formula), a normal interval.
Combined combine_partial(std::span<const double> q, std::span<const double> v, double level);

// Full synthesis (Raghunathan, Reiter & Rubin 2003; Reiter 2002): T_f = (1 + 1/m)b − v̄,
// ν_f = (m − 1)(1 − v̄/((1 + 1/m)b))², with Reiter's non-negative T_f* = max(0, T_f) +
// δ (n_syn/n) v̄, δ = 1 when T_f < 0. When δ = 1 the ν_f formula has no meaning (its bracket
// changes sign) and we use a normal interval with T_f* (noted). m = 1: b cannot be estimated; T_f*
// = (n_syn/n) v̄ with a normal interval (noted). b = 0 gives T_f = −v̄ < 0, the δ = 1 case.
// T_f = 0 exactly (measure zero) also takes the δ branch: ν_f would be 0.
Combined combine_full(std::span<const double> q, std::span<const double> v, double n_syn_over_n,
                      double level);

// CI overlap, Karr et al. (2006) as described by Drechsler & Reiter (2009):
// I = (U_i − L_i)/(2(U_c − L_c)) + (U_i − L_i)/(2(U_s − L_s)) with (L_i, U_i) the intersection;
// 0 when the intervals are disjoint. NaN when either interval has zero width.
double ci_overlap(Interval confidential, Interval synthetic);
// The same formula without the floor (Snoke et al. 2018): negative when the intervals are disjoint,
// more negative the farther apart.
double ci_overlap_signed(Interval confidential, Interval synthetic);

// Significance of an estimate: its interval excludes 0.
bool significant(Interval interval);

// Sign, significance and overlap match (Barrientos et al. 2024): same sign of the two estimates,
// both significant or both not (interval excludes 0), intervals overlap.
bool sso_match(double confidential_estimate, Interval confidential, double synthetic_estimate,
               Interval synthetic);

// Univariate estimates with their variance, over the non-missing values of x.
struct Estimate {
  double q = 0.0, v = 0.0;
  std::size_t n = 0;
};
// Mean, v = s²/n (s² with n − 1).
Estimate estimate_mean(std::span<const double> x);
// Quantile of type 7 (R's default, numpy's linear), v = p(1 − p)/(n f(q)²) with f a Gaussian
// kernel density at q with R's bw.nrd0 bandwidth 0.9 min(s, IQR/1.34) n^(−1/5) (asymptotic
// variance of a sample quantile).
Estimate estimate_quantile(std::span<const double> x, double probability);

}  // namespace synthaudit::stats
