// Propensity-score discrimination with gradient-boosted trees (libxgboost).
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "core/random.hpp"
#include "metrics/metric.hpp"
#include "metrics/propensity/propensity_common.hpp"
#include "metrics/references.hpp"
#include "stats/boosted_trees.hpp"

namespace synthaudit {

namespace {

MetricResult compute_propensity_boosted(const MetricInput& in, const Params& params) {
  MetricResult result;
  const auto data = propensity::stack_tables(in.confidential, in.first_synthetic(),
                                             params.get_string_list("columns"));
  if (data.n_conf == 0 || data.n_syn == 0)
    throw MetricNotApplicable("propensity_boosted_trees needs rows in both datasets");
  if (data.features.empty())
    throw MetricNotApplicable(
        "propensity_boosted_trees: no column has two or more distinct values");
  for (const auto& name : data.dropped)
    result.warnings.push_back("column '" + name +
                              "' has at most one distinct value in both datasets and is left out");
  stats::BoostOptions options;
  options.rounds = static_cast<int>(params.get_int("rounds"));
  options.max_depth = static_cast<int>(params.get_int("max_depth"));
  options.eta = params.get_double("eta");
  options.threads = static_cast<int>(params.get_int("xgboost_threads"));
  options.seed = in.seed;
  const stats::BoostData matrix(data.features);
  const auto fit = stats::fit_predict_boosted(matrix, data.t, options);
  const auto s = stats::summarise_discrimination(fit.predictions, data.t, data.c);
  propensity::add_measures(result, s, "");

  // Null by refits (propensity_common.hpp says which and how they scale); xgboost runs its own
  // threads, so the refits run in turn.
  const auto method = propensity::null_method(params);
  const std::size_t refits = propensity::null_refits(params);
  if (refits > 0) {
    std::vector<double> refit_pmse(refits);
    for (std::size_t k = 0; k < refits; ++k) {
      if (method == propensity::NullMethod::kPermutation) {
        const auto labels = propensity::permuted_labels(data.t, in.seed, k);
        refit_pmse[k] =
            stats::pmse(stats::fit_predict_boosted(matrix, labels, options).predictions, data.c);
      } else {
        const auto boot = propensity::bootstrap_stack(data, in.seed, k);
        refit_pmse[k] =
            stats::pmse(stats::fit_predict_boosted(stats::BoostData(boot.features), boot.t, options)
                            .predictions,
                        data.c);
      }
    }
    propensity::add_null_ratio(result, s.pmse, method, refit_pmse);
  }
  double total = std::accumulate(fit.importance.begin(), fit.importance.end(), 0.0);
  for (std::size_t f = 0; f < fit.importance.size(); ++f)
    result.add("importance", data.features[f].name,
               total > 0 ? 100.0 * fit.importance[f] / total : 0.0);
  propensity::add_plots(result, fit.predictions, data.t, "boosted trees", "");
  {
    auto bars = make_plot(
        "bars", "Which columns give the synthesis away (boosted trees, share of total gain)",
        "column", "share");
    for (std::size_t f = 0; f < fit.importance.size(); ++f)
      bars["data"].push_back({{"level", data.features[f].name},
                              {"dataset", "synthetic"},
                              {"share", total > 0 ? fit.importance[f] / total : 0.0}});
    result.details["plots"].push_back(bars);
  }
  result.details["xgboost_version"] = stats::xgboost_version();

  const auto rounds = propensity::validation_rounds(data.t, params, in.seed);
  if (!rounds.empty()) {
    std::vector<double> oos(data.t.size(), std::nan(""));
    for (const auto& round : rounds) {
      const auto f = stats::fit_predict_boosted(matrix, data.t, options, round.train, round.test);
      for (std::size_t k = 0; k < round.test.size(); ++k) oos[round.test[k]] = f.predictions[k];
    }
    propensity::add_out_of_sample(result, oos, data.t, data.c, "boosted trees", rounds);
  }
  return result;
}

}  // namespace

MetricSpec propensity_boosted_trees_metric() {
  auto params = std::vector<ParamSpec>{
      {.name = "rounds",
       .type = ParamType::kInt,
       .default_value = std::int64_t{100},
       .doc = "boosting rounds",
       .min = 1,
       .max = 10000},
      {.name = "max_depth",
       .type = ParamType::kInt,
       .default_value = std::int64_t{6},
       .doc = "depth of each tree",
       .min = 1,
       .max = 20},
      {.name = "eta",
       .type = ParamType::kDouble,
       .default_value = 0.3,
       .doc = "learning rate",
       .min = 1e-4,
       .max = 1.0},
      {.name = "xgboost_threads",
       .type = ParamType::kInt,
       .default_value = std::int64_t{4},
       .doc =
           "threads xgboost uses (fixed here, not taken from --threads, so results do not depend "
           "on the machine)",
       .min = 1,
       .max = 256},
  };
  for (auto& p : propensity::null_params("none", {"permutation", "bootstrap", "none"}))
    params.push_back(std::move(p));
  for (auto& p : propensity::validation_params("kfold")) params.push_back(std::move(p));
  auto statistics = propensity::common_statistics();
  statistics.push_back({"importance",
                        "the column's share (%) of the total split gain",
                        std::nullopt,
                        {ScopeKind::kFeature}});
  auto works = propensity::common_references();
  works.push_back(references::cite(references::chen_guestrin_2016(),
                                   "gradient-boosted trees (libxgboost through its C API)"));
  return MetricSpec{
      .name = "propensity_boosted_trees",
      .family = MetricFamily::kPropensity,
      .summary =
          "Can gradient-boosted trees tell synthetic from confidential records? AUC, pMSE, SPECKS, "
          "importance",
      .doc =
          "Stack confidential (t = 0) and synthetic (t = 1) records (prepared as in "
          "propensity_logistic; categorical columns enter as their level codes), c = n_syn / N, "
          "and fit gradient-boosted trees with libxgboost (binary:logistic, hist, `rounds` = 100, "
          "`max_depth` = 6, `eta` = 0.3, min_child_weight 1, no subsampling, seed from the "
          "evaluation seed, `xgboost_threads` fixed). Boosting fits its training records very "
          "closely, so read the cross-validated statistics (suffix _oos, 5 folds by default): "
          "AUC_oos ≈ 0.5 means indistinguishable. pMSE, SPECKS, PO50, U, AUC, detection_score as "
          "in propensity_logistic; `null` = permutation or bootstrap adds S_pMSE from `nperms` "
          "label permutations (with synthpop's halving; S_pMSE_independent without it) or `nboot` "
          "bootstrap refits (as propensity_cart), each a full refit; `importance` per column = its "
          "share (%) of the total split gain.",
      .params = std::move(params),
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "AUC_oos",
                     .ideal = Ideal::at(0.5),
                     .reading = "cross-validated AUC of boosted trees telling synthetic from real "
                                "(0.5 = indistinguishable)",
                     .baseline = Baseline::analytic(
                         0.5, "",
                         "a classifier that cannot tell synthetic from real scores an AUC of 0.5"),
                     .unit = Unit::kNumber}},
      .compute = compute_propensity_boosted,
      .statistics = std::move(statistics),
      .references = std::move(works),
      .aggregate_details = {"xgboost_version"},
  };
}

}  // namespace synthaudit
