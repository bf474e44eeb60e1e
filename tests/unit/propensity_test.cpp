// Propensity-score metrics (G12): logistic IRLS, CART, discrimination measures, and synthpop's
// utility.gen numbers on SD2011. Golden values: tests/golden/propensity/make_golden.py.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>

#include "core/error.hpp"
#include "core/random.hpp"
#include "engine/evaluate.hpp"
#include "metrics/propensity/propensity_common.hpp"
#include "sim/simulator.hpp"
#include "stats/cart.hpp"
#include "stats/discrimination.hpp"
#include "stats/logistic.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

const nlohmann::json& golden() {
  static const nlohmann::json j = [] {
    std::ifstream in(std::filesystem::path(__FILE__).parent_path() /
                     "../golden/propensity/golden.json");
    if (!in) throw std::runtime_error("golden.json not found");
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::vector<double> to_vec(const nlohmann::json& a) { return a.get<std::vector<double>>(); }

ReadSettings sd2011_settings() {
  ReadSettings s;
  s.missing_codes["income"] = {-8};
  return s;
}

}  // namespace

// statsmodels 0.13.5 Logit (Newton, tol 1e-14) on 400 rows, 6 parameters: 1e-6 absolute.
TEST(Logistic, MatchesStatsmodels) {
  const auto& g = golden()["logistic"];
  const auto rows = g["X"].get<std::vector<std::vector<double>>>();
  Eigen::MatrixXd X(static_cast<Eigen::Index>(rows.size()),
                    static_cast<Eigen::Index>(rows[0].size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      X(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  const auto yv = to_vec(g["y"]);
  const Eigen::VectorXd y =
      Eigen::Map<const Eigen::VectorXd>(yv.data(), static_cast<Eigen::Index>(yv.size()));
  stats::LogisticOptions options;
  options.tolerance = 1e-14;
  const auto fit = stats::fit_logistic(X, y, options);
  ASSERT_TRUE(fit.converged);
  EXPECT_EQ(fit.rank, 6);
  EXPECT_FALSE(fit.separation);
  const auto coef = to_vec(g["coef"]), se = to_vec(g["se"]), fitted = to_vec(g["fitted"]);
  for (std::size_t j = 0; j < coef.size(); ++j) {
    EXPECT_NEAR(fit.coefficients[static_cast<Eigen::Index>(j)], coef[j], 1e-6)
        << "coefficient " << j;
    EXPECT_NEAR(fit.standard_errors[static_cast<Eigen::Index>(j)], se[j], 1e-6)
        << "standard error " << j;
  }
  for (std::size_t i = 0; i < fitted.size(); ++i)
    EXPECT_NEAR(fit.fitted[static_cast<Eigen::Index>(i)], fitted[i], 1e-6);

  // An aliased (duplicated) column gets NaN and leaves the fitted probabilities unchanged.
  Eigen::MatrixXd X2(X.rows(), X.cols() + 1);
  X2 << X, X.col(1) * 2.0;
  const auto fit2 = stats::fit_logistic(X2, y, options);
  EXPECT_EQ(fit2.rank, 6);
  EXPECT_TRUE(fit2.aliased[6]);
  EXPECT_TRUE(std::isnan(fit2.coefficients[6]));
  for (Eigen::Index i = 0; i < X.rows(); ++i) EXPECT_NEAR(fit2.fitted[i], fit.fitted[i], 1e-9);
}

TEST(Logistic, FlagsSeparation) {
  Eigen::MatrixXd X(8, 2);
  Eigen::VectorXd y(8);
  for (int i = 0; i < 8; ++i) {
    X(i, 0) = 1;
    X(i, 1) = i;
    y[i] = i >= 4;
  }
  const auto fit = stats::fit_logistic(X, y);
  EXPECT_TRUE(fit.separation);
}

// sklearn roc_auc_score, scipy mannwhitneyu (U of the first sample) and ks_2samp on 700 scores
// with ties: 1e-12.
TEST(Discrimination, MatchesSklearnAndScipy) {
  const auto& g = golden()["discrimination"];
  const auto scores = to_vec(g["scores"]);
  std::vector<std::uint8_t> groups;
  for (int v : g["groups"].get<std::vector<int>>()) groups.push_back(static_cast<std::uint8_t>(v));
  const auto s = stats::summarise_discrimination(scores, groups, g["c"].get<double>());
  EXPECT_NEAR(s.auc, g["auc"].get<double>(), 1e-12);
  EXPECT_NEAR(s.u, g["u"].get<double>(), 1e-6);
  EXPECT_NEAR(s.ks, g["ks"].get<double>(), 1e-12);
  EXPECT_NEAR(s.pmse, g["pmse"].get<double>(), 1e-12);
  EXPECT_NEAR(s.po50, g["po50"].get<double>(), 1e-9);
  const auto roc = stats::roc_curve(scores, groups, 100000);
  // Trapezoid area under the ROC curve equals the AUC (ties give diagonal segments).
  double area = 0;
  for (std::size_t i = 1; i < roc.size(); ++i)
    area += (roc[i].fpr - roc[i - 1].fpr) * (roc[i].tpr + roc[i - 1].tpr) / 2;
  EXPECT_NEAR(area, s.auc, 1e-12);
}

// sklearn DecisionTreeClassifier (gini, min_samples_leaf 5, min_samples_split 15) on data whose
// every Gini split lowers the misclassification count, so rpart's cp = 0 tree is the same tree.
TEST(Cart, MatchesSklearnTree) {
  const auto& g = golden()["cart"];
  std::vector<stats::FeatureColumn> features;
  for (std::size_t f = 0; f < 4; ++f) {
    stats::FeatureColumn c;
    c.name = "z" + std::to_string(f + 1);
    c.values = to_vec(g["x"][f]);
    features.push_back(std::move(c));
  }
  std::vector<std::uint8_t> y;
  for (int v : g["y"].get<std::vector<int>>()) y.push_back(static_cast<std::uint8_t>(v));
  const auto binned = stats::bin_features(features);
  stats::CartOptions options;
  options.cp = 0;
  const auto tree = stats::fit_cart(binned, y, options);
  EXPECT_EQ(tree.nodes[0].feature, g["root_feature"].get<int>());
  // sklearn casts X to float32 before searching thresholds: agreement to float precision.
  EXPECT_NEAR(tree.nodes[0].threshold, g["root_threshold"].get<double>(), 1e-6);
  EXPECT_EQ(tree.leaves(), g["leaves"].get<int>());
  const auto p = stats::predict_cart(tree, binned);
  const auto expected = to_vec(g["fitted"]);
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i], expected[i], 1e-12) << "row " << i;
}

// Hand-built: x = 1..20, y = 1 only for x >= 18. With minbucket 5 no leaf may hold fewer than 5
// records, so the best admissible split is x <= 15 | x > 15 (right leaf 3/5), not 17.5.
TEST(Cart, HandBuiltSplitRespectsMinbucket) {
  stats::FeatureColumn x;
  x.name = "x";
  std::vector<std::uint8_t> y;
  for (int i = 1; i <= 20; ++i) {
    x.values.push_back(i);
    y.push_back(i >= 18);
  }
  const auto binned = stats::bin_features({x});
  const auto tree = stats::fit_cart(binned, y, {});
  ASSERT_EQ(tree.leaves(), 2);
  EXPECT_DOUBLE_EQ(tree.nodes[0].threshold, 15.5);
  const auto p = stats::predict_cart(tree, binned);
  EXPECT_DOUBLE_EQ(p[0], 0.0);
  EXPECT_DOUBLE_EQ(p[19], 0.6);
  // With minbucket 1 (minsplit 3) the split moves to the pure one.
  stats::CartOptions small;
  small.minbucket = 1;
  small.minsplit = 3;
  EXPECT_DOUBLE_EQ(stats::fit_cart(binned, y, small).nodes[0].threshold, 17.5);
  // cp: the split lowers the risk from 3 to 2 (by 1/3 of the root risk); cp = 0.5 forbids it.
  stats::CartOptions strict;
  strict.cp = 0.5;
  EXPECT_EQ(stats::fit_cart(binned, y, strict).leaves(), 1);
}

// Categorical predictor: levels a..d with class-1 shares 0, 0.1, 0.9, 1; the best two-group
// split is {a, b} | {c, d}.
TEST(Cart, CategoricalGroupsLevelsByRate) {
  stats::FeatureColumn g;
  g.name = "g";
  g.categorical = true;
  g.levels = 4;
  std::vector<std::uint8_t> y;
  const int ones[4] = {0, 1, 9, 10};
  for (std::uint32_t level = 0; level < 4; ++level)
    for (int i = 0; i < 10; ++i) {
      g.codes.push_back(level);
      y.push_back(i < ones[level]);
    }
  const auto binned = stats::bin_features({g});
  const auto tree = stats::fit_cart(binned, y, {});
  ASSERT_GE(tree.nodes.size(), 3u);
  const auto& left = tree.nodes[0].left_levels;
  ASSERT_EQ(left.size(), 4u);
  EXPECT_EQ(left[0], left[1]);
  EXPECT_EQ(left[2], left[3]);
  EXPECT_NE(left[0], left[2]);
}

// synthpop 1.9-3 utility.gen(syn, orig, method = "logit", maxorder = 0 | 1, cont.na = list(income
// = -8)) from ../shared/data/sd2011/ref_synthpop_orig_vs_syn.tsv. We stop IRLS with glm.fit's
// rule (epsilon 1e-8, same start), so the fits agree to ~1e-12 relative; tolerance 1e-9 relative.
TEST(PropensityLogistic, ReproducesSynthpopOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                             std::nullopt, sd2011_settings());
  const auto r0 = run_metric("propensity_logistic", t, {{"maxorder", 0}});
  EXPECT_NEAR(value_of(r0, "pMSE", "all"), 0.000377977063872736, 1e-9 * 0.000377977063872736);
  EXPECT_NEAR(value_of(r0, "S_pMSE", "all"), 1.25992354624245, 1e-9);
  EXPECT_NEAR(value_of(r0, "SPECKS", "all"), 0.036, 1e-12);
  EXPECT_NEAR(value_of(r0, "PO50", "all"), 1.28, 1e-9);
  EXPECT_NEAR(value_of(r0, "U", "all"), 12979554, 1e-6);
  EXPECT_EQ(value_of(r0, "df", "all"), 24);
  const auto r1 = run_metric("propensity_logistic", t, {{"maxorder", 1}});
  EXPECT_NEAR(value_of(r1, "pMSE", "all"), 0.00585784780939454, 1e-9 * 0.00585784780939454);
  EXPECT_NEAR(value_of(r1, "S_pMSE", "all"), 2.06443975661482, 1e-8);
  EXPECT_NEAR(value_of(r1, "SPECKS", "all"), 0.0942, 1e-12);
  EXPECT_NEAR(value_of(r1, "PO50", "all"), 4.59, 1e-9);
  EXPECT_NEAR(value_of(r1, "U", "all"), 14158478, 1e-6);
  EXPECT_EQ(value_of(r1, "df", "all"), 227);
}

// utility.gen(method = "cart") with rpart (cp 1e-3, minbucket 5): the tree is rpart's, so pMSE,
// SPECKS, PO50 and U agree to print precision. S_pMSE depends on 50 random permutations (R's RNG
// vs ours): synthpop got 1.923; the permutation mean has a standard error of a few percent, so we
// accept 15%.
TEST(PropensityCart, ReproducesSynthpopOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                             std::nullopt, sd2011_settings());
  const auto r = run_metric("propensity_cart", t, {{"validation", "none"}});
  EXPECT_NEAR(value_of(r, "pMSE", "all"), 0.00627991180279904, 1e-14);
  EXPECT_NEAR(value_of(r, "SPECKS", "all"), 0.1308, 1e-12);
  EXPECT_NEAR(value_of(r, "PO50", "all"), 6.54, 1e-9);
  EXPECT_NEAR(value_of(r, "U", "all"), 14640727.5, 1e-6);
  EXPECT_NEAR(value_of(r, "S_pMSE", "all"), 1.92324331278167, 0.15 * 1.92324331278167);
}

