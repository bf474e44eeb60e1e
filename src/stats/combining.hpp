#pragma once
// Inference from m synthetic replicates (combining rules) and interval comparisons.
// Reiter 2002 and 2003, Raghunathan, Reiter & Rubin 2003 (combining rules); Raab, Nowok & Dibben
// 2016 and synthpop 1.9-3 (synthpop's rules and lack-of-fit test); Karr et al. 2006, Snoke et al.
// 2018 and Barrientos et al. 2024 (interval comparisons).
#include <cstddef>
#include <limits>
#include <span>
#include <string>

#include "stats/eigen_dense.hpp"

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
// ν_f < min_df (T_f > 0 but barely: b hardly exceeds v̄) also takes δ = 1, T_f* = T_f +
// (n_syn/n) v̄ with a normal interval: below ν = 1 the t quantile explodes (12.7 at ν = 1, about
// 10^16 at ν = 0.1), which turns an unreliable variance into an interval of no use. min_df = 0
// keeps Reiter's rule as published.
Combined combine_full(std::span<const double> q, std::span<const double> v, double n_syn_over_n,
                      double level, double min_df = 0.0);

// synthpop's inference from m replicates (Raab, Nowok & Dibben 2016; synthpop 1.9-3's
// summary.fit.synds and compare.fit.synds). n and k are synthpop's: the rows of the confidential
// file and of one synthetic replicate.
struct SynthpopSetting {
  bool population_inference = false;
  // The analysed (response) variable was not synthesised: inference to the population uses
  // Reiter's (2003) partial-synthesis variance, and the lack-of-fit test Hotelling's T².
  bool incomplete = false;
  bool proper = false;  // the replicates were drawn with synthpop's proper = TRUE
  double n = 0.0, k = 0.0;
};
// q̄ with a normal interval q̄ ± z √V, V from `base_variance` (the confidential estimate's variance,
// as compare.fit.synds passes it, or v̄ k/n from the replicates alone, as summary.fit.synds
// computes it):
//   population_inference false: V = base (inference to what the confidential data would give);
//   true, complete: V = base (1 + n/(k m)), proper: V = base (1 + (n/k + 1)/m);
//   true, incomplete: V = b/m + base; with m = 1 synthpop takes the complete formula (noted).
struct SynthpopCombined : Inference {
  double between = 0.0;  // b (NaN when m = 1)
  std::string note;
};
SynthpopCombined combine_synthpop(std::span<const double> q, double base_variance,
                                  const SynthpopSetting& setting, double level);

// synthpop's lack-of-fit test of the synthetic against the confidential coefficients
// (compare.fit.synds), d = q̄ − q_conf over the p coefficients:
//   complete: χ² = d' V⁺ d with V = Σ_conf n/(k m), referred to χ²_p;
//   incomplete: V = B/m from the replicates (B their sample covariance), T² = d' V⁺ d,
//   F = T² (m − p)/(p (m − 1)) referred to F(p, m − p); needs m > p (synthpop reports nothing for
//   m < p and a meaningless 0 with p = NaN for m = p).
// V⁺ is MASS::ginv's pseudo-inverse (singular values below √ε times the largest dropped).
// p-values are 1 − F(statistic) as synthpop computes them, so values below about 1e-16 read 0.
struct LackOfFit {
  double statistic = std::numeric_limits<double>::quiet_NaN();
  double df = std::numeric_limits<double>::quiet_NaN();
  double df2 = std::numeric_limits<double>::quiet_NaN();  // F's denominator (incomplete only)
  double p_value = std::numeric_limits<double>::quiet_NaN();
  std::string note;  // why there is no test, "" when there is one
};
// replicate_estimates: m × p, row r = replicate r's coefficients.
LackOfFit synthpop_lack_of_fit(const Eigen::VectorXd& difference,
                               const Eigen::MatrixXd& confidential_covariance,
                               const Eigen::MatrixXd& replicate_estimates,
                               const SynthpopSetting& setting);
// Moore–Penrose pseudo-inverse with MASS::ginv's tolerance.
Eigen::MatrixXd pseudo_inverse(const Eigen::MatrixXd& a);

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
