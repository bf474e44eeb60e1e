#pragma once
// Shared by the propensity-score metrics (propensity_logistic, propensity_cart,
// propensity_boosted_trees): stacking the confidential and one synthetic table the way synthpop's
// utility.gen prepares them, the logistic design, out-of-sample fold assignment, and the common
// measures and plot data. Not a metric itself.
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/metric.hpp"
#include "stats/cart.hpp"
#include "stats/discrimination.hpp"
#include "stats/eigen_dense.hpp"
#include "stats/logistic.hpp"

namespace synthaudit::propensity {

// The stacked data: synthetic rows first (t = 1), then confidential (t = 0), as synthpop's
// rbind(syndata, data). Predictors follow utility.gen: columns with at most one distinct
// non-missing value in both datasets are dropped; categorical columns keep the levels present in
// the stacked data (sorted, R's factor order) plus a last level for missing; a numeric column with
// missing values gets missing set to 0 and an indicator `NAME_NA`, and one indicator `NAME_cna_k`
// per declared missing code k (the code's value set to 0). Indicators come after all columns.
struct Stacked {
  std::vector<stats::FeatureColumn> features;
  std::vector<std::uint8_t> t;
  std::size_t n_conf = 0, n_syn = 0;
  double c = 0.0;                    // n_syn / N
  std::vector<std::string> dropped;  // columns left out (constant or all missing)
};
// `columns`: the columns to use (synthpop's vars); empty = all. Unknown names are an InputError.
Stacked stack_tables(const Table& confidential, const Table& synthetic,
                     const std::vector<std::string>& columns = {});

// Number of logistic parameters for main effects plus interactions up to maxorder (synthpop's
// count: intercept + sum over every set of up to maxorder + 1 features of the product of their
// column counts).
std::size_t logistic_parameter_count(const Stacked& data, int maxorder);

// Design matrix (intercept first, then main effects, then interactions of order 2, 3, ... in
// lexicographic order of the features), treatment (dummy) coding against the first level. Stored
// by blocks: every term with a factor as one level code per row (a 240-level factor at 2M rows
// takes 8 MB instead of 3.8 GB), numeric terms densely.
stats::BlockedDesign logistic_design(const Stacked& data, int maxorder,
                                     std::vector<std::string>* names = nullptr);

// Fold of each row (0..folds-1), stratified by t, random with the seed.
std::vector<int> assign_folds(const std::vector<std::uint8_t>& t, int folds, std::uint64_t seed);
// Train (fold 1) / test (fold 0) split with test_share of each group in the test part.
std::vector<int> assign_split(const std::vector<std::uint8_t>& t, double test_share,
                              std::uint64_t seed);

// Adds pMSE, SPECKS, PO50, U, AUC and detection_score with a suffix ("" or "_oos").
void add_measures(MetricResult& result, const stats::DiscriminationSummary& s,
                  const std::string& suffix);

// Plots: propensity histogram by dataset and ROC curve.
void add_plots(MetricResult& result, const std::vector<double>& scores,
               const std::vector<std::uint8_t>& t, const std::string& model,
               const std::string& suffix);

// Row subsets for out-of-sample scoring: for each round, (train rows, test rows).
struct Round {
  std::vector<std::size_t> train, test;
};

// Out-of-sample scores: `scores[i]` is record i's score from the model fitted without it (NaN for
// records no round scored). Adds the measures with suffix "_oos" and their plots, and
// `detection_score_folds`: SDMetrics' LogisticDetection form, 1 − mean over rounds of
// (2·max(AUC of the round's test rows, 0.5) − 1).
void add_out_of_sample(MetricResult& result, const std::vector<double>& scores,
                       const std::vector<std::uint8_t>& t, double c, const std::string& model,
                       const std::vector<Round>& rounds);

// The null pMSE: what pMSE would be if nothing told the synthetic records apart, estimated by
// refitting the model on data made indistinguishable by construction.
//  - permutation (synthpop's resamp.method "perm"): t shuffled over the stacked records. The two
//    groups are then like two independent samples of one population, whose expected pMSE is
//    1/(1 − c) times the correct-synthesis null (about 2 for equal sizes); synthpop halves each
//    permuted pMSE for this, and so does S_pMSE here (S_pMSE_independent does not).
//  - bootstrap: the synthetic records replaced by n_syn draws with replacement from the
//    confidential records, i.e. a synthesis from the empirical distribution by a correct
//    synthesiser, the situation the analytic null (k − 1)(1 − c)²c/N describes; S_pMSE = pMSE /
//    mean bootstrap pMSE, no factor.
enum class NullMethod { kNone, kAnalytic, kPermutation, kBootstrap };
NullMethod null_method(const Params& params);
std::size_t null_refits(const Params& params);  // nperms or nboot, by the method
// Parameters null, nperms, nboot; `choices` lists the null methods the metric offers.
std::vector<ParamSpec> null_params(const std::string& default_null,
                                   const std::vector<std::string>& choices);
// Refit k's labels (permutation) or data (bootstrap); each refit has its own random stream, so
// refits can run in any order or in parallel.
std::vector<std::uint8_t> permuted_labels(const std::vector<std::uint8_t>& t, std::uint64_t seed,
                                          std::size_t k);
Stacked bootstrap_stack(const Stacked& data, std::uint64_t seed, std::size_t k);
// Adds S_pMSE, null_pMSE (and S_pMSE_independent for permutations) from the refits' pMSEs.
void add_null_ratio(MetricResult& result, double pmse, NullMethod method,
                    const std::vector<double>& refit_pmse);

// The statistics add_measures, add_out_of_sample and add_null_ratio emit, for every propensity
// metric's declaration, and the works all three follow.
std::vector<StatisticSpec> common_statistics();
std::vector<Reference> common_references();

// The common parameters: columns, and out-of-sample evaluation.
std::vector<ParamSpec> validation_params(const std::string& default_validation);

std::vector<Round> validation_rounds(const std::vector<std::uint8_t>& t, const Params& params,
                                     std::uint64_t seed);

}  // namespace synthaudit::propensity