namespace {
// Records of numeric x1 ~ N(0,1), x2 ~ U(0,1) with 10% missing, and a 3-level factor g.
std::vector<std::string> null_records(Rng& rng, std::size_t n) {
  std::vector<std::string> rows;
  for (std::size_t i = 0; i < n; ++i) {
    std::ostringstream out;
    out << rng.normal() << ",";
    if (rng.uniform() < 0.1)
      out << "NA";
    else
      out << rng.uniform();
    out << ","
        << "abc"[rng.below(3)];
    rows.push_back(out.str());
  }
  return rows;
}
std::string to_csv(const std::vector<std::string>& rows) {
  std::string out = "x1,x2,g\n";
  for (const auto& r : rows) out += r + "\n";
  return out;
}
std::string null_sample(Rng& rng, std::size_t n) { return to_csv(null_records(rng, n)); }
}  // namespace

// The analytic null (k − 1)(1 − c)²c/N of Snoke et al. (2018) is the expectation when the
// synthetic data are drawn from the confidential data's fitted distribution (a correct synthesis).
// Simulated here as the simplest correct synthesis: n records drawn with replacement from the
// confidential records. Then S_pMSE averages 1. For two independent samples of one population the
// expectation is (k − 1)c(1 − c)/N instead, 1/(1 − c) = 2 times larger (which is why synthpop
// halves permuted pMSEs). df = 11 (x1, x2, x2_NA, two dummies and their two-way interactions, minus
// the aliased x2:x2_NA); S_pMSE ~ chi2_df/df has sd sqrt(2/11) = 0.43, so a mean of 200
// replications has sd 0.03 (0.06 for the independent case); we accept 4 sd. Fixed seed:
// deterministic.
TEST(PropensityLogistic, AnalyticNullHoldsForCorrectSynthesis) {
  Rng rng(12345);
  double correct = 0, independent = 0;
  const int reps = 200;
  const std::size_t n = 500;
  for (int r = 0; r < reps; ++r) {
    const auto conf = null_records(rng, n);
    std::vector<std::string> boot;
    for (std::size_t i = 0; i < n; ++i) boot.push_back(conf[rng.below(n)]);
    correct +=
        value_of(run_metric("propensity_logistic", make_tables(to_csv(conf), {to_csv(boot)})),
                 "S_pMSE", "all");
    independent += value_of(
        run_metric("propensity_logistic", make_tables(to_csv(conf), {null_sample(rng, n)})),
        "S_pMSE", "all");
  }
  std::cerr << "mean S_pMSE: correct synthesis " << correct / reps << ", independent "
            << independent / reps << "\n";
  EXPECT_NEAR(correct / reps, 1.0, 0.12) << "mean S_pMSE " << correct / reps;
  EXPECT_NEAR(independent / reps, 2.0, 0.24) << "mean S_pMSE " << independent / reps;
}

