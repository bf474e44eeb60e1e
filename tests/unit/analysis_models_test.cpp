// The model analyses beyond lm and the logistic glm, and the formula terms I(comparison),
// relevel(), poly(), scale() and log1p(), against R on real survey data: glm with the binomial
// (probit, cloglog), Poisson and Gaussian families, nnet::multinom, MASS::polr and survey::svyglm
// (quasibinomial probit / cloglog, quasipoisson, gaussian). Golden values:
// tests/golden/analyses/make_golden.R (R 4.2.2, survey 4.1-1, nnet 7.3-18, MASS 7.3-58.2).
// Tolerance 1e-6 relative on every coefficient and standard error.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stats/categorical_models.hpp"
#include "stats/glm.hpp"
#include "stats/model_matrix.hpp"
#include "stats/survey.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string expect_input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    return m;
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

struct Coefficient {
  double estimate = std::nan(""), se = std::nan("");
};
// case → term → value, in the golden file's order of terms.
using Golden = std::map<std::string, std::vector<std::pair<std::string, Coefficient>>>;

// golden.tsv (make_golden.R) and weighted_categorical.tsv (make_weighted_categorical_golden.R).
Golden read_golden() {
  Golden golden;
  for (const std::string file : {"golden.tsv", "weighted_categorical.tsv"}) {
    std::ifstream in(std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/analyses/" + file);
    if (!in) ADD_FAILURE() << "no golden file " << file;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      const auto f = split(line, '\t');
      if (f.size() != 4) {
        ADD_FAILURE() << "golden.tsv: malformed line " << line;
        continue;
      }
      auto& terms = golden[f[0]];
      auto it =
          std::find_if(terms.begin(), terms.end(), [&](const auto& t) { return t.first == f[1]; });
      if (it == terms.end()) {
        terms.push_back({f[1], {}});
        it = terms.end() - 1;
      }
      (f[2] == "estimate" ? it->second.estimate : it->second.se) = std::stod(f[3]);
    }
  }
  return golden;
}

const Golden& golden() {
  static const Golden g = read_golden();
  return g;
}

void expect_matches(const std::string& case_name, const std::vector<std::string>& names,
                    const Eigen::VectorXd& estimate, const Eigen::VectorXd& se) {
  const auto it = golden().find(case_name);
  ASSERT_NE(it, golden().end()) << "no golden case " << case_name;
  const auto& terms = it->second;
  ASSERT_EQ(names.size(), terms.size()) << case_name;
  ASSERT_EQ(static_cast<std::size_t>(estimate.size()), terms.size()) << case_name;
  ASSERT_EQ(static_cast<std::size_t>(se.size()), terms.size()) << case_name;
  for (std::size_t j = 0; j < terms.size(); ++j) {
    const auto& [name, want] = terms[j];
    EXPECT_EQ(names[j], name) << case_name;
    const auto k = static_cast<Eigen::Index>(j);
    EXPECT_NEAR(estimate[k], want.estimate, 1e-6 * std::abs(want.estimate))
        << case_name << " estimate " << name;
    EXPECT_NEAR(se[k], want.se, 1e-6 * std::abs(want.se)) << case_name << " se " << name;
  }
}

const Tables& sd2011() {
  static const Tables t = load_tables(std::string(SYNTHAUDIT_TEST_DATA) + "/sd2011/train.csv", {});
  return t;
}
const Tables& apistrat() {
  static const Tables t =
      load_tables(std::string(SYNTHAUDIT_TEST_DATA) + "/survey/apistrat.csv", {});
  return t;
}

struct Design {
  stats::ModelLayout layout;
  stats::ModelMatrix matrix;
};
Design design(const std::string& formula, const Table& table, stats::ResponseKind response) {
  stats::ModelLayout layout(stats::parse_formula(formula), table, response);
  auto matrix = layout.build(table);
  return {std::move(layout), std::move(matrix)};
}

