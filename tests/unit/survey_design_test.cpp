// Complex designs (src/stats/survey_design.cpp) and the estimates under them against R's survey
// package 4.1: NHANES (strata, PSUs nested in strata), the stratified api sample with a
// finite-population correction, the one-stage cluster sample apiclus1 with and without fpc, and
// apiclus1's JK1 and bootstrap replicate weights (as.svrepdesign). Data made by
// tests/data/survey/make_designs.R, golden values by tests/golden/survey/make_design_golden.R
// (read from the same files). Tolerance 1e-8 relative.
#include "stats/survey_design.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "golden_tsv.hpp"
#include "spec/options.hpp"
#include "stats/categorical_models.hpp"
#include "stats/formula.hpp"
#include "stats/model_matrix.hpp"
#include "stats/survey.hpp"
#include "test_support.hpp"

namespace synthaudit {
namespace {

const testing::GoldenValues& golden() {
  static const auto g =
      testing::read_golden_tsv(std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/survey/designs.tsv");
  return g;
}

double expected(const std::string& key) { return testing::golden_value(golden(), key); }

void expect_close(double actual, double wanted, const std::string& what) {
  EXPECT_NEAR(actual, wanted, 1e-8 * std::max(1e-3, std::abs(wanted))) << what;
}

std::string data_path(const std::string& name) {
  return std::string(SYNTHAUDIT_TEST_DATA) + "/survey/" + name;
}

struct Survey {
  testing::Tables tables;
  explicit Survey(const std::string& file) : tables(testing::load_tables(data_path(file), {})) {}
  const Table& t() const { return tables.confidential; }
  std::vector<double> numeric(const std::string& name) const { return t().column(name).numeric; }
  std::vector<double> indicator(const std::string& name, const std::string& level) const {
    const Column& c = t().column(name);
    const auto code = c.dictionary->find(level);
    std::vector<double> out(c.codes.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = c.codes[i] == *code ? 1.0 : 0.0;
    return out;
  }
  stats::SurveyDesign design(const stats::SurveyDesignSpec& spec,
                             const std::string& weights) const {
    return stats::SurveyDesign::declared(spec, t(), t().column(weights).numeric);
  }
};

stats::SurveyDesignSpec nhanes_spec() {
  stats::SurveyDesignSpec spec;
  spec.strata = "SDMVSTRA";
  spec.clusters = {"SDMVPSU"};
  spec.nest = true;
  return spec;
}

void expect_means(const std::string& prefix, const std::vector<double>& x,
                  const stats::SurveyDesign& design, const std::string& v) {
  const auto mean = stats::survey_mean(x, design);
  const auto total = stats::survey_total(x, design);
  expect_close(mean.estimate, expected(prefix + ".mean." + v), prefix + " mean " + v);
  expect_close(mean.se, expected(prefix + ".mean_se." + v), prefix + " mean SE " + v);
  expect_close(total.estimate, expected(prefix + ".total." + v), prefix + " total " + v);
  expect_close(total.se, expected(prefix + ".total_se." + v), prefix + " total SE " + v);
  expect_close(mean.deff, expected(prefix + ".mean_deff." + v), prefix + " mean deff " + v);
  expect_close(total.deff, expected(prefix + ".total_deff." + v), prefix + " total deff " + v);
}

void expect_quantiles(const std::string& prefix, const std::vector<double>& x,
                      const stats::SurveyDesign& design, const std::string& v) {
  for (const double p : {0.25, 0.5, 0.9}) {
    std::ostringstream key;
    key << v << "." << p;
    const auto q = stats::survey_quantile(x, design, p);
    expect_close(q.estimate, expected(prefix + ".quantile." + key.str()), prefix + " " + key.str());
    expect_close(q.se, expected(prefix + ".quantile_se." + key.str()), prefix + " SE " + key.str());
  }
}

// A model of `formula` on the survey's table under `design`, against svyglm's coefficients, SEs
// and residual degrees of freedom (degf + 1 − p).
void expect_model(const Survey& s, const stats::SurveyDesign& design, const std::string& formula,
                  stats::GlmFamily family, stats::GlmLink link, const std::string& key) {
  const stats::ModelLayout layout(stats::parse_formula(formula), s.t(),
                                  family == stats::GlmFamily::kBinomial
                                      ? stats::ResponseKind::kBinary
                                      : stats::ResponseKind::kNumeric);
  const stats::ModelMatrix mm = layout.build(s.t());
  const std::vector<std::size_t> rows(mm.rows.begin(), mm.rows.end());
  const auto fit = stats::survey_glm(mm.x, mm.y, design, rows, family, link);
  ASSERT_TRUE(fit.converged) << key;
  const auto& coef = golden().at(key + "_coef");
  const auto& se = golden().at(key + "_se");
  ASSERT_EQ(static_cast<std::size_t>(fit.beta.size()), coef.size()) << key;
  for (std::size_t j = 0; j < coef.size(); ++j) {
    const auto jj = static_cast<Eigen::Index>(j);
    expect_close(fit.beta[jj], coef[j], key + " coefficient " + std::to_string(j));
    expect_close(fit.se[jj], se[j], key + " SE " + std::to_string(j));
  }
  std::vector<char> used(design.rows(), 0);
  for (const auto row : rows) used[row] = 1;
  EXPECT_DOUBLE_EQ(design.degrees_of_freedom([&](std::size_t r) { return used[r] != 0; }) + 1.0 -
                       static_cast<double>(coef.size()),
                   expected(key + "_df"))
      << key;
}

TEST(SurveyDesign, NhanesStrataAndNestedPsusMatchSurvey) {
  const Survey s("nhanes.csv");
  const auto design = s.design(nhanes_spec(), "WTMEC2YR");
  expect_means("nhanes", s.numeric("HI_CHOL"), design, "HI_CHOL");
  expect_means("nhanes", s.numeric("RIAGENDR"), design, "RIAGENDR");
  EXPECT_DOUBLE_EQ(design.degrees_of_freedom(), expected("nhanes.degf"));
  const std::string model = "HI_CHOL ~ factor(race) + agecat + RIAGENDR";
  expect_model(s, design, model, stats::GlmFamily::kBinomial, stats::GlmLink::kLogit,
               "nhanes.logit");
  expect_model(s, design, model, stats::GlmFamily::kGaussian, stats::GlmLink::kIdentity,
               "nhanes.lm");
  // The design's SEs differ from the weights-alone ones (what we reported before designs).
  const auto simple = stats::survey_mean(s.numeric("HI_CHOL"), s.numeric("WTMEC2YR"));
  EXPECT_GT(std::abs(simple.se / expected("nhanes.mean_se.HI_CHOL") - 1.0), 0.05);
}

TEST(SurveyDesign, LonelyPsuRulesMatchSurveyOptions) {
  const Survey s("nhanes_lonely.csv");
  auto spec = nhanes_spec();
  try {
    (void)s.design(spec, "WTMEC2YR");
    FAIL() << "a lonely PSU under fail must be an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("stratum '83' has only one PSU"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("design.lonely_psu"), std::string::npos) << e.what();
  }
  for (const std::string rule : {"remove", "certainty", "adjust", "average"}) {
    spec.lonely_psu = *stats::lonely_psu_from(rule);
    const auto design = s.design(spec, "WTMEC2YR");
    expect_close(stats::survey_mean(s.numeric("HI_CHOL"), design).se,
                 expected("lonely_" + rule + ".mean_se.HI_CHOL"), rule + " mean");
    expect_close(stats::survey_total(s.numeric("RIAGENDR"), design).se,
                 expected("lonely_" + rule + ".total_se.RIAGENDR"), rule + " total");
  }
}

TEST(SurveyDesign, StratifiedWithFinitePopulationCorrection) {
  const Survey s("apistrat_fpc.csv");
  stats::SurveyDesignSpec spec;
  spec.strata = "stype";
  spec.fpc = "fpc";
  const auto design = s.design(spec, "pw");
  for (const std::string v : {"api00", "enroll", "acs_k3"})
    expect_means("apistrat", s.numeric(v), design, v);
  expect_means("apistrat", s.indicator("sch_wide", "Yes"), design, "sch_yes");
  expect_quantiles("apistrat", s.numeric("api00"), design, "api00");
  expect_quantiles("apistrat", s.numeric("enroll"), design, "enroll");
  expect_model(s, design, "api00 ~ ell + meals", stats::GlmFamily::kGaussian,
               stats::GlmLink::kIdentity, "apistrat.lm");
  expect_model(s, design, "sch_wide ~ ell + meals", stats::GlmFamily::kBinomial,
               stats::GlmLink::kLogit, "apistrat.logit");
  EXPECT_DOUBLE_EQ(design.degrees_of_freedom(), expected("apistrat.degf"));
}

TEST(SurveyDesign, ClusterSampleWithAndWithoutFpc) {
  const Survey s("apiclus1_rep.csv");
  stats::SurveyDesignSpec spec;
  spec.clusters = {"dnum"};
  spec.fpc = "fpc";
  const auto design = s.design(spec, "pw");
  for (const std::string v : {"api00", "enroll"}) expect_means("apiclus1", s.numeric(v), design, v);
  expect_means("apiclus1", s.indicator("sch_wide", "Yes"), design, "sch_yes");
  expect_quantiles("apiclus1", s.numeric("api00"), design, "api00");
  expect_model(s, design, "api00 ~ ell + meals", stats::GlmFamily::kGaussian,
               stats::GlmLink::kIdentity, "apiclus1.lm");
  expect_model(s, design, "sch_wide ~ ell + meals", stats::GlmFamily::kBinomial,
               stats::GlmLink::kLogit, "apiclus1.logit");
  spec.fpc.clear();
  const auto with_replacement = s.design(spec, "pw");
  expect_means("apiclus1_wr", s.numeric("api00"), with_replacement, "api00");
  expect_model(s, with_replacement, "api00 ~ ell + meals", stats::GlmFamily::kGaussian,
               stats::GlmLink::kIdentity, "apiclus1_wr.lm");
}

TEST(SurveyDesign, ReplicateWeightsJackknifeAndBootstrap) {
  const Survey s("apiclus1_rep.csv");
  const auto scales = testing::read_golden_tsv(data_path("apiclus1_rep_scales.tsv"));
  for (const std::string type : {"jk1", "boot"}) {
    stats::SurveyDesignSpec spec;
    spec.replicate_weights = {type + "_*"};
    spec.replicate_type =
        type == "jk1" ? stats::ReplicateType::kJk1 : stats::ReplicateType::kBootstrap;
    spec.scale = scales.at(type + ".scale").front();
    spec.rscales = scales.at(type + ".rscales");
    const auto design = s.design(spec, "pw");
    const std::string prefix = "rep_" + type;
    EXPECT_EQ(design.replicate_count(), type == "jk1" ? 15u : 50u);
    for (const std::string v : {"api00", "enroll"}) expect_means(prefix, s.numeric(v), design, v);
    expect_means(prefix, s.indicator("sch_wide", "Yes"), design, "sch_yes");
    expect_quantiles(prefix, s.numeric("api00"), design, "api00");
    expect_model(s, design, "api00 ~ ell + meals", stats::GlmFamily::kGaussian,
                 stats::GlmLink::kIdentity, prefix + ".lm");
    expect_model(s, design, "sch_wide ~ ell + meals", stats::GlmFamily::kBinomial,
                 stats::GlmLink::kLogit, prefix + ".logit");
    EXPECT_DOUBLE_EQ(design.degrees_of_freedom(), expected(prefix + ".degf"));
    spec.mse = true;
    expect_close(stats::survey_mean(s.numeric("api00"), s.design(spec, "pw")).se,
                 expected(prefix + "_mse.mean_se.api00"), prefix + " mse");
  }
}

TEST(SurveyDesign, FpcAsSamplingFractionsEqualsPopulationCounts) {
  Survey s("apistrat_fpc.csv");
  stats::SurveyDesignSpec spec;
  spec.strata = "stype";
  spec.fpc = "fpc";
  const auto counts = s.design(spec, "pw");
  // fraction = sampled/population per stratum, as a column of its own.
  Table& t = s.tables.confidential;
  std::map<std::uint32_t, double> sampled;
  const Column& stype = t.column("stype");
  for (const auto code : stype.codes) sampled[code] += 1;
  Column fraction = t.column("fpc");
  fraction.name = "fraction";
  for (std::size_t i = 0; i < fraction.numeric.size(); ++i)
    fraction.numeric[i] = sampled[stype.codes[i]] / t.column("fpc").numeric[i];
  std::vector<Column> columns = t.columns();
  columns.push_back(fraction);
  const Table with_fraction(t.source(), columns);
  spec.fpc = "fraction";
  const auto fractions =
      stats::SurveyDesign::declared(spec, with_fraction, with_fraction.column("pw").numeric);
  const auto x = s.numeric("api00");
  expect_close(stats::survey_mean(x, fractions).se, expected("apistrat_fraction.mean_se.api00"),
               "fraction");
  expect_close(stats::survey_mean(x, counts).se, stats::survey_mean(x, fractions).se, "counts");
}

TEST(SurveyDesign, BadDeclarationsNameTheColumnAndRow) {
  const Survey s("nhanes.csv");
  const auto message = [&](const stats::SurveyDesignSpec& spec) {
    try {
      (void)s.design(spec, "WTMEC2YR");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto spec = nhanes_spec();
  spec.nest = false;
  EXPECT_NE(message(spec).find("appears in more than one stratum"), std::string::npos)
      << message(spec);
  EXPECT_NE(message(spec).find("design.nest: true"), std::string::npos);
  spec = nhanes_spec();
  spec.clusters = {"no_such"};
  EXPECT_NE(message(spec).find("no column 'no_such' (design.clusters)"), std::string::npos)
      << message(spec);
  spec = nhanes_spec();
  spec.strata = "HI_CHOL";  // missing in some rows
  EXPECT_NE(message(spec).find("column 'HI_CHOL' (design.strata): a design variable may not be "
                               "missing"),
            std::string::npos)
      << message(spec);
  spec = nhanes_spec();
  spec.fpc = "race";  // not constant within strata
  EXPECT_NE(message(spec).find("not constant within its stratum"), std::string::npos)
      << message(spec);
  stats::SurveyDesignSpec replicated;
  replicated.replicate_weights = {"nothing_*"};
  EXPECT_NE(message(replicated).find("no column matches 'nothing_*'"), std::string::npos)
      << message(replicated);
  replicated.replicate_weights = {"RIAGENDR", "race"};
  replicated.replicate_type = stats::ReplicateType::kFay;
  EXPECT_NE(message(replicated).find("rho"), std::string::npos) << message(replicated);
}

TEST(SurveyDesign, WeightsAloneEqualTheOneStageDesign) {
  const Survey s("nhanes.csv");
  const auto w = s.numeric("WTMEC2YR");
  const auto x = s.numeric("HI_CHOL");
  const auto declared = s.design({}, "WTMEC2YR");
  const auto simple = stats::SurveyDesign::simple(w);
  EXPECT_DOUBLE_EQ(stats::survey_mean(x, declared).se, stats::survey_mean(x, simple).se);
  EXPECT_DOUBLE_EQ(stats::survey_mean(x, w).se, stats::survey_mean(x, simple).se);
}

TEST(SurveyDesign, MultinomialUnderReplicateWeightsRefitsEachReplicate) {
  // The replicate covariance of a categorical model is svrVar of the replicate refits: with
  // every replicate equal to the full weights the variance is zero.
  const Survey s("apiclus1_rep.csv");
  const stats::ModelLayout layout(stats::parse_formula("stype ~ ell"), s.t(),
                                  stats::ResponseKind::kCategorical);
  const auto mm = layout.build(s.t());
  stats::SurveyDesignSpec spec;
  spec.replicate_weights = {"pw", "pw", "pw"};
  spec.replicate_type = stats::ReplicateType::kBootstrap;
  const auto design = s.design(spec, "pw");
  stats::CategoricalModelOptions options;
  options.weights.resize(mm.x.rows());
  for (Eigen::Index i = 0; i < mm.x.rows(); ++i)
    options.weights[i] = s.numeric("pw")[mm.rows[static_cast<std::size_t>(i)]];
  options.design = &design;
  options.rows.assign(mm.rows.begin(), mm.rows.end());
  const auto fit = stats::fit_multinomial_logit(mm.x, mm.y, 3, options);
  ASSERT_TRUE(fit.converged);
  EXPECT_LT(fit.se.maxCoeff(), 1e-6);
}

}  // namespace
}  // namespace synthaudit

// The metrics under a declared design: the confidential side with its design, the synthetic side
// with its own carried-along design columns.
namespace synthaudit {
namespace {

const nlohmann::json& analysis_named(const MetricResult& r, const std::string& name) {
  for (const auto& a : r.details["analyses"])
    if (a["name"] == name) return a;
  throw std::runtime_error("no analysis " + name);
}

TEST(SurveyDesignMetrics, AnalysesUseTheDesignOnBothSides) {
  const auto tables = testing::load_tables(data_path("nhanes.csv"), {data_path("nhanes_syn.csv")});
  EvaluationContext context;
  context.weights = "WTMEC2YR";
  context.design = nhanes_spec();
  context.analyses = {{.name = "chol", .kind = "mean", .column = "HI_CHOL"},
                      {.name = "logit",
                       .kind = "glm_logit",
                       .formula = "HI_CHOL ~ factor(race) + agecat + RIAGENDR"}};
  const auto r = testing::run_metric("analysis_inference_comparison", tables, {}, context);
  const auto& chol = analysis_named(r, "chol");
  expect_close(chol["estimands"][0]["confidential_se"].get<double>(),
               expected("nhanes.mean_se.HI_CHOL"), "confidential mean SE");
  expect_close(std::sqrt(chol["replicates"][0]["v"][0].get<double>()),
               expected("nhanes_syn.mean_se.HI_CHOL"), "synthetic mean SE");
  const auto& logit = analysis_named(r, "logit");
  const auto& se = golden().at("nhanes.logit_se");
  const auto& syn_se = golden().at("nhanes_syn.logit_se");
  ASSERT_EQ(logit["estimands"].size(), se.size());
  for (std::size_t j = 0; j < se.size(); ++j) {
    expect_close(logit["estimands"][j]["confidential_se"].get<double>(), se[j], "logit SE");
    expect_close(std::sqrt(logit["replicates"][0]["v"][j].get<double>()), syn_se[j],
                 "synthetic logit SE");
  }
  // The intercept has a forest plot of its own, apart from the slopes.
  std::size_t intercept_plots = 0, slope_plots = 0;
  for (const auto& plot : r.details["plots"]) {
    if (plot["scope"] != "logit") continue;
    bool has_intercept = false, has_slope = false;
    for (const auto& row : plot["data"])
      (row["estimand"] == "(Intercept)" ? has_intercept : has_slope) = true;
    EXPECT_NE(has_intercept, has_slope) << plot["title"];
    intercept_plots += has_intercept ? 1 : 0;
    slope_plots += has_slope ? 1 : 0;
  }
  EXPECT_EQ(intercept_plots, 1u);
  EXPECT_EQ(slope_plots, 1u);
  EXPECT_NE(r.details["design"]["confidential"].get<std::string>().find("in 15 strata"),
            std::string::npos)
      << r.details["design"].dump();
  // Design variables are not compared as data.
  const auto summary =
      testing::run_metric("mean_in_confidence_interval", tables, {{"plots", false}}, context);
  for (const auto& value : summary.values) {
    EXPECT_NE(value.scope, "SDMVSTRA");
    EXPECT_NE(value.scope, "SDMVPSU");
  }
  expect_close(testing::value_of(summary, "conf_ci_lower", "HI_CHOL"),
               expected("nhanes.mean_ci_lower.HI_CHOL"), "interval on the design's degf");
}

}  // namespace
}  // namespace synthaudit

// The design's option values from any front end: a bad one is an InputError naming its key.
namespace synthaudit {
namespace {

TEST(SurveyDesignOptions, BadValuesNameTheirKey) {
  const OptionSource binding{OptionSource::Kind::kBinding, "synthaudit.evaluate", ""};
  const auto message = [&](const nlohmann::json& given) {
    try {
      (void)spec_from_options(given, binding);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"fay_rho", 1.5}}).find("fay_rho"), std::string::npos)
      << message({{"fay_rho", 1.5}});
  EXPECT_NE(message({{"fay_rho", 1.5}}).find("below 1"), std::string::npos);
  EXPECT_NE(message({{"replicate_scale", -2}}).find("replicate_scale"), std::string::npos);
  EXPECT_NE(message({{"replicate_scale", "x"}}).find("not a number"), std::string::npos);
  EXPECT_NE(message({{"replicate_rscales", {1, -1}}}).find(">= 0"), std::string::npos);
  EXPECT_NE(message({{"lonely_psu", "drop"}}).find("not one of fail, remove"), std::string::npos)
      << message({{"lonely_psu", "drop"}});
  EXPECT_NE(message({{"replicate_type", "jk1"}}).find("replicate_type"), std::string::npos);
  const auto good = spec_from_options(
      {{"replicate_rscales", "0.5, 0.25"}, {"fay_rho", "0.3"}, {"lonely_psu", "average"}}, binding);
  EXPECT_EQ(good.context.design.rscales, (std::vector<double>{0.5, 0.25}));
  EXPECT_DOUBLE_EQ(good.context.design.rho, 0.3);
  EXPECT_EQ(good.context.design.lonely_psu, stats::LonelyPsu::kAverage);
}

}  // namespace
}  // namespace synthaudit