TEST(PropensityLogistic, RefusesTooManyParameters) {
  Rng rng(7);
  const auto t = make_tables(null_sample(rng, 50), {null_sample(rng, 50)});
  EXPECT_THROW(run_metric("propensity_logistic", t, {{"max_params", 5}}), MetricNotApplicable);
  EXPECT_THROW(run_metric("propensity_logistic", t, {{"maxorder", 9}}), InputError);
}

TEST(Propensity, TinyAndDegenerateTablesDoNotCrash) {
  // One row each: every column is constant within each dataset, so nothing to model.
  const auto one = make_tables("x,g\n1,a\n", {"x,g\n2,b\n"});
  EXPECT_THROW(run_metric("propensity_logistic", one), MetricNotApplicable);
  const auto two = make_tables("x,g\n1,a\n2,b\n", {"x,g\n2,b\n3,b\n"});
  EXPECT_NO_THROW(run_metric("propensity_logistic", two));
  EXPECT_NO_THROW(run_metric("propensity_cart", two, {{"folds", 2}}));
  const auto constant = make_tables("x,g\n1,a\n1,a\n", {"x,g\n1,a\n1,a\n"});
  EXPECT_THROW(run_metric("propensity_logistic", constant), MetricNotApplicable);
  EXPECT_THROW(run_metric("propensity_cart", constant), MetricNotApplicable);
  // An empty confidential table and an all-missing column.
  Column x;
  x.name = "x";
  Column y = x;
  y.numeric = {1.0, std::nan(""), 2.0};
  const Table empty(TableSource{}, {x});
  const Table syn(TableSource{}, {y});
  EvaluationContext context;
  MetricInput input{empty, {&syn}, nullptr, context, "test", 1};
  for (const char* name : {"propensity_logistic", "propensity_cart"}) {
    const MetricSpec* metric = find_metric(name);
    const Params p = Params::resolve(name, metric->params, nlohmann::json::object(), "test");
    EXPECT_THROW(metric->compute(input, p), MetricNotApplicable);
  }
  const auto missing = make_tables("x,z\n1,NA\n2,NA\n3,NA\n", {"x,z\n2,NA\n3,NA\n5,NA\n"});
  EXPECT_NO_THROW(run_metric("propensity_logistic", missing));
}

