// Weighted estimates of src/stats/survey.cpp against R's survey package 4.1 (svymean, svytotal,
// svyquantile with qrule = "hf7", svyglm gaussian and quasibinomial) on the real weighted survey
// tests/data/survey/apistrat.csv, design svydesign(ids = ~1, weights = ~pw); golden values made by
// tests/golden/survey/make_golden.R. Tolerance 1e-6 relative.
#include "stats/survey.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "golden_tsv.hpp"
#include "stats/quantile.hpp"
#include "test_support.hpp"

namespace synthaudit {
namespace {

const testing::GoldenValues& golden() {
  static const auto g =
      testing::read_golden_tsv(std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/survey/golden.tsv");
  return g;
}

double expected(const std::string& key) { return testing::golden_value(golden(), key); }

void expect_close(double actual, double wanted, const std::string& what) {
  if (std::isnan(wanted)) {
    EXPECT_TRUE(std::isnan(actual)) << what << ": " << actual;
    return;
  }
  EXPECT_NEAR(actual, wanted, 1e-6 * std::max(1.0, std::abs(wanted))) << what;
}

struct Api {
  testing::Tables tables =
      testing::load_tables(std::string(SYNTHAUDIT_TEST_DATA) + "/survey/apistrat.csv", {});
  const Table& t() const { return tables.confidential; }
  std::vector<double> numeric(const std::string& name) const { return t().column(name).numeric; }
  std::vector<double> level_indicator(const std::string& name, const std::string& level) const {
    const Column& c = t().column(name);
    const auto code = c.dictionary->find(level);
    std::vector<double> out(c.codes.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = c.codes[i] == *code ? 1.0 : 0.0;
    return out;
  }
};

std::vector<double> with_zero_weights(std::vector<double> w) {
  for (const std::size_t row : {0, 1, 59, 60, 149}) w[row] = 0.0;  // R's rows 1, 2, 60, 61, 150
  return w;
}

class SurveyGolden : public ::testing::TestWithParam<std::string> {};

std::vector<double> weights_for(const Api& api, const std::string& prefix) {
  const auto w = api.numeric("pw");
  return prefix.empty() ? w : with_zero_weights(w);
}

TEST_P(SurveyGolden, MeansAndTotalsMatchSvymeanAndSvytotal) {
  const Api api;
  const std::string prefix = GetParam();
  const auto w = weights_for(api, prefix);
  for (const std::string v : {"api00", "ell", "enroll", "sch_yes", "acs_k3"}) {
    const auto x = v == "sch_yes" ? api.level_indicator("sch_wide", "Yes") : api.numeric(v);
    const auto mean = stats::survey_mean(x, w);
    const auto total = stats::survey_total(x, w);
    expect_close(mean.estimate, expected(prefix + "mean." + v), prefix + "mean " + v);
    expect_close(mean.se, expected(prefix + "mean_se." + v), prefix + "mean SE " + v);
    expect_close(total.estimate, expected(prefix + "total." + v), prefix + "total " + v);
    expect_close(total.se, expected(prefix + "total_se." + v), prefix + "total SE " + v);
  }
}

TEST_P(SurveyGolden, QuantilesAndWoodruffErrorsMatchSvyquantileHf7) {
  const Api api;
  const std::string prefix = GetParam();
  const auto w = weights_for(api, prefix);
  for (const std::string v : {"api00", "enroll", "acs_k3"}) {
    for (const double p : {0.01, 0.1, 0.25, 0.5, 0.9}) {
      std::ostringstream key;
      key << v << "." << p;
      const auto q = stats::survey_quantile(api.numeric(v), w, p);
      expect_close(q.estimate, expected(prefix + "quantile." + key.str()), "quantile " + key.str());
      expect_close(q.se, expected(prefix + "quantile_se." + key.str()), "SE " + key.str());
      EXPECT_EQ(stats::weighted_quantile_hf7(api.numeric(v), w, p), q.estimate);
    }
  }
}

void expect_fit(const stats::SurveyRegressionFit& fit, const std::string& key) {
  ASSERT_TRUE(fit.converged) << key;
  const auto& coef = golden().at(key + "_coef");
  const auto& se = golden().at(key + "_se");
  ASSERT_EQ(static_cast<std::size_t>(fit.beta.size()), coef.size());
  for (std::size_t j = 0; j < coef.size(); ++j) {
    const auto jj = static_cast<Eigen::Index>(j);
    expect_close(fit.beta[jj], coef[j], key + " coefficient " + std::to_string(j));
    expect_close(fit.se[jj], se[j], key + " SE " + std::to_string(j));
  }
}

TEST_P(SurveyGolden, RegressionsMatchSvyglm) {
  const Api api;
  const std::string prefix = GetParam();
  const auto w = weights_for(api, prefix);
  const std::size_t n = api.t().rows();
  const auto n_rows = static_cast<Eigen::Index>(n);
  const auto ell = api.numeric("ell"), meals = api.numeric("meals"), api00 = api.numeric("api00"),
             api99 = api.numeric("api99");
  const auto high = api.level_indicator("stype", "H"), middle = api.level_indicator("stype", "M");
  const auto yes = api.level_indicator("sch_wide", "Yes");
  Eigen::MatrixXd x(n_rows, 5), z(n_rows, 4);
  Eigen::VectorXd y(n_rows), y01(n_rows), weight(n_rows);
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    x.row(r) << 1.0, ell[i], meals[i], high[i], middle[i];
    z.row(r) << 1.0, ell[i], meals[i], api99[i];
    y[r] = api00[i];
    y01[r] = yes[i];
    weight[r] = w[i];
  }
  expect_fit(stats::survey_lm(x, y, weight), prefix + "lm");
  expect_fit(stats::survey_logit(z, y01, weight), prefix + "logit");

  // api00 ~ ell + acs_k3 over the complete cases, in a design of all rows.
  const auto acs = api.numeric("acs_k3");
  std::vector<std::size_t> complete;
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isnan(acs[i])) complete.push_back(i);
  const auto used = static_cast<Eigen::Index>(complete.size());
  Eigen::MatrixXd xm(used, 3);
  Eigen::VectorXd ym(used), wm(used);
  for (Eigen::Index r = 0; r < used; ++r) {
    const std::size_t i = complete[static_cast<std::size_t>(r)];
    xm.row(r) << 1.0, ell[i], acs[i];
    ym[r] = api00[i];
    wm[r] = w[i];
  }
  expect_fit(stats::survey_lm(xm, ym, wm, n), prefix + "lm_missing");
}

INSTANTIATE_TEST_SUITE_P(Api, SurveyGolden, ::testing::Values("", "zero_weights."),
                         [](const auto& info) {
                           return info.param.empty() ? std::string("Weights")
                                                     : std::string("ZeroWeights");
                         });

TEST(SurveyQuantile, EqualWeightsGiveType7) {
  const Api api;
  const auto x = api.numeric("api00");
  const std::vector<double> w(x.size(), 3.0);
  auto sorted = x;
  std::sort(sorted.begin(), sorted.end());
  for (const double p : {0.1, 0.5, 0.9}) {
    std::ostringstream key;
    key << p;
    const double q = stats::weighted_quantile_hf7(x, w, p);
    expect_close(q, expected("equal_weights.quantile.api00." + key.str()), "equal weights");
    expect_close(q, stats::quantile_type7(sorted, p), "type 7");
  }
}

TEST(SurveyEstimates, MissingValuesAreDroppedAndEmptyInputIsNaN) {
  const std::vector<double> x = {1.0, std::nan(""), 3.0};
  const std::vector<double> w = {1.0, 5.0, 1.0};
  const auto mean = stats::survey_mean(x, w);
  EXPECT_DOUBLE_EQ(mean.estimate, 2.0);
  EXPECT_EQ(mean.n, 2u);
  const std::vector<double> none;
  EXPECT_TRUE(std::isnan(stats::survey_mean(none, none).estimate));
  EXPECT_TRUE(std::isnan(stats::survey_quantile(none, none, 0.5).estimate));
  EXPECT_THROW(stats::survey_mean(x, none), std::invalid_argument);
}

}  // namespace
}  // namespace synthaudit

