// synthpop-compatible fit comparison (analysis_inference_comparison, rules synthpop and
// synthpop_population, lack-of-fit test) against synthpop 1.9-3 on the real SD2011 survey, and
// the Reiter full-synthesis fallback.
// Golden values: tests/golden/specific/synthpop_fit/make_golden.R (R 4.2.2, synthpop 1.9-3's
// compare.fit.synds and summary.fit.synds on replicates made by its syn()).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stats/combining.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string golden_dir() {
  return (std::filesystem::path(__FILE__).parent_path() / "../golden/specific/synthpop_fit")
      .string();
}

struct GoldenRow {
  std::string case_name, analysis, scope, statistic;
  bool population_inference = false;
  double value = 0.0;
};

std::vector<GoldenRow> golden_rows() {
  std::ifstream in(golden_dir() + "/golden.tsv");
  std::string line;
  std::getline(in, line);  // header
  std::vector<GoldenRow> rows;
  while (std::getline(in, line)) {
    const auto f = split(line, '\t');
    if (f.size() != 6) {
      ADD_FAILURE() << "golden.tsv: malformed line " << line;
      continue;
    }
    rows.push_back({f[0], f[1], f[3], f[4], f[2] == "TRUE", std::stod(f[5])});
  }
  return rows;
}

// The SD2011 file with income's code −8 declared missing, as synthpop's cont.na.
Tables sd2011(const std::string& case_name, int m) {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8.0};
  std::vector<std::string> replicates;
  for (int r = 1; r <= m; ++r)
    replicates.push_back(golden_dir() + "/" + case_name + "_" + std::to_string(r) + ".csv.gz");
  return load_tables(shared_data("sd2011/orig.csv"), replicates, std::nullopt, settings);
}

EvaluationContext context(SynthesisType synthesis, std::vector<AnalysisSpec> analyses) {
  EvaluationContext c;
  c.synthesis = synthesis;
  c.analyses = std::move(analyses);
  return c;
}

// Every golden number of one case, at 1e-6 relative.
void expect_case_matches(const std::string& case_name, const MetricResult& r) {
  std::size_t checked = 0;
  for (const auto& g : golden_rows()) {
    if (g.case_name != case_name) continue;
    const std::string rule = g.population_inference ? "synthpop_population" : "synthpop";
    std::string scope = g.analysis + (g.scope.empty() ? "" : ":" + g.scope);
    const bool rule_free =
        g.statistic == "confidential_estimate" || g.statistic == "confidential_se";
    if (!rule_free) scope += ";rule=" + rule;
    // synthpop's CI overlap and its mean are unfloored: ci_overlap_signed here.
    const double ours = value_of(r, g.statistic, scope);
    EXPECT_NEAR(ours, g.value, 1e-6 * std::abs(g.value))
        << case_name << " " << g.statistic << " [" << scope << "]";
    ++checked;
  }
  EXPECT_GT(checked, 100u) << case_name;
}

}  // namespace

// m = 3 syntheses of every column: synthpop's complete-synthesis rules and the χ² lack-of-fit.
TEST(SynthpopFitComparison, MatchesSynthpopOnSd2011FullSynthesis) {
  const auto t = sd2011("full", 3);
  const auto ctx =
      context(SynthesisType::kFull,
              {{.name = "income_lm", .kind = "lm", .formula = "income ~ age + sex + edu"},
               {.name = "smoke_glm", .kind = "glm_logit", .formula = "smoke ~ age + sex + edu"}});
  const auto r = run_metric("analysis_inference_comparison", t, nlohmann::json::object(), ctx);
  expect_case_matches("full", r);
  EXPECT_EQ(value_of(r, "lack_of_fit_df", "income_lm;rule=synthpop"), 6.0);
  // The headline reads synthpop's default rule.
  const double overlap = value_of(r, "mean_ci_overlap", "all;rule=synthpop");
  EXPECT_GT(overlap, 0.0);
  EXPECT_LE(overlap, 1.0);
  // Reiter's rule for the declared synthesis type is there by default, under its own name.
  EXPECT_TRUE(std::isfinite(value_of(r, "synthetic_se", "income_lm:age;rule=reiter_full")));
  const auto& forest = r.details["plots"][0];
  EXPECT_EQ(forest["kind"], "forest");
  EXPECT_EQ(forest["data"][1]["rule"], "synthpop");
  EXPECT_TRUE(r.details["analyses"][0]["synthpop"]["response_synthesised"].get<bool>());
}

// m = 4 syntheses with sex, edu and smoke kept: the logistic model's response was not
// synthesised (Reiter's partial variance b/m + v_conf, Hotelling's T² with F(3, 1)); the linear
// model's response income was, so it keeps the complete rules.
TEST(SynthpopFitComparison, MatchesSynthpopOnSd2011PartialSynthesis) {
  const auto t = sd2011("partial", 4);
  const auto ctx =
      context(SynthesisType::kPartial,
              {{.name = "income_lm", .kind = "lm", .formula = "income ~ age + sex + edu"},
               {.name = "smoke_glm", .kind = "glm_logit", .formula = "smoke ~ age + sex"}});
  const auto r = run_metric("analysis_inference_comparison", t, nlohmann::json::object(), ctx);
  expect_case_matches("partial", r);
  EXPECT_TRUE(r.details["analyses"][0]["synthpop"]["response_synthesised"].get<bool>());
  EXPECT_FALSE(r.details["analyses"][1]["synthpop"]["response_synthesised"].get<bool>());
  EXPECT_EQ(value_of(r, "lack_of_fit_df2", "smoke_glm;rule=synthpop"), 1.0);
  // The same files declared a full synthesis: no unsynthesised response, complete rules.
  const auto full = run_metric("analysis_inference_comparison", t, nlohmann::json::object(),
                               context(SynthesisType::kFull, ctx.analyses));
  EXPECT_TRUE(full.details["analyses"][1]["synthpop"]["response_synthesised"].get<bool>());
}