void check_glm(const std::string& case_name, const std::string& formula, const Table& table,
               stats::ResponseKind response, stats::GlmFamily family, stats::GlmLink link) {
  const auto d = design(formula, table, response);
  const auto fit = stats::fit_glm(d.matrix.x, d.matrix.y, family, link);
  ASSERT_TRUE(fit.converged) << case_name;
  expect_matches(case_name, d.layout.column_names(), fit.beta, fit.se);
}

void check_weighted_glm(const std::string& case_name, const std::string& formula,
                        stats::ResponseKind response, stats::GlmFamily family,
                        stats::GlmLink link) {
  const Table& table = apistrat().confidential;
  const auto d = design(formula, table, response);
  const auto& pw = table.column("pw").numeric;
  Eigen::VectorXd w(static_cast<Eigen::Index>(d.matrix.rows.size()));
  for (std::size_t r = 0; r < d.matrix.rows.size(); ++r)
    w[static_cast<Eigen::Index>(r)] = pw[d.matrix.rows[r]];
  const auto fit = stats::survey_glm(d.matrix.x, d.matrix.y, w, family, link, table.rows());
  ASSERT_TRUE(fit.converged) << case_name;
  expect_matches(case_name, d.layout.column_names(), fit.beta, fit.se);
}

std::vector<std::string> multinomial_names(const stats::ModelLayout& layout) {
  std::vector<std::string> names;
  const auto& levels = layout.response_levels();
  for (std::size_t k = 1; k < levels.size(); ++k)
    for (const auto& c : layout.column_names()) names.push_back(levels[k] + ":" + c);
  return names;
}

void check_multinom(const std::string& case_name, const std::string& formula) {
  const auto d = design(formula, sd2011().confidential, stats::ResponseKind::kCategorical);
  const auto fit =
      stats::fit_multinomial_logit(d.matrix.x, d.matrix.y, d.layout.response_levels().size());
  ASSERT_TRUE(fit.converged) << case_name;
  expect_matches(case_name, multinomial_names(d.layout), fit.theta, fit.se);
}

void check_polr(const std::string& case_name, const std::string& formula) {
  const auto d = design(formula, sd2011().confidential, stats::ResponseKind::kCategorical);
  ASSERT_EQ(d.layout.column_names().front(), "(Intercept)");
  const Eigen::MatrixXd slopes = d.matrix.x.rightCols(d.matrix.x.cols() - 1);
  const auto fit =
      stats::fit_proportional_odds(slopes, d.matrix.y, d.layout.response_levels().size());
  ASSERT_TRUE(fit.converged) << case_name;
  std::vector<std::string> names(d.layout.column_names().begin() + 1,
                                 d.layout.column_names().end());
  const auto& levels = d.layout.response_levels();
  for (std::size_t k = 0; k + 1 < levels.size(); ++k)
    names.push_back(levels[k] + "|" + levels[k + 1]);
  expect_matches(case_name, names, fit.theta, fit.se);
}

// A design-weighted multinom or polr on apistrat with weights pw. With `blank_every_7th`, the
// 7th, 14th, ... rows are left out as rows with a missing predictor would be (the R script blanks
// meals there): they stay in the design's n with a zero score.
void check_weighted_categorical(const std::string& case_name, const std::string& formula,
                                bool ordinal, bool blank_every_7th) {
  const Table& table = apistrat().confidential;
  const auto d = design(formula, table, stats::ResponseKind::kCategorical);
  std::vector<Eigen::Index> keep;
  for (std::size_t r = 0; r < d.matrix.rows.size(); ++r)
    if (!blank_every_7th || (d.matrix.rows[r] + 1) % 7 != 0)
      keep.push_back(static_cast<Eigen::Index>(r));
  const auto first = ordinal ? Eigen::Index{1} : Eigen::Index{0};  // polr: no intercept
  Eigen::MatrixXd x(static_cast<Eigen::Index>(keep.size()), d.matrix.x.cols() - first);
  Eigen::VectorXd y(x.rows());
  stats::CategoricalModelOptions options;
  options.weights.resize(x.rows());
  options.design_rows = table.rows();
  const auto& pw = table.column("pw").numeric;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto r = keep[static_cast<std::size_t>(i)];
    x.row(i) = d.matrix.x.row(r).tail(x.cols());
    y[i] = d.matrix.y[r];
    options.weights[i] = pw[d.matrix.rows[static_cast<std::size_t>(r)]];
  }
  const std::size_t levels = d.layout.response_levels().size();
  const auto fit = ordinal ? stats::fit_proportional_odds(x, y, levels, options)
                           : stats::fit_multinomial_logit(x, y, levels, options);
  ASSERT_TRUE(fit.converged) << case_name;
  std::vector<std::string> names;
  if (ordinal) {
    names.assign(d.layout.column_names().begin() + 1, d.layout.column_names().end());
    const auto& l = d.layout.response_levels();
    for (std::size_t k = 0; k + 1 < l.size(); ++k) names.push_back(l[k] + "|" + l[k + 1]);
  } else {
    names = multinomial_names(d.layout);
  }
  if (blank_every_7th)
    for (auto& name : names)
      if (const auto at = name.find("meals"); at != std::string::npos)
        name.insert(at + 5, "_missing");
  expect_matches(case_name, names, fit.theta, fit.se);
}

}  // namespace