// Same numbers for any thread count (permutations and folds run in parallel).
TEST(PropensityCart, SameResultForAnyThreadCount) {
  Rng rng(99);
  const auto t = make_tables(null_sample(rng, 400), {null_sample(rng, 400)});
  for (const nlohmann::json& params :
       {nlohmann::json{{"nperms", 8}, {"validation", "kfold"}, {"folds", 3}},
        nlohmann::json{{"null", "bootstrap"}, {"nboot", 8}, {"validation", "split"}}}) {
    omp_set_num_threads(1);
    const auto a = run_metric("propensity_cart", t, params);
    omp_set_num_threads(2);
    const auto b = run_metric("propensity_cart", t, params);
    omp_set_num_threads(omp_get_num_procs());
    ASSERT_EQ(a.values.size(), b.values.size());
    for (std::size_t i = 0; i < a.values.size(); ++i)
      if (!std::isnan(a.values[i].value)) {
        EXPECT_EQ(a.values[i].value, b.values[i].value) << a.values[i].statistic;
      }
  }
}

// Boosted trees: a column that gives the synthesis away (x shifted by 3 sd) is found, out of
// sample too, and gets the importance; results do not depend on synthaudit's thread count.
TEST(PropensityBoostedTrees, FindsTheGiveAwayColumn) {
  Rng rng(5);
  std::string conf = "x,noise\n", syn = "x,noise\n";
  for (int i = 0; i < 300; ++i) {
    conf += std::to_string(rng.normal()) + "," + std::to_string(rng.normal()) + "\n";
    syn += std::to_string(rng.normal() + 3.0) + "," + std::to_string(rng.normal()) + "\n";
  }
  const auto t = make_tables(conf, {syn});
  const nlohmann::json params = {
      {"rounds", 20}, {"folds", 3}, {"null", "permutation"}, {"nperms", 2}};
  omp_set_num_threads(1);
  const auto a = run_metric("propensity_boosted_trees", t, params);
  omp_set_num_threads(2);
  const auto b = run_metric("propensity_boosted_trees", t, params);
  omp_set_num_threads(omp_get_num_procs());
  EXPECT_GT(value_of(a, "AUC_oos", "all"), 0.95);
  EXPECT_GT(value_of(a, "importance", "x"), 80.0);
  EXPECT_GT(value_of(a, "S_pMSE", "all"), 5.0);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < a.values.size(); ++i)
    EXPECT_EQ(a.values[i].value, b.values[i].value) << a.values[i].statistic;
}

// The bootstrap null replaces the synthetic records by draws with replacement from the
// confidential ones (a correct synthesis), so for the logistic model its mean must agree with the
// analytic null (k − 1)(1 − c)²c/N, and the permutation null (halved, c = 1/2) with it too. SD2011,
// main effects, df = 24: a refit's pMSE / null ~ chi2_24/24 (sd 0.29), so a mean of 100 refits has
// sd 0.029; we accept 4 sd (12%).
TEST(PropensityLogistic, BootstrapAndPermutationNullsAgreeWithAnalytic) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                             std::nullopt, sd2011_settings());
  const auto analytic = run_metric("propensity_logistic", t, {{"maxorder", 0}});
  const double null_analytic = value_of(analytic, "null_pMSE", "all");
  const auto boot = run_metric("propensity_logistic", t,
                               {{"maxorder", 0}, {"null", "bootstrap"}, {"nboot", 100}});
  const auto perm = run_metric("propensity_logistic", t,
                               {{"maxorder", 0}, {"null", "permutation"}, {"nperms", 100}});
  std::cerr << "null pMSE / analytic: bootstrap "
            << value_of(boot, "null_pMSE", "all") / null_analytic << ", permutation "
            << value_of(perm, "null_pMSE", "all") / null_analytic << "\n";
  EXPECT_NEAR(value_of(boot, "null_pMSE", "all") / null_analytic, 1.0, 0.12);
  EXPECT_NEAR(value_of(perm, "null_pMSE", "all") / null_analytic, 1.0, 0.12);
  EXPECT_DOUBLE_EQ(value_of(boot, "S_pMSE", "all"),
                   value_of(boot, "pMSE", "all") / value_of(boot, "null_pMSE", "all"));
  EXPECT_DOUBLE_EQ(value_of(perm, "pMSE", "all"), value_of(analytic, "pMSE", "all"));
}

// CART with the bootstrap null: when the synthetic data are themselves a resample of the
// confidential records, pMSE and the null refits come from one procedure, so S_pMSE averages 1.
// 60 replications of 300 + 300 records, 20 refits each: the ratio of a single replication has
// sd ≈ 0.5 here, so the mean has sd ≈ 0.065; we accept 4 sd.
TEST(PropensityCart, BootstrapNullGivesOneForACorrectSynthesis) {
  Rng rng(2718);
  double sum = 0.0;
  const int reps = 60;
  for (int r = 0; r < reps; ++r) {
    const auto conf = null_records(rng, 300);
    std::vector<std::string> boot;
    for (std::size_t i = 0; i < conf.size(); ++i) boot.push_back(conf[rng.below(conf.size())]);
    EvaluationContext context;
    context.seed = static_cast<std::uint64_t>(r) + 1;
    sum += value_of(
        run_metric("propensity_cart", make_tables(to_csv(conf), {to_csv(boot)}),
                   {{"null", "bootstrap"}, {"nboot", 20}, {"validation", "none"}}, context),
        "S_pMSE", "all");
  }
  std::cerr << "CART bootstrap null, correct synthesis: mean S_pMSE " << sum / reps << "\n";
  EXPECT_NEAR(sum / reps, 1.0, 0.26) << "mean S_pMSE " << sum / reps;
}

