// Propensity-score discrimination with a classification tree (synthpop utility.gen,
// method cart with rpart).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/threads.hpp"
#include "metrics/metric.hpp"
#include "metrics/propensity/propensity_common.hpp"
#include "metrics/references.hpp"
#include "stats/cart.hpp"

namespace synthaudit {

namespace {

MetricResult compute_propensity_cart(const MetricInput& in, const Params& params) {
  MetricResult result;
  const auto data = propensity::stack_tables(in.confidential, in.first_synthetic(),
                                             params.get_string_list("columns"));
  if (data.n_conf == 0 || data.n_syn == 0)
    throw MetricNotApplicable("propensity_cart needs rows in both datasets");
  if (data.features.empty())
    throw MetricNotApplicable("propensity_cart: no column has two or more distinct values");
  for (const auto& name : data.dropped)
    result.warnings.push_back("column '" + name +
                              "' has at most one distinct value in both datasets and is left out");
  stats::CartOptions options;
  options.cp = params.get_double("cp");
  options.minbucket = static_cast<std::size_t>(params.get_int("minbucket"));
  options.minsplit = 3 * options.minbucket;
  const auto max_bins = static_cast<std::uint32_t>(params.get_int("max_bins"));
  if (max_bins == 1)
    throw InputError(
        "propensity_cart: parameter max_bins must be 0 (every distinct value is a candidate "
        "split) or at least 2, got 1");
  const auto binned = stats::bin_features(data.features, max_bins);
  for (const auto& f : binned.features)
    if (!f.exact)
      result.warnings.push_back("column '" + f.name +
                                "' has more than max_bins distinct values; split points are "
                                "searched among " +
                                std::to_string(f.bins) +
                                " quantile bins, so the tree is not rpart's (max_bins = 0 is "
                                "exact)");
  const auto tree = stats::fit_cart(binned, data.t, options);
  // Refits (null, folds) need no importance, so no surrogate splits.
  stats::CartOptions refit_options = options;
  refit_options.max_surrogates = 0;
  const auto scores = stats::predict_cart(tree, binned);
  const auto s = stats::summarise_discrimination(scores, data.t, data.c);
  propensity::add_measures(result, s, "");

  // Null by refits (propensity_common.hpp says which and how they scale).
  const auto method = propensity::null_method(params);
  const std::size_t refits = propensity::null_refits(params);
  if (refits > 0) {
    std::vector<double> refit_pmse(refits);
    std::vector<int> refit_splits(refits);
#pragma omp parallel for schedule(dynamic, 1) num_threads(parallel_threads())
    for (std::size_t k = 0; k < refits; ++k) {
      stats::CartTree refit;
      if (method == propensity::NullMethod::kPermutation) {
        refit =
            stats::fit_cart(binned, propensity::permuted_labels(data.t, in.seed, k), refit_options);
      } else {
        const auto boot = propensity::bootstrap_stack(data, in.seed, k);
        refit =
            stats::fit_cart(stats::bin_features(boot.features, max_bins), boot.t, refit_options);
      }
      refit_pmse[k] = stats::in_sample_pmse(refit, data.c);
      refit_splits[k] = refit.splits;
    }
    propensity::add_null_ratio(result, s.pmse, method, refit_pmse);
    result.add("refits_without_split", "all",
               static_cast<double>(std::count(refit_splits.begin(), refit_splits.end(), 0)));
  }
  result.add("leaves", "all", tree.leaves());
  double total_importance = 0.0;
  for (double v : tree.importance) total_importance += v;
  for (std::size_t f = 0; f < tree.importance.size(); ++f)
    result.add("importance", binned.features[f].name,
               total_importance > 0 ? 100.0 * tree.importance[f] / total_importance : 0.0);
  propensity::add_plots(result, scores, data.t, "CART", "");
  {
    auto bars =
        make_plot("bars", "Which columns give the synthesis away (CART split importance, %)",
                  "column", "share");
    for (std::size_t f = 0; f < tree.importance.size(); ++f)
      bars["data"].push_back(
          {{"level", binned.features[f].name},
           {"dataset", "synthetic"},
           {"share", total_importance > 0 ? tree.importance[f] / total_importance : 0.0}});
    result.details["plots"].push_back(bars);
  }

  const auto rounds = propensity::validation_rounds(data.t, params, in.seed);
  if (!rounds.empty()) {
    std::vector<double> oos(data.t.size(), std::nan(""));
    for (const auto& round : rounds) {
      const auto ftree = stats::fit_cart(binned, data.t, refit_options, round.train);
      const auto p = stats::predict_cart(ftree, binned, round.test);
      for (std::size_t k = 0; k < round.test.size(); ++k) oos[round.test[k]] = p[k];
    }
    propensity::add_out_of_sample(result, oos, data.t, data.c, "CART", rounds);
  }
  return result;
}

}  // namespace

MetricSpec propensity_cart_metric() {
  auto params = std::vector<ParamSpec>{
      {.name = "cp",
       .type = ParamType::kDouble,
       .default_value = 1e-3,
       .doc = "rpart complexity parameter: a split is kept only if it lowers the misclassification "
              "risk by more than cp × root risk per split",
       .min = 0.0,
       .max = 1.0},
      {.name = "minbucket",
       .type = ParamType::kInt,
       .default_value = std::int64_t{5},
       .doc = "minimum records in a leaf (minsplit = 3 × minbucket, as rpart)",
       .min = 1,
       .max = 1000000},
      {.name = "max_bins",
       .type = ParamType::kInt,
       .default_value = std::int64_t{0},
       .doc = "0: every distinct value of a numeric column is a candidate split, as rpart (exact); "
              "≥ 2: numeric columns with more distinct values are cut into this many quantile "
              "bins, a speed option that no longer reproduces rpart",
       .min = 0,
       .max = 65536},
  };
  for (auto& p : propensity::null_params("permutation", {"permutation", "bootstrap", "none"}))
    params.push_back(std::move(p));
  for (auto& p : propensity::validation_params("kfold")) params.push_back(std::move(p));
  auto statistics = propensity::common_statistics();
  statistics.push_back({"refits_without_split",
                        "null refits whose tree has no split",
                        std::nullopt,
                        {ScopeKind::kAll}});
  statistics.push_back({"leaves", "leaves of the fitted tree", std::nullopt, {ScopeKind::kAll}});
  statistics.push_back({"importance",
                        "the column's share (%) of rpart's variable importance, surrogates "
                        "included: which columns give the synthetic records away",
                        std::nullopt,
                        {ScopeKind::kFeature}});
  auto works = propensity::common_references();
  works.push_back(
      references::cite(references::breiman_1984(), "CART: Gini splits, cost-complexity"));
  works.push_back(references::cite(references::rpart_software(),
                                   "trees, propensities and variable importance reproduced"));
  works.push_back(references::cite(references::synthpop_software(),
                                   "utility.gen(method = \"cart\") reproduced on SD2011"));
  return MetricSpec{
      .name = "propensity_cart",
      .family = MetricFamily::kPropensity,
      .summary =
          "Can a classification tree tell synthetic from confidential records? pMSE, S_pMSE, "
          "SPECKS, AUC, importance",
      .doc =
          "Stack confidential (t = 0) and synthetic (t = 1) records (prepared as in "
          "propensity_logistic), c = n_syn / N, and fit a CART classification tree with rpart's "
          "rules (Gini splits, minbucket, minsplit = 3·minbucket, cp pruning as rpart's "
          "partition.c). pMSE = Σ(p̂ − c)²/N over the leaf propensities. Null (`null`): `nperms` "
          "label permutations (default); as synthpop, each permuted pMSE is halved and S_pMSE = "
          "pMSE / mean(halved permuted pMSE) (S_pMSE_independent = pMSE / mean(permuted pMSE), "
          "without that factor 2: ≈ 1 when the synthetic data are an independent sample of the "
          "same population); or `nboot` bootstrap refits, the synthetic records replaced by draws "
          "with replacement from the confidential records (a correct synthesis), S_pMSE = pMSE / "
          "mean bootstrap pMSE. refits_without_split counts null trees with no split. SPECKS, "
          "PO50, U, "
          "AUC, detection_score as in propensity_logistic; `importance` per column = its share "
          "(%) of rpart's variable importance: the Gini improvement of the splits it makes plus, "
          "where it is one of a split's 5 best surrogates, that improvement times the surrogate's "
          "adjusted agreement (so a column that could stand in for a chosen one gets credit too). "
          "Out-of-sample versions (suffix _oos) by k-fold cross-validation "
          "by default, because a tree memorises its training records.",
      .params = std::move(params),
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "S_pMSE",
                     .ideal = Ideal::at(1.0, TargetScale::kRatio),
                     .reading = "pMSE ratio of a CART propensity model against label permutations "
                                "(about 1 = indistinguishable)",
                     .baseline =
                         Baseline::analytic(1.0, "",
                                            "the pMSE ratio is scaled by its permutation null, so "
                                            "data from the same distribution score 1"),
                     .unit = Unit::kNumber},
                    {.statistic = "AUC_oos",
                     .ideal = Ideal::at(0.5),
                     .reading = "cross-validated AUC of a tree telling synthetic from real (0.5 = "
                                "indistinguishable)",
                     .baseline = Baseline::analytic(
                         0.5, "",
                         "a classifier that cannot tell synthetic from real scores an AUC of 0.5"),
                     .unit = Unit::kNumber}},
      .compute = compute_propensity_cart,
      .statistics = std::move(statistics),
      .references = std::move(works),
  };
}

}  // namespace synthaudit