TEST(AnalysisModels, DesignWeightedPolrMatchesSvyolr) {
  check_weighted_categorical("weighted_polr", "stype ~ api00 + meals + sch_wide", true, false);
  check_weighted_categorical("weighted_polr_missing", "stype ~ api99 + meals", true, true);
}

TEST(AnalysisModels, DesignWeightedMultinomMatchesWeightedFitAndLinearisedSe) {
  check_weighted_categorical("weighted_multinom", "stype ~ api00 + meals + sch_wide", false, false);
  check_weighted_categorical("weighted_multinom_missing", "stype ~ api99 + meals", false, true);
}

TEST(AnalysisModels, CategoricalModelWeightsOfOneKeepTheUnweightedFitAndScaleDoesNotMatter) {
  const Table& table = apistrat().confidential;
  const auto d = design("stype ~ api00 + meals", table, stats::ResponseKind::kCategorical);
  const Eigen::MatrixXd slopes = d.matrix.x.rightCols(d.matrix.x.cols() - 1);
  const auto plain = stats::fit_proportional_odds(slopes, d.matrix.y, 3);
  stats::CategoricalModelOptions options;
  options.weights = Eigen::VectorXd::Constant(slopes.rows(), 7.5);
  const auto equal = stats::fit_proportional_odds(slopes, d.matrix.y, 3, options);
  ASSERT_TRUE(plain.converged && equal.converged);
  EXPECT_LT((plain.theta - equal.theta).cwiseAbs().maxCoeff(), 1e-9);
  // Equal weights: the sandwich, not the inverse information (they differ on real data).
  EXPECT_GT((plain.se - equal.se).cwiseAbs().maxCoeff(), 1e-4 * plain.se.minCoeff());
  const auto& pw = table.column("pw").numeric;
  Eigen::VectorXd w(slopes.rows());
  for (Eigen::Index i = 0; i < w.size(); ++i) w[i] = pw[d.matrix.rows[static_cast<std::size_t>(i)]];
  options.weights = w;
  const auto a = stats::fit_multinomial_logit(d.matrix.x, d.matrix.y, 3, options);
  options.weights = w * 1e-3;
  const auto b = stats::fit_multinomial_logit(d.matrix.x, d.matrix.y, 3, options);
  ASSERT_TRUE(a.converged && b.converged);
  EXPECT_LT(((a.theta - b.theta).array() / a.theta.array().abs().max(1.0)).abs().maxCoeff(), 1e-9);
  EXPECT_LT(((a.se - b.se).array() / a.se.array()).abs().maxCoeff(), 1e-9);
}