// SDMetrics' LogisticDetection on SD2011 is 1.0 (ref_sdmetrics_orig_vs_syn.tsv): one draw of a
// procedure with random folds. tests/golden/propensity/sdmetrics_detection.py rebuilds that
// procedure with scikit-learn and gives its distribution over 50 fold seeds (mean 0.9992, sd
// 0.0015). detection_score_folds (validation kfold, folds 3, maxorder 0) over 50 evaluation
// seeds must have the same mean within 0.002 (our model differs slightly: no L2 penalty, NA and
// missing-code indicators instead of mean imputation) and reach 1.0 as SDMetrics did.
TEST(PropensityLogistic, DetectionScoreFoldsMatchesSdmetricsProcedure) {
  std::ifstream in(std::filesystem::path(__FILE__).parent_path() /
                   "../golden/propensity/sdmetrics_detection.json");
  ASSERT_TRUE(in) << "sdmetrics_detection.json not found";
  const auto golden_scores = nlohmann::json::parse(in);
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                             std::nullopt, sd2011_settings());
  double sum = 0.0, best = 0.0;
  const int seeds = 50;
  for (int s = 1; s <= seeds; ++s) {
    EvaluationContext context;
    context.seed = static_cast<std::uint64_t>(s);
    const auto r = run_metric("propensity_logistic", t,
                              {{"maxorder", 0}, {"validation", "kfold"}, {"folds", 3}}, context);
    const double score = value_of(r, "detection_score_folds", "all");
    sum += score;
    best = std::max(best, score);
  }
  std::cerr << "detection_score_folds: mean over " << seeds << " seeds " << sum / seeds
            << " (scikit-learn SDMetrics procedure " << golden_scores["mean"].get<double>()
            << ")\n";
  EXPECT_NEAR(sum / seeds, golden_scores["mean"].get<double>(), 0.002);
  EXPECT_EQ(best, 1.0);
}

