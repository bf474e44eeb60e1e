// Propensity-score discrimination with a logistic model (synthpop utility.gen, method logit).
// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 kernels
// (_mm512_extractf64x4_pd) when built with -march=native; nothing here is uninitialised.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <cmath>

#include "core/error.hpp"
#include "core/threads.hpp"
#include "metrics/metric.hpp"
#include "metrics/propensity/propensity_common.hpp"
#include "metrics/references.hpp"
#include "stats/logistic.hpp"

namespace synthaudit {

namespace {

std::vector<double> predict_rows(const stats::BlockedDesign& X, const Eigen::VectorXd& coef,
                                 const std::vector<std::size_t>& rows) {
  std::vector<double> out(rows.size());
  Eigen::VectorXd beta = coef;
  for (Eigen::Index j = 0; j < beta.size(); ++j)
    if (std::isnan(beta[j])) beta[j] = 0.0;  // aliased columns contribute nothing
#pragma omp parallel for schedule(static) if (rows.size() > 50000) num_threads(parallel_threads())
  for (std::size_t k = 0; k < rows.size(); ++k)
    out[k] = 1.0 / (1.0 + std::exp(-X.row_dot(rows[k], beta)));
  return out;
}

MetricResult compute_propensity_logistic(const MetricInput& in, const Params& params) {
  MetricResult result;
  const auto data = propensity::stack_tables(in.confidential, in.first_synthetic(),
                                             params.get_string_list("columns"));
  if (data.n_conf == 0 || data.n_syn == 0)
    throw MetricNotApplicable("propensity_logistic needs rows in both datasets");
  if (data.features.empty())
    throw MetricNotApplicable("propensity_logistic: no column has two or more distinct values");
  for (const auto& name : data.dropped)
    result.warnings.push_back("column '" + name +
                              "' has at most one distinct value in both datasets and is left out");
  int maxorder = static_cast<int>(params.get_int("maxorder"));
  const int nf = static_cast<int>(data.features.size());
  if (maxorder >= nf) {
    result.warnings.push_back("maxorder " + std::to_string(maxorder) + " reduced to " +
                              std::to_string(nf - 1) + " (only " + std::to_string(nf) +
                              " predictors)");
    maxorder = nf - 1;
  }
  const std::size_t nparams = propensity::logistic_parameter_count(data, maxorder);
  const auto max_params = static_cast<std::size_t>(params.get_int("max_params"));
  if (nparams > max_params)
    throw MetricNotApplicable("propensity_logistic: the model with maxorder " +
                              std::to_string(maxorder) + " has " + std::to_string(nparams) +
                              " parameters, more than max_params = " + std::to_string(max_params) +
                              "; lower maxorder or raise max_params");
  std::vector<std::string> names;
  const stats::BlockedDesign X = propensity::logistic_design(data, maxorder, &names);
  Eigen::VectorXd y(static_cast<Eigen::Index>(data.t.size()));
  for (std::size_t i = 0; i < data.t.size(); ++i) y[static_cast<Eigen::Index>(i)] = data.t[i];
  stats::LogisticOptions options;
  options.max_iterations = static_cast<int>(params.get_int("max_iterations"));
  options.tolerance = params.get_double("tolerance");
  const auto fit = stats::fit_logistic(X, y, options);
  if (!fit.converged)
    result.warnings.push_back("logistic IRLS did not converge in " +
                              std::to_string(options.max_iterations) + " iterations");
  if (fit.separation)
    result.warnings.push_back(
        std::to_string(fit.separated_rows) +
        " record(s) have fitted propensity 0 or 1 (separation): some combinations of "
        "values occur in one dataset only");
  std::vector<double> scores(fit.fitted.data(), fit.fitted.data() + fit.fitted.size());
  const auto s = stats::summarise_discrimination(scores, data.t, data.c);
  const double n = static_cast<double>(data.t.size());
  const double df = fit.rank - 1;
  propensity::add_measures(result, s, "");
  const auto method = propensity::null_method(params);
  if (method == propensity::NullMethod::kAnalytic) {
    const double null_pmse = df * (1 - data.c) * (1 - data.c) * data.c / n;
    result.add("S_pMSE", "all", df > 0 ? s.pmse / null_pmse : std::nan(""));
    result.add("null_pMSE", "all", null_pmse);
    // Two independent samples of one population: E[pMSE] = (k − 1)c(1 − c)/N, 1/(1 − c) times
    // the correct-synthesis null above.
    result.add("S_pMSE_independent", "all",
               df > 0 ? s.pmse / (df * (1 - data.c) * data.c / n) : std::nan(""));
  } else if (method != propensity::NullMethod::kNone) {
    // Refits in turn: each IRLS fit already uses every thread for X'WX.
    const std::size_t refits = propensity::null_refits(params);
    std::vector<double> refit_pmse(refits);
    for (std::size_t k = 0; k < refits; ++k) {
      stats::LogisticFit refit;
      if (method == propensity::NullMethod::kPermutation) {
        const auto labels = propensity::permuted_labels(data.t, in.seed, k);
        Eigen::VectorXd yk(static_cast<Eigen::Index>(labels.size()));
        for (std::size_t i = 0; i < labels.size(); ++i)
          yk[static_cast<Eigen::Index>(i)] = labels[i];
        refit = stats::fit_logistic(X, yk, options);
      } else {
        const auto boot = propensity::bootstrap_stack(data, in.seed, k);
        refit = stats::fit_logistic(propensity::logistic_design(boot, maxorder), y, options);
      }
      const std::vector<double> p(refit.fitted.data(), refit.fitted.data() + refit.fitted.size());
      refit_pmse[k] = stats::pmse(p, data.c);
    }
    propensity::add_null_ratio(result, s.pmse, method, refit_pmse);
  }
  result.add("df", "all", df);
  result.add("parameters", "all", static_cast<double>(nparams));
  result.add("iterations", "all", fit.iterations);
  propensity::add_plots(result, scores, data.t, "logistic", "");

  auto coefs = nlohmann::json::array();
  for (std::size_t j = 0; j < names.size(); ++j) {
    const double b = fit.coefficients[static_cast<Eigen::Index>(j)];
    const double se = fit.standard_errors[static_cast<Eigen::Index>(j)];
    coefs.push_back(
        {{"term", names[j]},
         {"estimate", std::isfinite(b) ? nlohmann::json(b) : nlohmann::json(nullptr)},
         {"std_error", std::isfinite(se) ? nlohmann::json(se) : nlohmann::json(nullptr)}});
  }
  result.details["coefficients"] = coefs;
  result.details["aliased_terms"] =
      fit.rank < static_cast<int>(names.size()) ? static_cast<int>(names.size()) - fit.rank : 0;

  const auto rounds = propensity::validation_rounds(data.t, params, in.seed);
  if (!rounds.empty()) {
    std::vector<double> oos(data.t.size(), std::nan(""));
    for (const auto& round : rounds) {
      // The round's rows of the one design, not a copy of them.
      Eigen::VectorXd ytrain(static_cast<Eigen::Index>(round.train.size()));
      for (std::size_t k = 0; k < round.train.size(); ++k)
        ytrain[static_cast<Eigen::Index>(k)] = data.t[round.train[k]];
      const auto f = stats::fit_logistic(X, ytrain, options, round.train);
      const auto p = predict_rows(X, f.coefficients, round.test);
      for (std::size_t k = 0; k < round.test.size(); ++k) oos[round.test[k]] = p[k];
    }
    propensity::add_out_of_sample(result, oos, data.t, data.c, "logistic", rounds);
  }
  return result;
}

}  // namespace

MetricSpec propensity_logistic_metric() {
  auto params = std::vector<ParamSpec>{
      {.name = "maxorder",
       .type = ParamType::kInt,
       .default_value = std::int64_t{1},
       .doc = "highest interaction order: 0 = main effects, 1 = all two-way interactions (synthpop "
              "default)",
       .min = 0,
       .max = 4},
      {.name = "max_params",
       .type = ParamType::kInt,
       .default_value = std::int64_t{400},
       .doc = "refuse (not applicable) a model with more parameters than this",
       .min = 1,
       .max = 100000},
      {.name = "max_iterations",
       .type = ParamType::kInt,
       .default_value = std::int64_t{100},
       .doc = "IRLS iteration limit",
       .min = 1,
       .max = 10000},
      {.name = "tolerance",
       .type = ParamType::kDouble,
       .default_value = 1e-8,
       .doc = "IRLS stops when |dev − dev_old|/(|dev| + 0.1) < tolerance; 1e-8 is glm.fit's "
              "epsilon, so fits stop where synthpop's do",
       .min = 1e-15,
       .max = 1e-2},
  };
  for (auto& p :
       propensity::null_params("analytic", {"analytic", "permutation", "bootstrap", "none"}))
    params.push_back(std::move(p));
  for (auto& p : propensity::validation_params("none")) params.push_back(std::move(p));
  auto statistics = propensity::common_statistics();
  statistics.push_back({"df",
                        "estimated (non-aliased) coefficients other than the intercept",
                        std::nullopt,
                        {ScopeKind::kAll}});
  statistics.push_back({"parameters",
                        "coefficients of the model before aliased ones are dropped",
                        std::nullopt,
                        {ScopeKind::kAll}});
  statistics.push_back(
      {"iterations", "IRLS iterations of the fit", std::nullopt, {ScopeKind::kAll}});
  auto works = propensity::common_references();
  works.push_back(references::cite(references::synthpop_software(),
                                   "utility.gen(method = \"logit\") reproduced on SD2011"));
  works.push_back(references::cite(references::statsmodels_software(),
                                   "Logit coefficients, standard errors and fitted probabilities"));
  return MetricSpec{
      .name = "propensity_logistic",
      .family = MetricFamily::kPropensity,
      .summary =
          "Can a logistic model tell synthetic from confidential records? pMSE, S_pMSE, SPECKS, "
          "AUC",
      .doc =
          "Stack confidential (t = 0) and synthetic (t = 1) records, c = n_syn / N, and fit "
          "P(t = 1 | x) by logistic regression on main effects plus all interactions up to "
          "`maxorder` (dummy coding, an NA indicator per numeric column with missing values and "
          "one per declared missing code, as synthpop's utility.gen). pMSE = Σ(p̂ − c)²/N; its "
          "null expectation (k − 1)(1 − c)²c/N with k − 1 = df the number of estimated "
          "(non-aliased) coefficients other than the intercept; S_pMSE = pMSE / null (≈ 1 when "
          "the model cannot tell the datasets apart, larger is worse). `null` = permutation or "
          "bootstrap replaces the analytic null by refits, as in propensity_cart. SPECKS = KS "
          "distance "
          "between the two groups' propensities; PO50 = % correctly classified at 0.5 minus 50; "
          "U = Mann–Whitney U of the synthetic scores (R's wilcox.test W); AUC = U/(n0 n1); "
          "detection_score = 1 − (2·max(AUC, 0.5) − 1) (SDMetrics LogisticDetection style, 1 = "
          "indistinguishable). `validation` adds out-of-sample versions (suffix _oos) and "
          "detection_score_folds, SDMetrics' form averaged over the rounds (with validation "
          "kfold, folds 3 and maxorder 0, SDMetrics' LogisticDetection).",
      .params = std::move(params),
      .granularity = MetricGranularity::kPerReplicate,
      .headlines = {{.statistic = "S_pMSE",
                     .ideal = Ideal::at(1.0, TargetScale::kRatio),
                     .reading = "pMSE ratio of a logistic propensity model (about 1 = synthetic "
                                "indistinguishable from real)",
                     .baseline =
                         Baseline::analytic(1.0, "",
                                            "the pMSE ratio is scaled by its permutation null, so "
                                            "data from the same distribution score 1"),
                     .unit = Unit::kNumber}},
      .compute = compute_propensity_logistic,
      .statistics = std::move(statistics),
      .references = std::move(works),
      // Fitted coefficients of the propensity model and the terms it could not estimate.
      .aggregate_details = {"coefficients", "aliased_terms"},
  };
}

}  // namespace synthaudit
