#pragma once
// Complex sampling designs as R's survey package declares them (Lumley 2004, "Analysis of complex
// survey samples", JSS 9(8); Lumley 2010, "Complex Surveys: A Guide to Analysis Using R"), and the
// variance of an estimate under them:
//
// - Linearisation designs, svydesign(ids = ~psu, strata = ~stratum, fpc = ~fpc, weights = ~w,
//   nest =): a stratified sample of primary sampling units (PSUs). The variance of an estimate
//   whose influence values are z_i is Σ_h f_h n_h/(n_h − 1) Σ_i (t_hi − t̄_h)², t_hi the total of
//   z over PSU i of stratum h, n_h the stratum's PSUs and f_h = (N_h − n_h)/N_h its finite
//   population correction (1 when drawn with replacement) — survey's onestage(), Binder (1983)'s
//   linearisation. Only the first stage enters (the "ultimate cluster" estimator, Hansen, Hurwitz
//   & Madow 1953), which is survey's answer whenever no finite-population correction is given.
//   Strata with one PSU follow survey's options(survey.lonely.psu =).
//   Weights alone (no strata, no clusters) are svydesign(ids = ~1, weights = ~w): each row its
//   own PSU in one stratum, V = n/(n − 1) Σ (z_i − z̄)².
//
// - Replicate-weight designs, svrepdesign(repweights =, weights = ~w, type =, combined.weights =
//   TRUE): the estimate is recomputed with each replicate's weights, θ_r, and V = scale Σ_r
//   rscales_r (θ_r − θ̄)², θ̄ the replicates' mean (or the full-sample estimate with mse = TRUE) —
//   survey's svrVar. The type gives scale and rscales as svrepdesign does: BRR 1/R; Fay 1/(R(1 −
//   ρ)²) (Judkins 1990); JK1 (R − 1)/R; JKn 1 with rscales (n_h − 1)/n_h given; bootstrap 1/(R −
//   1); other: both given.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stats/eigen_dense.hpp"
#include "stats/survey_design_spec.hpp"
#include "table/table.hpp"

namespace synthaudit::stats {

// The replicate-weight columns of `table`, in the declaration's order: a name with * matches
// every column it fits (in table order), as svrepdesign's repweights = "pattern". InputError for a
// name or pattern that matches no column.
std::vector<std::size_t> replicate_weight_columns(const SurveyDesignSpec& spec, const Table& table);
// Every column of `table` the declaration names (design variables, not data).
std::vector<std::size_t> design_columns(const SurveyDesignSpec& spec, const Table& table);

// A design bound to the rows of one table.
class SurveyDesign {
 public:
  // svydesign(ids = ~1, weights = ~w): each row its own PSU, one stratum, with replacement.
  static SurveyDesign simple(std::span<const double> weights);
  // The declared design on `table` with `weights` (one per row). Throws InputError naming the
  // table's source, the column and the row for a missing stratum or cluster label, an fpc that is
  // not constant within a stratum or smaller than the stratum's PSUs, clusters not nested in
  // strata (nest = false), a lonely PSU under lonely_psu = fail, or an unusable replicate weight.
  static SurveyDesign declared(const SurveyDesignSpec& spec, const Table& table,
                               std::span<const double> weights);

  std::size_t rows() const { return weights_.size(); }
  std::span<const double> weights() const { return weights_; }
  bool replicated() const { return !replicates_.empty(); }
  std::size_t replicate_count() const { return replicates_.size(); }
  std::span<const double> replicate_weights(std::size_t r) const { return replicates_[r]; }

  // Variance of an estimate with influence values z (one per design row).
  double linearised_variance(std::span<const double> z) const;
  // Covariance of an estimate with influence values u (row k belongs to design row rows[k]; the
  // other rows contribute zero; rows empty: u has one row per design row).
  Eigen::MatrixXd linearised_variance(const Eigen::MatrixXd& u,
                                      std::span<const std::size_t> rows = {}) const;
  // svrVar: the covariance of an estimate from its replicates (one row per replicate) and its
  // full-sample value.
  Eigen::MatrixXd replicate_variance(const Eigen::MatrixXd& replicates,
                                     const Eigen::VectorXd& full) const;
  double replicate_variance(std::span<const double> replicates, double full) const;

  // survey's degf(): first-stage PSUs minus strata among the rows with positive weight for which
  // `present` is true (empty: all rows); for replicate designs the rank of the replicate weights
  // minus 1.
  double degrees_of_freedom(const std::function<bool(std::size_t)>& present = {}) const;

  // A description for results: "stratified cluster sample (23 strata, 47 PSUs), ...".
  std::string describe() const;

 private:
  std::vector<double> weights_;
  // Linearisation: per row its stratum (dense) and first-stage PSU (dense, unique across strata);
  // empty psu_: each row its own PSU.
  std::vector<std::uint32_t> stratum_, psu_;
  std::size_t strata_ = 1, psus_ = 0;
  std::vector<double> correction_;         // per stratum: f_h = (N_h − n_h)/N_h, or 1
  std::vector<std::size_t> stratum_psus_;  // per stratum: n_h
  LonelyPsu lonely_ = LonelyPsu::kFail;
  // Replicates.
  std::vector<std::vector<double>> replicates_;
  double scale_ = 1.0;
  std::vector<double> rscales_;
  bool mse_ = false;
  mutable std::optional<double> replicate_df_;  // the rank's QR, computed when first asked
};

}  // namespace synthaudit::stats