// Perfectly separable data: every fold's AUC is 1, so detection_score_folds = 0.
TEST(Propensity, DetectionScoreFoldsIsZeroWhenSeparable) {
  std::string conf = "x\n", syn = "x\n";
  for (int i = 0; i < 60; ++i) {
    conf += std::to_string(i) + "\n";
    syn += std::to_string(100 + i) + "\n";
  }
  const auto r = run_metric("propensity_cart", make_tables(conf, {syn}),
                            {{"null", "none"}, {"validation", "kfold"}, {"folds", 3}});
  EXPECT_DOUBLE_EQ(value_of(r, "detection_score_folds", "all"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(r, "AUC_oos", "all"), 1.0);
}

// R's rpart 4.1.19 itself (tests/golden/propensity/make_rpart_golden.R): 3000 training rows with
// two numeric columns of exact bins, an integer column and two factors, fitted to a signal, to the
// signal with cp 0.01 and minbucket 20, and to random labels (the deep trees of the permutation
// null). Same number of leaves; in-sample P(t = 1) and P(t = 1) of 1000 held-out rows (binned
// together with the training rows, as cross-validation does) to 1e-12; variable importance with
// surrogate splits (rpart's default maxsurrogate = 5) and of the primary splits alone
// (maxsurrogate = 0), 1e-9 relative. Twice: with the numeric columns searched from histograms (the
// default for columns of at most 4096 distinct values) and by the sorted sweep (forced here by a
// histogram limit of 0 bins), which must give the same trees.
TEST(Cart, MatchesRpart) {
  std::ifstream in(std::filesystem::path(__FILE__).parent_path() /
                   "../golden/propensity/rpart_golden.json");
  ASSERT_TRUE(in) << "rpart_golden.json not found";
  const auto g = nlohmann::json::parse(in);
  const auto n_train = g["n_train"].get<std::size_t>(), n_test = g["n_test"].get<std::size_t>();
  std::vector<stats::FeatureColumn> features;
  for (const char* name : {"x1", "x2", "g", "h", "x3"}) {
    stats::FeatureColumn f;
    f.name = name;
    const std::string levels_key = std::string(name) + "_levels";
    if (g.contains(levels_key)) {
      f.categorical = true;
      f.codes = g[name].get<std::vector<std::uint32_t>>();
      f.levels = static_cast<std::uint32_t>(g[levels_key].size());
    } else {
      f.values = g[name].get<std::vector<double>>();
    }
    features.push_back(std::move(f));
  }
  std::vector<std::size_t> train(n_train), test(n_test);
  std::iota(train.begin(), train.end(), std::size_t{0});
  std::iota(test.begin(), test.end(), n_train);
  for (const std::uint32_t histogram_max_bins : {stats::kHistogramMaxBins, 0u}) {
    const auto binned = stats::bin_features(features, 0, histogram_max_bins);
    EXPECT_EQ(binned.features[0].sorted_search, histogram_max_bins == 0);
    for (const char* name : {"signal", "signal_coarse", "random_labels"}) {
      SCOPED_TRACE(std::string(name) +
                   (histogram_max_bins == 0 ? ", sorted search" : ", histograms"));
      const auto& c = g[name];
      std::vector<std::uint8_t> y(n_train + n_test, 0);
      const auto t = c["t"].get<std::vector<int>>();
      for (std::size_t i = 0; i < n_train; ++i) y[i] = static_cast<std::uint8_t>(t[i]);
      stats::CartOptions options;
      options.cp = c["cp"].get<double>();
      options.minbucket = c["minbucket"].get<std::size_t>();
      options.minsplit = 3 * options.minbucket;
      const auto tree = stats::fit_cart(binned, y, options, train);
      EXPECT_EQ(tree.leaves(), c["leaves"].get<int>());
      const auto fitted = stats::predict_cart(tree, binned, train);
      const auto expected_fitted = to_vec(c["fitted"]);
      for (std::size_t i = 0; i < n_train; ++i)
        ASSERT_NEAR(fitted[i], expected_fitted[i], 1e-12) << "row " << i;
      const auto predicted = stats::predict_cart(tree, binned, test);
      const auto expected_test = to_vec(c["predicted_test"]);
      for (std::size_t i = 0; i < n_test; ++i)
        ASSERT_NEAR(predicted[i], expected_test[i], 1e-12) << "held-out row " << i;
      // rpart's improve is in the same units as ours (weighted counts): compare the values.
      const auto expected_primary = to_vec(c["importance_primary"]);
      const auto expected_importance = to_vec(c["importance_rpart"]);
      for (std::size_t f = 0; f < expected_importance.size(); ++f) {
        EXPECT_NEAR(tree.primary_importance[f], expected_primary[f], 1e-9 * expected_primary[0])
            << features[f].name;
        EXPECT_NEAR(tree.importance[f], expected_importance[f], 1e-9 * expected_importance[0])
            << features[f].name;
      }
    }
  }
}

// Exact by default: a wage column with thousands of distinct values (9914 in the stacked data,
// more than the 4096 that are searched from histograms, so the sorted sweep runs), 5000
// confidential records and a synthetic copy with wages perturbed by about 1 %. The pMSE of the
// default metric equals rpart's (synthpop utility.gen's rule: rbind(synthetic, confidential), cp
// 1e-3, minbucket 5; tests/golden/propensity/make_rpart_golden.R) to 1e-9 relative, with the same
// number of leaves. Quantile binning (max_bins = 1024) is an explicit option, with a warning, and
// does not reproduce rpart here.
TEST(PropensityCart, ExactByDefaultMatchesRpartOnManyDistinctValues) {
  const auto dir = std::filesystem::path(__FILE__).parent_path() / "../golden/propensity";
  std::ifstream in(dir / "rpart_golden.json");
  ASSERT_TRUE(in) << "rpart_golden.json not found";
  const auto g = nlohmann::json::parse(in)["many_distinct"];
  ASSERT_GT(g["distinct_wage"].get<int>(), static_cast<int>(stats::kHistogramMaxBins));
  const auto files = g["files"].get<std::vector<std::string>>();
  const auto t = load_tables((dir / files[0]).string(), {(dir / files[1]).string()});
  const double expected = g["pMSE"].get<double>();
  const auto exact = run_metric("propensity_cart", t, {{"validation", "none"}, {"null", "none"}});
  EXPECT_NEAR(value_of(exact, "pMSE", "all"), expected, 1e-9 * expected);
  EXPECT_EQ(value_of(exact, "leaves", "all"), g["leaves"].get<double>());
  EXPECT_TRUE(exact.warnings.empty());
  const auto binned = run_metric("propensity_cart", t,
                                 {{"validation", "none"}, {"null", "none"}, {"max_bins", 1024}});
  EXPECT_GT(std::abs(value_of(binned, "pMSE", "all") - expected), 1e-3 * expected);
  ASSERT_EQ(binned.warnings.size(), 1u);
  EXPECT_NE(binned.warnings[0].find("quantile bins"), std::string::npos);
  EXPECT_THROW(
      run_metric("propensity_cart", t, {{"validation", "none"}, {"null", "none"}, {"max_bins", 1}}),
      InputError);
}

// The simulator's candidates (docs/simulator.md): `ideal` is a fresh sample of the population,
// `independent` draws every column on its own. Against the independent-sample null
// (S_pMSE_independent) ideal scores about 1 and independent far above; with synthpop's halved
// null (S_pMSE) ideal is about 2 (see docs/metrics.md, "Which null?"). 3000 records, one replicate,
// the demo spec's parameters (the logistic model without occupation and region). Logistic: df in
// the hundreds, so S_pMSE_independent of ideal has sd ≈ 0.1; CART's permutation null is noisier.
TEST(Propensity, SimulatorIdealNearOneIndependentFarAbove) {
  const auto dir = synthaudit::testing::private_temp_dir("synthaudit_propensity_sim");
  std::filesystem::remove_all(dir);
  SimulationOptions options;
  options.rows = 3000;
  options.replicates = 1;
  options.seed = 11;
  options.out_dir = dir.string();
  const auto files = simulate(options);
  EvaluationSpec spec = load_spec(files.spec_path);
  spec.metrics = {"propensity_logistic", "propensity_cart"};
  const auto doc = evaluate(spec, load_evaluation_data(spec));
  auto value = [&](const std::string& metric, const std::string& candidate,
                   const std::string& statistic) {
    for (const auto& m : doc["metrics"])
      if (m["name"] == metric)
        for (const auto& c : m["candidates"])
          if (c["name"] == candidate)
            for (const auto& v : c["replicates"][0]["values"])
              if (v["statistic"] == statistic) return v["value"].get<double>();
    ADD_FAILURE() << metric << " " << candidate << " " << statistic << " not found";
    return std::nan("");
  };
  const double logit_ideal = value("propensity_logistic", "ideal", "S_pMSE_independent");
  const double logit_independent =
      value("propensity_logistic", "independent", "S_pMSE_independent");
  const double cart_ideal = value("propensity_cart", "ideal", "S_pMSE_independent");
  const double cart_independent = value("propensity_cart", "independent", "S_pMSE_independent");
  std::cerr << "S_pMSE_independent: logistic ideal " << logit_ideal << ", independent "
            << logit_independent << "; CART ideal " << cart_ideal << ", independent "
            << cart_independent << "\n";
  EXPECT_NEAR(logit_ideal, 1.0, 0.35);
  EXPECT_GT(logit_independent, 2.5);
  EXPECT_NEAR(cart_ideal, 1.0, 0.5);
  EXPECT_GT(cart_independent, 1.6 * cart_ideal);
  EXPECT_NEAR(value("propensity_logistic", "ideal", "S_pMSE") / logit_ideal, 2.0, 0.01);
  std::filesystem::remove_all(dir);
}

// More than 65536 bins in all (a factor with 70000 declared levels) switches the packed bin slots
// to 32 bits; the tree must be the one fitted without that column when the column cannot help
// (every record has the same, last, level: no split).
TEST(Cart, ThirtyTwoBitSlotsGiveTheSameTree) {
  Rng rng(31);
  // Enough rows for the root to be searched from a full histogram (rows ≥ total bins / 8).
  const std::size_t n = 12000;
  stats::FeatureColumn x, wide;
  x.name = "x";
  wide.name = "wide";
  wide.categorical = true;
  wide.levels = 70000;
  std::vector<std::uint8_t> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x.values.push_back(std::round(rng.normal() * 100) / 100);
    y[i] = x.values.back() + 0.5 * rng.normal() > 0 ? 1 : 0;
    wide.codes.push_back(69999);
  }
  const auto narrow_data = stats::bin_features({x});
  const auto wide_data = stats::bin_features({x, wide});
  ASSERT_TRUE(narrow_data.slots32.empty());
  ASSERT_FALSE(wide_data.slots32.empty());
  const auto a = stats::fit_cart(narrow_data, y, {});
  const auto b = stats::fit_cart(wide_data, y, {});
  EXPECT_EQ(a.leaves(), b.leaves());
  const auto pa = stats::predict_cart(a, narrow_data), pb = stats::predict_cart(b, wide_data);
  for (std::size_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(pa[i], pb[i]) << "row " << i;
}

namespace {

// The blocked fit against the dense fit of the same matrix (to_dense): same aliasing, rank,
// iterations, deviance and fitted probabilities (1e-10), and, when the fit has a finite maximum
// (no fitted probability at 0 or 1), coefficients and standard errors to 1e-10 (relative above 1).
// Under separation the likelihood is flat along the separating directions, so the coefficients
// there are fixed by rounding alone and differ between any two summation orders (R's glm included);
// the fitted probabilities are still determined. Returns whether coefficients were compared.
// `rows`: fit on these rows only (the dense fit gets a copy).
bool expect_blocked_matches_dense(const stats::BlockedDesign& design,
                                  const std::vector<std::uint8_t>& t,
                                  const std::vector<std::size_t>& rows = {}) {
  const Eigen::MatrixXd full = design.to_dense();
  const std::size_t n = rows.empty() ? design.rows : rows.size();
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), full.cols());
  Eigen::VectorXd y(static_cast<Eigen::Index>(n));
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = rows.empty() ? k : rows[k];
    X.row(static_cast<Eigen::Index>(k)) = full.row(static_cast<Eigen::Index>(i));
    y[static_cast<Eigen::Index>(k)] = t[i];
  }
  const auto dense = stats::fit_logistic(X, y);
  const auto blocked = stats::fit_logistic(design, y, {}, rows);
  EXPECT_TRUE(dense.converged);
  EXPECT_TRUE(blocked.converged);
  EXPECT_EQ(blocked.rank, dense.rank);
  EXPECT_EQ(blocked.iterations, dense.iterations);
  EXPECT_EQ(blocked.aliased, dense.aliased);
  EXPECT_NEAR(blocked.deviance, dense.deviance, 1e-10 * dense.deviance);
  auto close = [](double a, double b) {
    return (std::isnan(a) && std::isnan(b)) ||
           std::abs(a - b) <= 1e-10 * std::max(1.0, std::abs(b));
  };
  double worst = 0.0;
  for (Eigen::Index i = 0; i < y.size(); ++i)
    worst = std::max(worst, std::abs(blocked.fitted[i] - dense.fitted[i]));
  EXPECT_LE(worst, 1e-10);
  EXPECT_EQ(stats::aliased_columns(design, 1e-9, rows), stats::aliased_columns(X));
  EXPECT_EQ(blocked.separated_rows, dense.separated_rows);
  if (dense.separation) return false;
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    EXPECT_PRED2(close, blocked.coefficients[j], dense.coefficients[j]) << "coefficient " << j;
    EXPECT_PRED2(close, blocked.standard_errors[j], dense.standard_errors[j]) << "SE " << j;
  }
  return true;
}