TEST(AnalysisModels, GlmFamiliesMatchR) {
  using stats::GlmFamily;
  using stats::GlmLink;
  using stats::ResponseKind;
  const Table& sd = sd2011().confidential;
  check_glm("probit", "smoke ~ age + sex + edu", sd, ResponseKind::kBinary, GlmFamily::kBinomial,
            GlmLink::kProbit);
  check_glm("cloglog", "smoke ~ age + sex + edu", sd, ResponseKind::kBinary, GlmFamily::kBinomial,
            GlmLink::kCloglog);
  check_glm("poisson", "enroll ~ stype + api00 + meals", apistrat().confidential,
            ResponseKind::kCount, GlmFamily::kPoisson, GlmLink::kLog);
  check_glm("gaussian", "log1p(income) ~ age + sex", sd, ResponseKind::kNumeric,
            GlmFamily::kGaussian, GlmLink::kIdentity);
}

TEST(AnalysisModels, FormulaTermsMatchR) {
  using stats::GlmFamily;
  using stats::GlmLink;
  using stats::ResponseKind;
  const Table& sd = sd2011().confidential;
  check_glm("terms_lm",
            "log1p(income) ~ I(age > 50) + relevel(edu, ref = \"SECONDARY\") + poly(age, 3) + "
            "sex * I(age >= 40)",
            sd, ResponseKind::kNumeric, GlmFamily::kGaussian, GlmLink::kIdentity);
  check_glm("terms_scale",
            "smoke ~ scale(age) + I(age^2/100 - age) + I((age <= 30) * 2) + relevel(marital, "
            "ref = 'SINGLE')",
            sd, ResponseKind::kBinary, GlmFamily::kBinomial, GlmLink::kLogit);
}

TEST(AnalysisModels, MultinomialLogitMatchesNnet) {
  check_multinom("multinom", "edu ~ age + sex");
  check_multinom("multinom_relevel", "relevel(edu, ref = \"SECONDARY\") ~ age + sex + smoke");
}

TEST(AnalysisModels, ProportionalOddsMatchesPolr) {
  check_polr("polr", "ls ~ age + sex + smoke");
  check_polr("polr_terms", "edu ~ poly(age, 2) + relevel(marital, ref = \"SINGLE\")");
}

TEST(AnalysisModels, DesignWeightedGlmMatchesSvyglm) {
  using stats::GlmFamily;
  using stats::GlmLink;
  using stats::ResponseKind;
  check_weighted_glm("svy_poisson", "enroll ~ stype + api00 + meals", ResponseKind::kCount,
                     GlmFamily::kPoisson, GlmLink::kLog);
  check_weighted_glm("svy_probit", "sch_wide ~ api99 + stype", ResponseKind::kBinary,
                     GlmFamily::kBinomial, GlmLink::kProbit);
  check_weighted_glm("svy_cloglog", "sch_wide ~ api99 + stype", ResponseKind::kBinary,
                     GlmFamily::kBinomial, GlmLink::kCloglog);
  check_weighted_glm("svy_gaussian", "api00 ~ I(meals > 50) + poly(ell, 2)", ResponseKind::kNumeric,
                     GlmFamily::kGaussian, GlmLink::kIdentity);
}