// With the response unsynthesised and no more replicates than coefficients there is no
// Hotelling test: NaN and a warning, not a number from a singular covariance.
TEST(SynthpopFitComparison, HotellingNeedsMoreReplicatesThanCoefficients) {
  const auto t = sd2011("partial", 4);
  const auto r = run_metric(
      "analysis_inference_comparison", t, nlohmann::json::object(),
      context(SynthesisType::kPartial,
              {{.name = "g", .kind = "glm_logit", .formula = "smoke ~ age + sex + edu"}}));
  EXPECT_TRUE(std::isnan(value_of(r, "lack_of_fit", "g;rule=synthpop")));
  EXPECT_TRUE(std::isnan(value_of(r, "lack_of_fit_p", "g;rule=synthpop")));
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("more replicates (m = 4)") != std::string::npos;
  EXPECT_TRUE(warned);
}

// Reiter's T_f with a tiny ν_f: b = 0.01, v̄ = 0.0125, T_f = (4/3)0.01 − 0.0125 = 0.000833,
// ν_f = 2(1 − 0.0125/0.013333)² = 0.0078, whose t quantile would give an interval of ±10^100s.
TEST(SynthpopFitComparison, ReiterFullFallsBackToNonNegativeVarianceWhenDfIsTiny) {
  const std::vector<double> q = {1.0, 1.1, 1.2}, v = {0.0120, 0.0125, 0.0130};
  const auto published = stats::combine_full(q, v, 1.0, 0.95, 0.0);
  EXPECT_FALSE(published.variance_adjusted);
  EXPECT_NEAR(published.df, 2 * std::pow(1 - 0.0125 / (4.0 / 3 * 0.01), 2), 1e-12);
  const auto guarded = stats::combine_full(q, v, 1.0, 0.95, 1.0);
  EXPECT_TRUE(guarded.variance_adjusted);
  EXPECT_TRUE(std::isinf(guarded.df));
  const double tf = 4.0 / 3 * 0.01 - 0.0125;
  EXPECT_NEAR(guarded.variance, tf + 0.0125, 1e-15);
  EXPECT_NEAR(guarded.interval.upper, 1.1 + 1.959963984540054 * std::sqrt(tf + 0.0125), 1e-12);
  EXPECT_NE(guarded.note.find("ν_f"), std::string::npos) << guarded.note;
}

// The metric names the fallback in a warning and on the interval.
TEST(SynthpopFitComparison, ReiterFullFallbackIsWarnedAndNamed) {
  const auto t = make_tables("x,y\n1,1.0\n2,2.1\n3,2.9\n4,4.2\n5,5.0\n6,5.9\n",
                             {"x,y\n1,1.1\n2,2.0\n3,3.0\n4,4.0\n5,5.1\n6,6.0\n",
                              "x,y\n1,0.9\n2,2.1\n3,3.1\n4,3.9\n5,5.0\n6,6.1\n",
                              "x,y\n1,1.0\n2,2.0\n3,2.9\n4,4.1\n5,4.9\n6,6.0\n"});
  const auto r = run_metric(
      "analysis_inference_comparison", t, {{"rules", nlohmann::json::array({"reiter_full"})}},
      context(SynthesisType::kFull, {{.name = "l", .kind = "lm", .formula = "y ~ x"}}));
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("rule reiter_full") != std::string::npos;
  EXPECT_TRUE(warned);
  for (const auto& e : r.details["analyses"][0]["estimands"]) {
    const auto& syn = e["rules"]["reiter_full"]["synthetic"];
    EXPECT_EQ(syn["rule"], "reiter_full");
    EXPECT_TRUE(syn["variance"] == "T_f*" || syn["variance"] == "T_f") << syn.dump();
    EXPECT_LT(std::abs(syn["upper"].get<double>()), 100.0) << syn.dump();
  }
  // synthpop's rule is always reported: the headlines read it.
  EXPECT_TRUE(std::isfinite(value_of(r, "mean_ci_overlap", "all;rule=synthpop")));
}

TEST(SynthpopFitComparison, UnknownRuleIsBadInput) {
  const auto t = make_tables("x,y\n1,2\n2,3\n3,5\n", {"x,y\n1,2\n2,3\n3,4\n"});
  try {
    run_metric("analysis_inference_comparison", t,
               {{"rules", nlohmann::json::array({"synthpop_pop"})}},
               context(SynthesisType::kFull, {{.name = "l", .kind = "lm", .formula = "y ~ x"}}));
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("synthpop_pop"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean"), std::string::npos) << m;
  }
}

// MASS::ginv: the Moore–Penrose conditions on a rank-deficient matrix, and the inverse of a
// regular one.
TEST(SynthpopFitComparison, PseudoInverseIsMoorePenrose) {
  Eigen::MatrixXd a(3, 3);
  a << 2, 1, 3, 1, 1, 2, 3, 2, 5;  // third column = first + second
  const Eigen::MatrixXd p = stats::pseudo_inverse(a);
  EXPECT_LT((a * p * a - a).norm(), 1e-12);
  EXPECT_LT((p * a * p - p).norm(), 1e-12);
  EXPECT_LT((a * p - (a * p).transpose()).norm(), 1e-12);
  EXPECT_LT((p * a - (p * a).transpose()).norm(), 1e-12);
  Eigen::MatrixXd b(2, 2);
  b << 4, 1, 1, 3;
  EXPECT_LT((stats::pseudo_inverse(b) - b.inverse()).norm(), 1e-14);
}
