#pragma once
// Design-weighted estimates with design-consistent standard errors for a one-stage sample drawn
// with replacement and sampling weights w (R's survey package, Lumley 2004, with the design
// svydesign(ids = ~1, weights = ~w)). Variances come from Taylor linearisation (Binder 1983): an
// estimate's influence values z_i give V = n/(n − 1) Σ (z_i − z̄)², n the rows of the design.
//
// Missing values (NaN) are handled as R's na.rm = TRUE does: the row stays in the design with
// weight 0. Rows of weight 0 count in n and in the centring of the influence values (a domain
// estimate, as svymean and svytotal) but carry no estimate; quantiles and the degrees of freedom
// of their intervals leave them out, as survey does.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/eigen_dense.hpp"
#include "stats/glm.hpp"
#include "stats/survey_design.hpp"

namespace synthaudit::stats {

struct SurveyEstimate {
  double estimate = 0.0;
  double se = 0.0;    // NaN when fewer than 2 rows
  std::size_t n = 0;  // non-missing values
  // Design effect (Kish 1965) as svymean/svytotal(deff = TRUE): the variance over that of a
  // simple random sample without replacement of the same size from a population of Σw,
  // svyvar(x)·(Σw − n)/(Σw·n) for a mean (times (Σw)² for a total), n the rows with x present (of
  // positive weight, for linearisation designs), Σw over them. NaN when Σw ≤ n.
  double deff = 0.0;
};

// Weighted mean Σwx/Σw (svymean; a proportion is the mean of a 0/1 indicator). NaN estimate when
// no row with positive weight remains.
SurveyEstimate survey_mean(std::span<const double> x, std::span<const double> w);
// Weighted total Σwx (svytotal).
SurveyEstimate survey_total(std::span<const double> x, std::span<const double> w);
// The same under a declared design (survey_design.hpp): its weights give the estimate, its
// strata, clusters and finite-population correction (linearisation) or its replicate weights
// (the estimate recomputed per replicate) the standard error. x has one value per design row.
SurveyEstimate survey_mean(std::span<const double> x, const SurveyDesign& design);
SurveyEstimate survey_total(std::span<const double> x, const SurveyDesign& design);

// Design-weighted second moments of the rows where x (and y) are present, as
// survey::svyvar(~x + y, subset(design, !is.na(x) & !is.na(y))): with m the rows of positive
// weight among them, var = m/(m − 1)·Σw(x − x̄)²/Σw and cov = m/(m − 1)·Σw(x − x̄)(y − ȳ)/Σw
// (x̄, ȳ the weighted means over the same rows); correlation = cov/√(var_x var_y). Equal weights
// give the sample variance and covariance (divisor m − 1). NaN where m < 2 (correlation: also a
// zero variance). Also the weighted central moments Σw(x − x̄)^k/Σw (k = 2, 3, 4) of x, for the
// weighted skewness and kurtosis (1/Σw, no m/(m − 1)).
struct SurveyMoments {
  std::size_t n = 0;  // rows with the values present and positive weight
  double mean_x = 0, mean_y = 0;
  double variance_x = 0, variance_y = 0, covariance = 0, correlation = 0;
  double central2 = 0, central3 = 0, central4 = 0;  // of x
};
SurveyMoments survey_moments(std::span<const double> x, std::span<const double> w);
SurveyMoments survey_moments(std::span<const double> x, std::span<const double> y,
                             std::span<const double> w);

// Weighted mid-ranks of x among the rows where x (and `mask`, unless empty) are present and the
// weight is positive: a value's rank is the weight of the rows with a smaller value plus half the
// weight of the rows tied with it (the estimated population count below it plus half its own), NaN
// elsewhere. Integer weights give the average ranks of the data with each row repeated its
// weight's times, less ½, so correlations of them equal those of the repeated data.
std::vector<double> weighted_mid_ranks(std::span<const double> x, std::span<const double> w,
                                       std::span<const double> mask = {});

// The rows where x is present and the weight positive, sorted by x (stable): computed once per
// column, it lets every pair rank x by one pass instead of a sort.
std::vector<std::uint32_t> weighted_rank_order(std::span<const double> x,
                                               std::span<const double> w);
// weighted_mid_ranks from that order.
std::vector<double> weighted_mid_ranks(std::span<const double> x, std::span<const double> w,
                                       const std::vector<std::uint32_t>& order,
                                       std::span<const double> mask = {});

// Design-weighted Spearman correlation over the pairwise-complete rows of positive weight: the
// weighted Pearson correlation (survey_moments) of the weighted mid-ranks of x and y. Equal
// weights give the ordinary Spearman correlation. NaN with fewer than two rows or a constant
// column. The second form takes the columns' weighted_rank_order.
double survey_spearman(std::span<const double> x, std::span<const double> y,
                       std::span<const double> w);
double survey_spearman(std::span<const double> x, std::span<const double> y,
                       std::span<const double> w, const std::vector<std::uint32_t>& order_x,
                       const std::vector<std::uint32_t>& order_y);

// Weighted quantile of probability p by survey's qrule "hf7": with the rows of positive weight
// sorted by value and cumulative weights C_k, the value at plotting position 0 for the first, and
// C_{k−1}/C_{n−1} for the k-th, interpolated linearly in p. With equal weights this is
// quantile(type = 7) (Hyndman & Fan 1996). NaN when no row has positive weight.
double weighted_quantile_hf7(std::span<const double> x, std::span<const double> w, double p);

// The quantile with its Woodruff (1952) interval as survey::svyquantile(interval.type = "mean",
// qrule = "hf7"): p̂ = weighted share of values ≤ q̂ with its linearised SE s, the interval
// p̂ ± t_{df}(1 − α/2)·s mapped back through the quantile function, df = rows of positive weight
// − 1, and SE = (upper − lower)/(2·t_{df}(1 − α/2)). A bound whose probability falls outside
// [0, 1] is NaN, and so is the SE then.
struct SurveyQuantile {
  double estimate = 0.0, se = 0.0, lower = 0.0, upper = 0.0;
  std::size_t n = 0;
};
SurveyQuantile survey_quantile(std::span<const double> x, std::span<const double> w, double p,
                               double alpha = 0.05);
// Under a declared design: p̂'s SE is the design's (svymean of the indicator), and df = the
// design's degrees of freedom among the rows where x is present (survey's degf of the na.rm
// subset; replicate designs: the rank of their weights − 1), as svyquantile.
SurveyQuantile survey_quantile(std::span<const double> x, const SurveyDesign& design, double p,
                               double alpha = 0.05);

// A weighted regression fit as survey::svyglm: coefficients of the weighted (quasi-)likelihood
// and the sandwich covariance A⁻¹ B A⁻¹, A = X'WX (W the working weights), B = n/(n − 1) Σ
// (u_i − ū)(u_i − ū)' with u_i = w_i x_i r_i the score contributions (r_i the response residual,
// canonical links). x holds the complete cases; `design_rows` is the number of rows of the design
// they came from (rows dropped for a missing value count in n with a zero score, as svyglm's
// design does; 0 = x.rows()). Weights are rescaled to mean 1 as svyglm does.
struct SurveyRegressionFit {
  Eigen::VectorXd beta, se;  // empty when the design is singular, separated or not converged
  Eigen::MatrixXd covariance;
  bool converged = false;
  bool separation = false;
  int iterations = 0;
  std::vector<std::size_t> aliased;  // singular design: the aliased columns (see GramFactor)
  std::vector<std::vector<std::size_t>> alias_of;
};
// Gaussian family, identity link (svyglm(family = gaussian())).
SurveyRegressionFit survey_lm(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                              const Eigen::VectorXd& w, std::size_t design_rows = 0);
// Binomial family, logit link (svyglm(family = quasibinomial())); y must be 0/1. Converged to a
// relative deviance change of 1e-12 (R's default 1e-8 is too loose to agree to 1e-6).
SurveyRegressionFit survey_logit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                 const Eigen::VectorXd& w, std::size_t design_rows = 0);
// Any family and link of fit_glm (src/stats/glm.hpp) as svyglm with family = quasibinomial(link
// = "probit"), quasibinomial(link = "cloglog"), quasipoisson() (poisson() gives the same
// coefficients and covariance) or gaussian(): score contributions u_i = w_i x_i (y_i − μ_i)
// μ'(η_i)/V(μ_i), bread the unscaled (X'WX)⁻¹ of the weighted fit.
SurveyRegressionFit survey_glm(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                               const Eigen::VectorXd& w, GlmFamily family, GlmLink link,
                               std::size_t design_rows = 0);
// The same fits under a declared design: row k of x is design row rows[k] (its weight the
// design's). Linearisation designs: the meat B is the design's variance of the score
// contributions (svyglm's svy.varcoef, survey's svyrecvar). Replicate designs: the fit is redone
// with each replicate's weights and the covariance is svrVar of the coefficients
// (svyglm.svyrep.design).
SurveyRegressionFit survey_glm(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                               const SurveyDesign& design, std::span<const std::size_t> rows,
                               GlmFamily family, GlmLink link);

}  // namespace synthaudit::stats