TEST(AnalysisModels, BadFormulasAreOneLineInputErrors) {
  const Table& sd = sd2011().confidential;
  auto message = [&](const std::string& formula, stats::ResponseKind response) {
    return expect_input_error([&] {
      stats::ModelLayout layout(stats::parse_formula(formula), sd, response);
      (void)layout.build(sd);
    });
  };
  using stats::ResponseKind;
  // A factor with no value where the model is fitted: no coding (not levels - 1 columns, which
  // would wrap around), an error as in R.
  {
    const Table empty = select_rows(sd, {}, sd.source());
    const std::string none = expect_input_error([&] {
      stats::ModelLayout layout(stats::parse_formula("income ~ edu"), empty,
                                ResponseKind::kNumeric);
      (void)layout.build(empty);
    });
    EXPECT_NE(none.find("'edu' has no value in the rows the model is fitted on"), std::string::npos)
        << none;
  }
  EXPECT_NE(message("income ~ relevel(edu, ref = \"NONE\")", ResponseKind::kNumeric)
                .find("'NONE' is not a level of 'edu'"),
            std::string::npos);
  EXPECT_NE(message("income ~ relevel(age, ref = \"30\")", ResponseKind::kNumeric)
                .find("relevel(factor(age), ref = ...)"),
            std::string::npos);
  EXPECT_NE(message("income ~ poly(age, 0)", ResponseKind::kNumeric).find("whole number"),
            std::string::npos);
  EXPECT_NE(message("income ~ I(poly(age, 2))", ResponseKind::kNumeric).find("of its own"),
            std::string::npos);
  EXPECT_NE(message("income ~ I(age > 3 > 2)", ResponseKind::kNumeric).find("do not chain"),
            std::string::npos);
  EXPECT_NE(message("income ~ I(sex > 1)", ResponseKind::kNumeric).find("categorical"),
            std::string::npos);
  EXPECT_NE(message("income ~ relevel(edu, ref = SECONDARY)", ResponseKind::kNumeric)
                .find("quoted level"),
            std::string::npos);
  EXPECT_NE(message("income ~ relevel(edu, ref = \"SECONDARY)", ResponseKind::kNumeric)
                .find("unclosed quote"),
            std::string::npos);
  EXPECT_NE(message("income ~ scale(age, center = 1)", ResponseKind::kNumeric)
                .find("scale() takes 1 argument(s)"),
            std::string::npos);
  EXPECT_NE(message("income ~ poly(age, degree = 2, raw = TRUE)", ResponseKind::kNumeric)
                .find("poly() takes 2 argument(s)"),
            std::string::npos);
  EXPECT_NE(message("income ~ relevel(edu, level = \"SECONDARY\")", ResponseKind::kNumeric)
                .find("unsupported argument 'level'"),
            std::string::npos);
  EXPECT_NE(message("sex ~ age", ResponseKind::kCategorical).find("at least 3"), std::string::npos);
  EXPECT_NE(message("age ~ sex", ResponseKind::kCategorical).find("factor(age)"),
            std::string::npos);
  EXPECT_NE(message("age - 100 ~ sex", ResponseKind::kCount).find("must be >= 0"),
            std::string::npos);
}

// Logical terms are R's: a factor with levels FALSE, TRUE; missing when the compared value is.
TEST(AnalysisModels, ComparisonIsALogicalFactor) {
  const auto t = make_tables("x,y\n1,1\n2,3\n3,2\n4,5\n,4\n6,7\n", {});
  stats::ModelLayout layout(stats::parse_formula("y ~ I(x >= 3)"), t.confidential,
                            stats::ResponseKind::kNumeric);
  ASSERT_EQ(layout.column_names(), (std::vector<std::string>{"(Intercept)", "I(x >= 3)TRUE"}));
  const auto m = layout.build(t.confidential);
  EXPECT_EQ(m.rows_dropped_missing, 1u);
  ASSERT_EQ(m.x.rows(), 5);
  EXPECT_EQ(m.x(0, 1), 0.0);
  EXPECT_EQ(m.x(2, 1), 1.0);
}

// The new kinds through the metric: estimands named as R names them, the confidential estimate
// the fit above, and the synthpop comparison and lack-of-fit test computed for them.
TEST(AnalysisModels, MetricComparesTheNewModelKinds) {
  const auto t = load_tables(std::string(SYNTHAUDIT_TEST_DATA) + "/sd2011/train.csv",
                             {std::string(SYNTHAUDIT_TEST_DATA) + "/sd2011/train_syn.csv"});
  EvaluationContext context;
  context.analyses = {
      {.name = "edu_m", .kind = "multinom", .formula = "edu ~ age + sex"},
      {.name = "ls_o", .kind = "polr", .formula = "ls ~ age + sex + smoke"},
      {.name = "smoke_p", .kind = "glm_probit", .formula = "smoke ~ age + sex + edu"}};
  const auto r = run_metric("analysis_inference_comparison", t, nlohmann::json::object(), context);
  const auto& multinom = golden().at("multinom");
  for (const auto& [term, want] : multinom)
    EXPECT_NEAR(value_of(r, "confidential_estimate", "edu_m:" + term), want.estimate,
                1e-6 * std::abs(want.estimate))
        << term;
  const auto& polr = golden().at("polr");
  for (const auto& [term, want] : polr)
    EXPECT_NEAR(value_of(r, "confidential_se", "ls_o:" + term), want.se, 1e-6 * std::abs(want.se))
        << term;
  EXPECT_NEAR(value_of(r, "confidential_estimate", "smoke_p:age"),
              golden().at("probit")[1].second.estimate, 1e-6);
  for (const std::string analysis : {"edu_m", "ls_o", "smoke_p"}) {
    const double overlap = value_of(r, "mean_ci_overlap", analysis + ";rule=synthpop");
    EXPECT_GE(overlap, 0.0) << analysis;
    EXPECT_LE(overlap, 1.0) << analysis;
    EXPECT_TRUE(std::isfinite(value_of(r, "lack_of_fit", analysis + ";rule=synthpop"))) << analysis;
  }
}

