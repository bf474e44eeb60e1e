// train_synthetic_test_real against scikit-learn on SD2011 (tests/golden/tstr/make_golden.py),
// boosted trees for determinism and against a constant model, and bad parameters.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "core/error.hpp"
#include "spec/spec.hpp"
#include "test_support.hpp"

namespace synthaudit::testing {
namespace {

nlohmann::json golden() {
  std::ifstream in(std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/tstr/golden.json");
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in);
}

const Tables& sd2011() {
  static const Tables tables = [] {
    ReadSettings settings;
    settings.missing_codes["income"] = {-8};
    return load_tables(shared_data("sd2011/train.csv"),
                       {shared_data("sd2011/train_syn.csv"), shared_data("sd2011/syn.csv")},
                       shared_data("sd2011/holdout.csv"), settings);
  }();
  return tables;
}

void expect_scores(const nlohmann::json& c, const std::vector<std::string>& measures,
                   const MetricResult& r) {
  constexpr double kTolerance = 1e-6;
  EXPECT_EQ(value_of(r, "holdout_records", "all"), c["holdout_records"].get<double>());
  for (const auto& m : measures) {
    const double real = c["real"][m].get<double>();
    double sum = 0.0, lo = INFINITY, hi = -INFINITY;
    for (const auto& s : c["synthetic"]) {
      const double v = s[m].get<double>();
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const double mean = sum / static_cast<double>(c["synthetic"].size());
    EXPECT_NEAR(value_of(r, m + "_real", "all"), real, kTolerance) << m;
    EXPECT_NEAR(value_of(r, m + "_synthetic", "all"), mean, kTolerance) << m;
    EXPECT_NEAR(value_of(r, m + "_synthetic_min", "all"), lo, kTolerance) << m;
    EXPECT_NEAR(value_of(r, m + "_synthetic_max", "all"), hi, kTolerance) << m;
    EXPECT_NEAR(value_of(r, m + "_ratio", "all"), mean / real, kTolerance) << m;
  }
  const auto& replicates = r.details["tstr"]["replicates"];
  ASSERT_EQ(replicates.size(), c["synthetic"].size());
  for (std::size_t k = 0; k < replicates.size(); ++k)
    for (const auto& m : measures)
      EXPECT_NEAR(replicates[k][m].get<double>(), c["synthetic"][k][m].get<double>(), kTolerance)
          << m << " replicate " << k + 1;
}

nlohmann::json params_of(const nlohmann::json& c) {
  return {{"target", c["target"]}, {"predictors", c["predictors"]}};
}

TEST(TrainSyntheticTestReal, BinaryLogisticMatchesSklearn) {
  const auto c = golden()["binary"];
  const auto r = run_metric("train_synthetic_test_real", sd2011(), params_of(c));
  expect_scores(c, {"auc", "accuracy"}, r);
  EXPECT_EQ(value_of(r, "efficacy_ratio", "all"), value_of(r, "auc_ratio", "all"));
  EXPECT_EQ(r.details["tstr"]["task"], "binary");
}

TEST(TrainSyntheticTestReal, MulticlassOneVsRestMatchesSklearn) {
  const auto c = golden()["multiclass"];
  const auto r = run_metric("train_synthetic_test_real", sd2011(), params_of(c));
  expect_scores(c, {"auc", "accuracy"}, r);
  EXPECT_EQ(r.details["tstr"]["task"], "multiclass");
}

TEST(TrainSyntheticTestReal, LinearMatchesSklearn) {
  const auto c = golden()["regression"];
  const auto r = run_metric("train_synthetic_test_real", sd2011(), params_of(c));
  expect_scores(c, {"rmse", "r2"}, r);
  EXPECT_EQ(value_of(r, "efficacy_ratio", "all"), value_of(r, "r2_ratio", "all"));
}

// Default predictors: every column but the target and the survey design columns.
TEST(TrainSyntheticTestReal, DefaultPredictorsLeaveOutDesignColumns) {
  const auto c = golden()["regression"];
  EvaluationContext context;
  context.weights = "smoke";  // stands in for a design column: left out like the target
  const auto with_design = run_metric("train_synthetic_test_real", sd2011(),
                                      {{"target", "income"}, {"model", "linear"}}, context);
  auto explicit_params = params_of(c);
  explicit_params["predictors"] = {"sex", "age", "edu", "marital", "ls"};
  const auto listed = run_metric("train_synthetic_test_real", sd2011(), explicit_params);
  EXPECT_EQ(value_of(with_design, "r2_real", "all"), value_of(listed, "r2_real", "all"));
  const auto all = run_metric("train_synthetic_test_real", sd2011(), {{"target", "income"}});
  EXPECT_NEAR(value_of(all, "r2_real", "all"), c["real"]["r2"].get<double>(), 1e-6);
}

// With weights: declared the fits and scores stay unweighted, and a warning says so.
TEST(TrainSyntheticTestReal, WeightsAreIgnoredWithAWarning) {
  const std::string dir = std::string(SYNTHAUDIT_TEST_DATA) + "/survey/";
  // apistrat's first 150 rows confidential, the last 50 the holdout.
  const auto all = load_tables(dir + "apistrat.csv", {dir + "apistrat_syn.csv"});
  auto t = load_tables(dir + "apistrat.csv", {dir + "apistrat_syn.csv"});
  std::vector<std::size_t> train(150), test(50);
  std::iota(train.begin(), train.end(), 0);
  std::iota(test.begin(), test.end(), 150);
  t.confidential = select_rows(all.confidential, train, {.role = "confidential"});
  t.holdout = select_rows(all.confidential, test, {.role = "holdout"});
  const nlohmann::json params = {
      {"target", "api00"}, {"model", "linear"}, {"predictors", {"ell", "meals", "stype"}}};
  EvaluationContext context;
  context.weights = "pw";
  const auto weighted = run_metric("train_synthetic_test_real", t, params, context);
  const auto plain = run_metric("train_synthetic_test_real", t, params);
  const auto mentions_weights = [](const MetricResult& r) {
    return std::count_if(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
      return w.find("ignores the survey weights (column 'pw')") != std::string::npos;
    });
  };
  EXPECT_EQ(mentions_weights(weighted), 1);
  EXPECT_EQ(mentions_weights(plain), 0);
  for (const std::string statistic : {"rmse_real", "r2_real", "r2_synthetic", "efficacy_ratio"})
    EXPECT_EQ(value_of(weighted, statistic, "all"), value_of(plain, statistic, "all")) << statistic;
}

nlohmann::json boosted(const std::string& target) {
  return {{"target", target}, {"model", "boosted_trees"}, {"rounds", 30}, {"max_depth", 3}};
}

TEST(TrainSyntheticTestReal, BoostedTreesSameForAnyThreadCount) {
  for (const char* target : {"smoke", "ls", "income"}) {
    omp_set_num_threads(1);
    const auto a = run_metric("train_synthetic_test_real", sd2011(), boosted(target));
    omp_set_num_threads(2);
    auto params = boosted(target);
    const auto b = run_metric("train_synthetic_test_real", sd2011(), params);
    params["xgboost_threads"] = 1;
    const auto c = run_metric("train_synthetic_test_real", sd2011(), params);
    omp_set_num_threads(omp_get_num_procs());
    ASSERT_EQ(a.values.size(), b.values.size());
    ASSERT_EQ(a.values.size(), c.values.size());
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      EXPECT_EQ(a.values[i].value, b.values[i].value) << target << " " << a.values[i].statistic;
      EXPECT_EQ(a.values[i].value, c.values[i].value) << target << " " << a.values[i].statistic;
    }
  }
}

// Better than a model that predicts one constant: AUC above 0.5, R² above 0, accuracy at least
// the holdout's majority share.
TEST(TrainSyntheticTestReal, BoostedTreesBeatAConstantModel) {
  const auto binary = run_metric("train_synthetic_test_real", sd2011(), boosted("smoke"));
  EXPECT_GT(value_of(binary, "auc_real", "all"), 0.55);
  EXPECT_GT(value_of(binary, "auc_synthetic_min", "all"), 0.55);
  EXPECT_GE(value_of(binary, "accuracy_real", "all"), 748.0 / 998.0 - 1e-9);  // NO in the holdout
  const auto multi = run_metric("train_synthetic_test_real", sd2011(), boosted("ls"));
  EXPECT_GT(value_of(multi, "auc_real", "all"), 0.55);
  EXPECT_GT(value_of(multi, "auc_synthetic_min", "all"), 0.55);
  const auto regression = run_metric("train_synthetic_test_real", sd2011(), boosted("income"));
  EXPECT_GT(value_of(regression, "r2_real", "all"), 0.05);
  EXPECT_GT(value_of(regression, "r2_synthetic_min", "all"), 0.05);
  EXPECT_EQ(regression.details["tstr"]["model"], "boosted_trees");
}

TEST(TrainSyntheticTestReal, NumericZeroOneTargetAndOneClassReplicate) {
  const std::string conf = "y,x\n0,1\n0,2\n1,3\n0,4\n1,5\n1,6\n0,2.5\n1,4.5\n";
  const std::string one_class = "y,x\n1,1\n1,2\n1,3\n1,4\n";
  const std::string holdout = "y,x\n0,1.5\n1,5.5\n0,3.5\n1,6.5\n";
  const auto t = make_tables(conf, {one_class}, holdout);
  const auto r =
      run_metric("train_synthetic_test_real", t, {{"target", "y"}, {"model", "logistic"}});
  // The one-class replicate predicts class 1 everywhere: AUC 0.5, accuracy = the holdout's share.
  EXPECT_DOUBLE_EQ(value_of(r, "auc_synthetic", "all"), 0.5);
  EXPECT_DOUBLE_EQ(value_of(r, "accuracy_synthetic", "all"), 0.5);
  EXPECT_FALSE(r.warnings.empty());
}

TEST(TrainSyntheticTestReal, BadParametersAreInputErrors) {
  const auto& t = sd2011();
  for (const nlohmann::json& params :
       {nlohmann::json{{"target", "incme"}},
        nlohmann::json{{"target", "smoke"}, {"model", "linear"}},
        nlohmann::json{{"target", "income"}, {"model", "logistic"}},
        nlohmann::json{{"target", "smoke"}, {"predictors", {"smoke", "age"}}},
        nlohmann::json{{"target", "smoke"}, {"predictors", {"agee"}}}}) {
    try {
      run_metric("train_synthetic_test_real", t, params);
      ADD_FAILURE() << "accepted " << params.dump();
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      EXPECT_NE(message.find("train_synthetic_test_real"), std::string::npos) << message;
    }
  }
  EXPECT_THROW(run_metric("train_synthetic_test_real", t, {{"target", "smoke"}, {"model", "svm"}}),
               InputError);
  EXPECT_THROW(run_metric("train_synthetic_test_real", t, {{"target", "smoke"}, {"rounds", 0}}),
               InputError);
}

TEST(TrainSyntheticTestReal, NeedsAHoldout) {
  auto t = make_tables("y,x\n0,1\n1,2\n0,3\n1,4\n", {"y,x\n0,1\n1,2\n"});
  EXPECT_TRUE(find_metric("train_synthetic_test_real")->needs_holdout);
  EXPECT_THROW(run_metric("train_synthetic_test_real", t, {{"target", "y"}}), MetricNotApplicable);
  // No target declared: skipped, not an error (most evaluations declare none).
  EXPECT_THROW(run_metric("train_synthetic_test_real", sd2011()), MetricNotApplicable);
}

// Without the target parameter the declared targets are scored in turn: the disclosure targets,
// then the model analyses' responses (a transformed response is another task and is left out);
// each target's numbers are those of the metric given that target, scoped by its name, and
// efficacy_ratio [all] is the one farthest from 1.
TEST(TrainSyntheticTestReal, WithoutATargetScoresTheDeclaredTargetsAndResponses) {
  EvaluationContext context;
  context.scenarios = {{{"age", "sex"}, {"smoke"}}};
  context.analyses = {parse_analysis("lm: income ~ age + sex", 0, "test"),
                      parse_analysis("lm: log(ls) ~ age", 1, "test"),
                      parse_analysis("mean: age", 2, "test"),
                      parse_analysis("glm_logit: factor(smoke) ~ age", 3, "test")};
  const auto r = run_metric("train_synthetic_test_real", sd2011(), {}, context);
  std::set<std::string> scopes;
  for (const auto& v : r.values) scopes.insert(v.scope);
  EXPECT_EQ(scopes, (std::set<std::string>{"all", "smoke", "income"}));
  double farthest = NAN;
  for (const std::string target : {"smoke", "income"}) {
    const auto alone = run_metric("train_synthetic_test_real", sd2011(), {{"target", target}});
    for (const auto& v : alone.values)
      EXPECT_EQ(value_of(r, v.statistic, target), v.value) << target << " " << v.statistic;
    const double ratio = value_of(alone, "efficacy_ratio", "all");
    if (!(std::fabs(farthest - 1.0) >= std::fabs(ratio - 1.0))) farthest = ratio;
  }
  EXPECT_EQ(value_of(r, "efficacy_ratio", "all"), farthest);
  EXPECT_EQ(r.details["tstr"]["targets"].size(), 2u);
  EXPECT_EQ(r.details["plots"].size(), 2u);
}

}  // namespace
}  // namespace synthaudit::testing