// The metrics that use the weights, on the api data and its "synthetic" counterpart
// (tests/data/survey/make_api.R), against the same golden file.
namespace synthaudit {
namespace {

testing::Tables api_pair() {
  const std::string dir = std::string(SYNTHAUDIT_TEST_DATA) + "/survey/";
  return testing::load_tables(dir + "apistrat.csv", {dir + "apistrat_syn.csv"});
}

EvaluationContext weighted_context(std::vector<AnalysisSpec> analyses = {}) {
  EvaluationContext context;
  context.weights = "pw";
  context.analyses = std::move(analyses);
  return context;
}

TEST(SurveyMetrics, MeanInConfidenceIntervalUsesTheWeights) {
  const auto tables = api_pair();
  const auto r = testing::run_metric("mean_in_confidence_interval", tables, {{"plots", false}},
                                     weighted_context());
  for (const std::string v : {"api00", "ell", "enroll"}) {
    expect_close(testing::value_of(r, "conf_mean", v), expected("mean." + v), "mean " + v);
    expect_close(testing::value_of(r, "conf_ci_lower", v), expected("ci_lower." + v), "lower " + v);
    expect_close(testing::value_of(r, "conf_ci_upper", v), expected("ci_upper." + v), "upper " + v);
    expect_close(testing::value_of(r, "syn_mean", v), expected("syn.mean." + v), "syn " + v);
  }
  for (const auto& value : r.values) EXPECT_NE(value.scope, "pw") << value.statistic;

  const auto unweighted =
      testing::run_metric("mean_in_confidence_interval", tables,
                          {{"plots", false}, {"synthetic_weights", "none"}}, weighted_context());
  expect_close(testing::value_of(unweighted, "syn_mean", "api00"),
               expected("syn.unweighted_mean.api00"), "unweighted synthetic mean");
  expect_close(testing::value_of(unweighted, "conf_mean", "api00"), expected("mean.api00"),
               "confidential mean stays weighted");
}

const nlohmann::json& analysis(const MetricResult& r, const std::string& name) {
  for (const auto& a : r.details["analyses"])
    if (a["name"] == name) return a;
  throw std::runtime_error("no analysis " + name);
}

std::vector<AnalysisSpec> api_analyses() {
  return {{.name = "mean", .kind = "mean", .column = "api00"},
          {.name = "share", .kind = "proportion", .column = "sch_wide"},
          {.name = "total", .kind = "total", .column = "enroll"},
          {.name = "median", .kind = "quantile", .column = "enroll", .probability = 0.5},
          {.name = "total_acs", .kind = "total", .column = "acs_k3"},
          {.name = "lm", .kind = "lm", .formula = "api00 ~ ell + meals + factor(stype)"},
          {.name = "logit", .kind = "glm_logit", .formula = "sch_wide ~ ell + meals + api99"},
          {.name = "lm_missing", .kind = "lm", .formula = "api00 ~ ell + acs_k3"}};
}

// Estimate and SE of estimand k on the confidential data and on replicate 1 (q and v).
struct AnalysisNumbers {
  std::vector<double> conf, conf_se, syn, syn_se;
};
AnalysisNumbers numbers(const MetricResult& r, const std::string& name) {
  const auto& a = analysis(r, name);
  AnalysisNumbers n;
  for (const auto& e : a["estimands"]) {
    n.conf.push_back(e["confidential_estimate"].get<double>());
    n.conf_se.push_back(e["confidential_se"].get<double>());
  }
  for (const auto& q : a["replicates"][0]["q"]) n.syn.push_back(q.get<double>());
  for (const auto& v : a["replicates"][0]["v"]) n.syn_se.push_back(std::sqrt(v.get<double>()));
  return n;
}

TEST(SurveyMetrics, AnalysesMatchTheSurveyPackage) {
  const auto tables = api_pair();
  const auto r = testing::run_metric("analysis_inference_comparison", tables, {},
                                     weighted_context(api_analyses()));
  auto check_scalar = [&](const std::string& name, const std::string& key, std::size_t k = 0) {
    const auto n = numbers(r, name);
    expect_close(n.conf[k], expected(key), name + " confidential");
    const auto se_key = key.substr(0, key.find('.')) + "_se" + key.substr(key.find('.'));
    expect_close(n.conf_se[k], expected(se_key), name + " confidential SE");
    expect_close(n.syn[k], expected("syn." + key), name + " synthetic");
    expect_close(n.syn_se[k], expected("syn." + se_key), name + " synthetic SE");
  };
  check_scalar("mean", "mean.api00");
  check_scalar("share", "mean.sch_yes", 1);  // levels No, Yes
  check_scalar("total", "total.enroll");
  check_scalar("median", "quantile.enroll.0.5");
  check_scalar("total_acs", "total.acs_k3");
  for (const std::string model : {"lm", "logit", "lm_missing"}) {
    const auto n = numbers(r, model);
    const auto& coef = golden().at(model + "_coef");
    const auto& se = golden().at(model + "_se");
    const auto& syn_coef = golden().at("syn." + model + "_coef");
    const auto& syn_se = golden().at("syn." + model + "_se");
    ASSERT_EQ(n.conf.size(), coef.size()) << model;
    for (std::size_t j = 0; j < coef.size(); ++j) {
      expect_close(n.conf[j], coef[j], model + " coefficient");
      expect_close(n.conf_se[j], se[j], model + " SE");
      expect_close(n.syn[j], syn_coef[j], model + " synthetic coefficient");
      expect_close(n.syn_se[j], syn_se[j], model + " synthetic SE");
    }
  }
  EXPECT_EQ(r.details["weights"]["synthetic_weighted"][0], true);
}

TEST(SurveyMetrics, UnweightedSyntheticTotalsExpandToTheConfidentialWeights) {
  const auto tables = api_pair();
  const auto r =
      testing::run_metric("analysis_inference_comparison", tables, {{"synthetic_weights", "none"}},
                          weighted_context({api_analyses()[2]}));
  expect_close(numbers(r, "total").syn[0], expected("syn.unweighted_total.enroll"),
               "unweighted synthetic total");
  expect_close(numbers(r, "total").conf[0], expected("total.enroll"), "confidential total");
  EXPECT_EQ(r.details["weights"]["synthetic_weighted"][0], false);
}

TEST(SurveyMetrics, UnusableSyntheticWeights) {
  const std::string conf = "x,w\n1,1\n2,3\n4,2\n";
  const std::string syn = "x,w\n1,1\n2,-1\n5,2\n";
  const auto tables = testing::make_tables(conf, {syn});
  EvaluationContext w_context;
  w_context.weights = "w";
  const auto r =
      testing::run_metric("mean_in_confidence_interval", tables, {{"plots", false}}, w_context);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.front().find("row 2 is -1"), std::string::npos) << r.warnings.front();
  EXPECT_DOUBLE_EQ(testing::value_of(r, "syn_mean", "x"), 8.0 / 3.0);  // unweighted
  EXPECT_DOUBLE_EQ(testing::value_of(r, "conf_mean", "x"), (1.0 + 6.0 + 8.0) / 6.0);
  EXPECT_THROW(testing::run_metric("mean_in_confidence_interval", tables,
                                   {{"plots", false}, {"synthetic_weights", "own"}}, w_context),
               InputError);
}

}  // namespace
}  // namespace synthaudit

namespace synthaudit {
namespace {

// Pasted from tests/golden/survey/make_tv_golden.py (pandas group sums of pw).
TEST(SurveyMetrics, TotalVariationUsesWeightedShares) {
  const auto tables = api_pair();
  const auto weighted =
      testing::run_metric("total_variation", tables, {{"plots", false}}, weighted_context());
  expect_close(testing::value_of(weighted, "total_variation", "stype"), 0.011228726393043828,
               "stype");
  expect_close(testing::value_of(weighted, "total_variation", "sch_wide"), 0.06053079357334416,
               "sch_wide");
  const auto unweighted_syn =
      testing::run_metric("total_variation", tables,
                          {{"plots", false}, {"synthetic_weights", "none"}}, weighted_context());
  expect_close(testing::value_of(unweighted_syn, "total_variation", "stype"), 0.22375523706774747,
               "stype, synthetic unweighted");
  expect_close(testing::value_of(unweighted_syn, "total_variation", "sch_wide"),
               0.10794801141582347, "sch_wide, synthetic unweighted");
}

}  // namespace
}  // namespace synthaudit