// Through the metric with weights: declared, multinom and polr are design-weighted on the
// confidential data (no unweighted-fallback warning any more) and on a replicate with its own
// weights; with synthetic_weights = none the replicate's fit is the unweighted one.
TEST(AnalysisModels, MetricFitsMultinomAndPolrDesignWeighted) {
  const std::string dir = std::string(SYNTHAUDIT_TEST_DATA) + "/survey/";
  const auto t = load_tables(dir + "apistrat.csv", {dir + "apistrat_syn.csv"});
  EvaluationContext context;
  context.weights = "pw";
  context.analyses = {
      {.name = "m", .kind = "multinom", .formula = "stype ~ api00 + meals + sch_wide"},
      {.name = "o", .kind = "polr", .formula = "stype ~ api00 + meals + sch_wide"}};
  for (const std::string policy : {"own", "none"}) {
    const auto r =
        run_metric("analysis_inference_comparison", t, {{"synthetic_weights", policy}}, context);
    for (const auto& [analysis, golden_case] :
         {std::pair{"m", "weighted_multinom"}, std::pair{"o", "weighted_polr"}}) {
      for (const auto& [term, want] : golden().at(golden_case)) {
        const std::string scope = std::string(analysis) + ":" + term;
        EXPECT_NEAR(value_of(r, "confidential_estimate", scope), want.estimate,
                    1e-6 * std::abs(want.estimate))
            << scope;
        EXPECT_NEAR(value_of(r, "confidential_se", scope), want.se, 1e-6 * std::abs(want.se))
            << scope;
      }
    }
    for (const auto& w : r.warnings)
      EXPECT_EQ(w.find("no design-weighted form"), std::string::npos) << w;
    // The replicate's fit: weighted by its own pw, or the plain fit.
    const Table& syn = t.synthetic.front();
    const auto d =
        design("stype ~ api00 + meals + sch_wide", syn, stats::ResponseKind::kCategorical);
    stats::CategoricalModelOptions options;
    if (policy == "own") {
      options.weights.resize(d.matrix.x.rows());
      for (Eigen::Index i = 0; i < d.matrix.x.rows(); ++i)
        options.weights[i] = syn.column("pw").numeric[d.matrix.rows[static_cast<std::size_t>(i)]];
      options.design_rows = syn.rows();
    }
    const auto fit = stats::fit_multinomial_logit(d.matrix.x, d.matrix.y, 3, options);
    ASSERT_TRUE(fit.converged);
    const auto names = multinomial_names(d.layout);
    const auto& replicate = [&]() -> const nlohmann::json& {
      for (const auto& a : r.details["analyses"])
        if (a["name"] == "m") return a["replicates"][0];
      throw std::runtime_error("no analysis m");
    }();
    for (std::size_t j = 0; j < names.size(); ++j) {
      const auto k = static_cast<Eigen::Index>(j);
      EXPECT_NEAR(replicate["q"][j].get<double>(), fit.theta[k], 1e-9 * std::abs(fit.theta[k]))
          << policy << " " << names[j];
      EXPECT_NEAR(std::sqrt(replicate["v"][j].get<double>()), fit.se[k], 1e-9 * fit.se[k])
          << policy << " " << names[j];
    }
  }
}