stats::FeatureColumn factor_column(const std::string& name, std::vector<std::uint32_t> codes,
                                   std::uint32_t levels) {
  stats::FeatureColumn f;
  f.name = name;
  f.categorical = true;
  f.codes = std::move(codes);
  f.levels = levels;
  return f;
}

// Random stacked data: y depends on every feature, so no column is idle.
propensity::Stacked random_stack(std::size_t n, const std::vector<std::uint32_t>& factor_levels,
                                 std::size_t numerics, std::uint64_t seed) {
  Rng rng(seed);
  propensity::Stacked data;
  data.t.resize(n);
  std::vector<double> eta(n, 0.0);
  for (std::size_t f = 0; f < factor_levels.size(); ++f) {
    std::vector<std::uint32_t> codes(n);
    std::vector<double> effect(factor_levels[f]);
    for (auto& e : effect) e = rng.uniform() - 0.5;
    for (std::size_t i = 0; i < n; ++i) {
      codes[i] = static_cast<std::uint32_t>(rng.below(factor_levels[f]));
      eta[i] += effect[codes[i]];
    }
    data.features.push_back(
        factor_column("f" + std::to_string(f), std::move(codes), factor_levels[f]));
  }
  for (std::size_t k = 0; k < numerics; ++k) {
    stats::FeatureColumn x;
    x.name = "x" + std::to_string(k);
    x.values.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      // Some exact zeros, as a numeric column with missing values set to 0 has.
      x.values[i] = rng.uniform() < 0.1 ? 0.0 : 3.0 * rng.uniform() + 10.0 * static_cast<double>(k);
      eta[i] += 0.2 * (x.values[i] - 10.0 * static_cast<double>(k) - 1.5);
    }
    data.features.push_back(std::move(x));
  }
  for (std::size_t i = 0; i < n; ++i) {
    data.t[i] = rng.uniform() < 1.0 / (1.0 + std::exp(-eta[i])) ? 1 : 0;
    (data.t[i] ? data.n_syn : data.n_conf) += 1;
  }
  data.c = static_cast<double>(data.n_syn) / static_cast<double>(n);
  return data;
}

}  // namespace

// The blocked design (factors as level codes) gives the dense design's estimates on SD2011, main
// effects and all two-way interactions (factor x factor, factor x numeric, numeric x numeric,
// aliased interaction columns), and on a row subset as a cross-validation fold uses it.
TEST(LogisticBlocked, SameEstimatesAsDenseOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                             std::nullopt, sd2011_settings());
  const auto data = propensity::stack_tables(t.confidential, t.synthetic.front());
  for (int maxorder : {0, 1}) {
    SCOPED_TRACE(maxorder);
    std::vector<std::string> names;
    const auto design = propensity::logistic_design(data, maxorder, &names);
    EXPECT_EQ(names.size(), design.columns);
    EXPECT_EQ(design.columns, propensity::logistic_parameter_count(data, maxorder));
    EXPECT_GT(design.sparse.size(), 0U);
    // Main effects have a finite estimate; with the two-way interactions some cells hold one
    // dataset only (SE in the millions: quasi-separation), so only the fit is compared there.
    EXPECT_EQ(expect_blocked_matches_dense(design, data.t), maxorder == 0);
  }
  std::vector<std::size_t> fold;
  for (std::size_t i = 0; i < data.t.size(); ++i)
    if (i % 3 != 1) fold.push_back(i);
  EXPECT_TRUE(expect_blocked_matches_dense(propensity::logistic_design(data, 0), data.t, fold));
}

// Random data with many levels: a 240-level factor among main effects, and a 60 x 4 factor
// interaction with numeric interactions (2 x 60-level and 4-level factors, 2 numerics).
TEST(LogisticBlocked, SameEstimatesAsDenseWithManyLevels) {
  const auto wide = random_stack(30000, {240, 5, 2}, 2, 7);
  const auto main_effects = propensity::logistic_design(wide, 0);
  EXPECT_EQ(main_effects.columns, 1U + 239 + 4 + 1 + 2);
  EXPECT_TRUE(expect_blocked_matches_dense(main_effects, wide.t));
  const auto crossed = random_stack(12000, {60, 4}, 2, 8);
  const auto interactions = propensity::logistic_design(crossed, 1);
  EXPECT_EQ(interactions.columns, 1U + 59 + 3 + 2 + 59 * 3 + 59 * 2 + 3 * 2 + 1);
  EXPECT_TRUE(expect_blocked_matches_dense(interactions, crossed.t));
  std::vector<std::size_t> reversed_half;
  for (std::size_t i = crossed.t.size(); i-- > 0;)
    if (i % 2 == 0) reversed_half.push_back(i);
  EXPECT_TRUE(expect_blocked_matches_dense(interactions, crossed.t, reversed_half));
}

// The blocked fit is deterministic for any thread count (fixed row blocks added in order).
TEST(LogisticBlocked, SameResultForAnyThreadCount) {
  const auto data = random_stack(20000, {60, 4}, 2, 9);
  const auto design = propensity::logistic_design(data, 1);
  Eigen::VectorXd y(static_cast<Eigen::Index>(data.t.size()));
  for (std::size_t i = 0; i < data.t.size(); ++i) y[static_cast<Eigen::Index>(i)] = data.t[i];
  omp_set_num_threads(1);
  const auto a = stats::fit_logistic(design, y);
  omp_set_num_threads(2);
  const auto b = stats::fit_logistic(design, y);
  omp_set_num_threads(omp_get_num_procs());
  for (Eigen::Index j = 0; j < a.coefficients.size(); ++j)
    if (!std::isnan(a.coefficients[j])) {
      EXPECT_EQ(a.coefficients[j], b.coefficients[j]);
    }
  for (Eigen::Index i = 0; i < a.fitted.size(); ++i) ASSERT_EQ(a.fitted[i], b.fitted[i]);
}

// A malformed blocked design is refused, not read out of bounds.
TEST(LogisticBlocked, RejectsInconsistentBlocks) {
  stats::BlockedDesign design;
  design.rows = 3;
  design.columns = 3;
  design.dense = Eigen::MatrixXd::Ones(3, 1);
  design.dense_columns = {0};
  stats::SparseColumnBlock block;
  block.first = 1;
  block.width = 2;
  block.column = {0, 1};  // one entry short
  design.sparse.push_back(block);
  const Eigen::VectorXd y = Eigen::VectorXd::Zero(3);
  EXPECT_THROW(stats::fit_logistic(design, y), std::invalid_argument);
  design.sparse[0].column = {0, 1, -1};
  design.sparse[0].width = 1;  // column 2 covered by nothing
  EXPECT_THROW(stats::fit_logistic(design, y), std::invalid_argument);
  design.sparse[0].width = 2;
  EXPECT_THROW(stats::fit_logistic(design, y, {}, {0, 5}), std::invalid_argument);
}
