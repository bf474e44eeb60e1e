// The verdict and the release policy (result/verdict.hpp, the policy block of spec/spec.hpp), and
// the baselines the engine computes for them, end to end on the simulator's candidates.
#include "result/verdict.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "engine/evaluate.hpp"
#include "sim/simulator.hpp"

using namespace synthaudit;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

json values(const std::string& statistic, double value) {
  return json::array({{{"statistic", statistic}, {"scope", "all"}, {"value", value}}});
}

json candidate(const std::string& name, const std::string& statistic, double value) {
  return {{"name", name},
          {"replicates", {{{"replicate", 1}, {"values", values(statistic, value)}}}}};
}

// Three candidates; a utility headline (higher is better) and a risk headline, a share whose
// baseline is the holdout (value 0.1, noise sd 0.01).
json document(double risk_a, double risk_b, double risk_c) {
  json utility = {{"name", "m_utility"},
                  {"family", "general"},
                  {"headlines",
                   {{{"statistic", "u"},
                     {"scope", "all"},
                     {"ideal", {{"kind", "higher"}}},
                     {"reading", "overlap"},
                     {"axis", "utility"},
                     {"unit", "number"},
                     {"baseline", nullptr}}}},
                  {"candidates",
                   {candidate("a", "u", 0.9), candidate("b", "u", 0.8), candidate("c", "u", 0.7)}}};
  json risk = {{"name", "m_risk"},
               {"family", "distance-disclosure"},
               {"headlines",
                {{{"statistic", "copies"},
                  {"scope", "all"},
                  {"ideal", {{"kind", "lower"}}},
                  {"reading", "share of synthetic records that copy a real one"},
                  {"axis", "risk"},
                  {"unit", "share"},
                  {"baseline", {{"kind", "holdout"}, {"name", "holdout"}, {"note", "n"}}}}}},
               {"candidates",
                {candidate("a", "copies", risk_a),
                 candidate("b", "copies", risk_b),
                 candidate("c", "copies", risk_c),
                 {{"name", "holdout"},
                  {"baseline", true},
                  {"replicates", {{{"replicate", 1}, {"values", values("copies", 0.1)}}}},
                  {"noise", {{"values", values("copies", 0.01)}}}}}}};
  return {{"schema", "synthaudit/1"},
          {"candidates", {{{"name", "a"}}, {{"name", "b"}}, {{"name", "c"}}}},
          {"warnings", json::array()},
          {"metrics", {utility, risk}}};
}

// The default policy judged on the metrics of a hand-made document only: the registered risk
// families it does not hold would otherwise keep every candidate from passing.
ReleasePolicy on_these_metrics() {
  ReleasePolicy policy;
  policy.require_default_checks = false;
  return policy;
}

const json& verdict_of(const json& verdict, const std::string& name) {
  for (const auto& c : verdict["candidates"])
    if (c["name"] == name) return c;
  throw std::runtime_error("no candidate " + name);
}

bool any_reason_contains(const json& candidate, const std::string& text) {
  for (const auto& r : candidate["reasons"])
    if (r.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(Verdict, DefaultRuleFailsReviewsAndPassesAgainstTheHoldoutNoise) {
  // The holdout and a candidate are two samples: their difference has sd sqrt(2) 0.01 = 1.41
  // points. a: 30 % copies (fail: beyond 4 sd and 25 % of the baseline); b: 13 % (review: beyond
  // 2 sd = 2.83 points, within the fail limit of 15.66 %); c: 11 % (pass: within the noise).
  const json verdict = decide_verdict(document(0.30, 0.13, 0.11), on_these_metrics());
  ASSERT_TRUE(verdict.is_object());
  EXPECT_EQ(verdict_of(verdict, "a")["status"], "fail");
  EXPECT_EQ(verdict_of(verdict, "b")["status"], "review");
  EXPECT_EQ(verdict_of(verdict, "c")["status"], "pass");
  // a has the best utility but fails: never recommended.
  EXPECT_EQ(verdict["recommended"], "c");
  EXPECT_TRUE(any_reason_contains(verdict_of(verdict, "a"), "30 % for this candidate against 10 %"))
      << verdict_of(verdict, "a")["reasons"].dump();
  const json& check = verdict_of(verdict, "a")["checks"][0];
  EXPECT_EQ(check["criterion"], "m_risk.copies");
  EXPECT_DOUBLE_EQ(check["baseline"].get<double>(), 0.1);
  EXPECT_NEAR(check["limit"].get<double>(), 0.1 + 4 * std::sqrt(2.0) * 0.01, 1e-12);
  EXPECT_EQ(verdict["policy"]["source"], "default");
  EXPECT_EQ(verdict["policy"]["criteria"][0]["relative_to"], "holdout");
  EXPECT_FALSE(no_candidate_passes({{"verdict", verdict}}));
}

// A utility metric with two headlines measured against the resample baseline (value, noise sd)
// and the independent-marginals baseline: "gap" (lower is better) tells independent columns
// (0.5) from a resample (0.1, sd 0.01); "per_column" does not (independent columns keep each
// column: 0.0 beside the resample's 0.02), so only "gap" counts.
json floor_metric(double gap_a, double gap_b, double gap_c) {
  auto two = [](double gap, double per_column) {
    return json::array({{{"statistic", "gap"}, {"scope", "all"}, {"value", gap}},
                        {{"statistic", "per_column"}, {"scope", "all"}, {"value", per_column}}});
  };
  auto entry = [&](const std::string& name, double gap, double per_column) {
    return json{{"name", name},
                {"replicates", {{{"replicate", 1}, {"values", two(gap, per_column)}}}}};
  };
  auto headline = [](const std::string& statistic) {
    return json{{"statistic", statistic},
                {"scope", "all"},
                {"ideal", {{"kind", "lower"}}},
                {"reading", statistic},
                {"axis", "utility"},
                {"unit", "number"},
                {"baseline", {{"kind", "resample"}, {"name", "resample"}, {"note", "n"}}}};
  };
  json resample = entry("resample", 0.1, 0.02);
  resample["baseline"] = true;
  resample["noise"] = {{"values", two(0.01, 0.005)}};
  json floor = entry("independent_marginals", 0.5, 0.0);
  floor["baseline"] = true;
  return {{"name", "m_fit"},
          {"family", "general"},
          {"headlines", {headline("gap"), headline("per_column")}},
          {"candidates",
           {entry("a", gap_a, 0.02), entry("b", gap_b, 0.02), entry("c", gap_c, 0.02), resample,
            floor}}};
}

const json& check_of(const json& candidate, const std::string& criterion) {
  for (const auto& check : candidate["checks"])
    if (check["criterion"] == criterion) return check;
  throw std::runtime_error("no check " + criterion);
}

TEST(Verdict, UtilityFloorMeasuresTheWayFromIndependentColumnsToAResample) {
  // a keeps (0.5 - 0.12) / (0.5 - 0.1) = 95 % (pass), b 37.5 % (review, below 50 %), c 5 %
  // (fail, below 25 %: not fit for use); risk is alike for all three.
  json doc = document(0.1, 0.1, 0.1);
  doc["metrics"].push_back(floor_metric(0.12, 0.35, 0.48));
  const json verdict = decide_verdict(doc, on_these_metrics());
  const json& a = check_of(verdict_of(verdict, "a"), "utility_floor");
  EXPECT_NEAR(a["value"].get<double>(), 0.95, 1e-12);
  ASSERT_EQ(a["headlines"].size(), 1u) << a.dump(1);  // per_column cannot tell them apart
  EXPECT_EQ(a["headlines"][0]["statistic"], "gap");
  EXPECT_DOUBLE_EQ(a["headlines"][0]["floor"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(a["headlines"][0]["perfect"].get<double>(), 0.1);
  EXPECT_EQ(a["status"], "pass");
  EXPECT_NEAR(check_of(verdict_of(verdict, "b"), "utility_floor")["value"].get<double>(), 0.375,
              1e-12);
  EXPECT_EQ(verdict_of(verdict, "b")["status"], "review");
  EXPECT_EQ(verdict_of(verdict, "c")["status"], "fail");
  EXPECT_TRUE(any_reason_contains(verdict_of(verdict, "c"), "Not fit for use: it keeps 5 %"))
      << verdict_of(verdict, "c")["reasons"].dump(1);
  EXPECT_EQ(verdict["recommended"], "a");
  EXPECT_TRUE(any_reason_contains(verdict_of(verdict, "a"),
                                  "passes the risk checks and the utility floor"));
  // The policy sets the levels, or turns the floor off.
  ReleasePolicy lenient = on_these_metrics();
  lenient.utility_floor.fail = 0.01;
  lenient.utility_floor.review = 0.02;
  EXPECT_EQ(verdict_of(decide_verdict(doc, lenient), "c")["status"], "pass");
  ReleasePolicy off = on_these_metrics();
  off.utility_floor.enabled = false;
  const json unjudged = decide_verdict(doc, off);
  EXPECT_EQ(verdict_of(unjudged, "c")["status"], "pass");
  for (const auto& check : verdict_of(unjudged, "c")["checks"])
    EXPECT_NE(check["criterion"], "utility_floor");
  // Without the floor's baseline nothing is judged, and nothing is held against the candidate.
  json no_floor = document(0.1, 0.1, 0.1);
  json metric = floor_metric(0.12, 0.35, 0.48);
  metric["candidates"].erase(4);
  no_floor["metrics"].push_back(metric);
  const json not_measured = decide_verdict(no_floor, on_these_metrics());
  EXPECT_EQ(verdict_of(not_measured, "c")["status"], "pass");
  EXPECT_EQ(check_of(verdict_of(not_measured, "c"), "utility_floor")["status"], "not_evaluated");
}

TEST(Verdict, ARiskFamilyThatDidNotRunKeepsACandidateFromPassing) {
  // The document holds one risk metric of no registered family: every default risk family is
  // missing, and a candidate within its baseline's noise is sent to review saying so.
  const json verdict = decide_verdict(document(0.1, 0.1, 0.1), ReleasePolicy{});
  const json& c = verdict_of(verdict, "c");
  EXPECT_EQ(c["status"], "review");
  EXPECT_TRUE(any_reason_contains(c,
                                  "Not every default risk family ran, so it cannot pass: "
                                  "key-disclosure"))
      << c["reasons"].dump(1);
  EXPECT_TRUE(any_reason_contains(c, "require_default_checks: false")) << c["reasons"].dump(1);
  EXPECT_TRUE(any_reason_contains(c, "not selected")) << c["reasons"].dump(1);
  bool family_named = false;
  for (const auto& check : verdict["not_run"])
    family_named = family_named || check["family"] == "distance-disclosure";
  EXPECT_TRUE(family_named) << verdict["not_run"].dump(1);
  EXPECT_EQ(verdict["policy"]["require_default_checks"], true);
  // The policy may say the families are not needed; a failing candidate fails either way.
  EXPECT_EQ(verdict_of(decide_verdict(document(0.1, 0.1, 0.1), on_these_metrics()), "c")["status"],
            "pass");
  EXPECT_EQ(verdict_of(decide_verdict(document(0.3, 0.1, 0.1), ReleasePolicy{}), "a")["status"],
            "fail");
}

TEST(Verdict, MarginsAreParameters) {
  ReleasePolicy strict;
  strict.margins.review_sd = 0.5;  // b's 3 points above: fails beyond 1 sd (1.41) and 10 %
  strict.margins.fail_sd = 1.0;
  strict.margins.fail_relative = 0.1;
  const json verdict = decide_verdict(document(0.30, 0.13, 0.11), strict);
  EXPECT_EQ(verdict_of(verdict, "b")["status"], "fail");
  EXPECT_EQ(verdict_of(verdict, "c")["status"], "review");
}

TEST(Verdict, WhenNothingPassesTheBestToReviewIsNamedAndExitThreeApplies) {
  const json verdict = decide_verdict(document(0.30, 0.13, 0.14), ReleasePolicy{});
  EXPECT_EQ(verdict_of(verdict, "c")["status"], "review");
  EXPECT_EQ(verdict["recommended"], "b");  // better utility than c; a fails
  EXPECT_TRUE(no_candidate_passes({{"verdict", verdict}}));
}

TEST(Verdict, NoBaselineMeansNoVerdictAndAWarning) {
  json doc = document(0.3, 0.1, 0.1);
  doc["metrics"][1]["skipped"] = "needs a holdout file (--holdout)";
  add_verdict(doc, ReleasePolicy{});
  EXPECT_TRUE(doc["verdict"].is_null());
  EXPECT_EQ(doc["warnings"].size(), 1u);
  EXPECT_FALSE(no_candidate_passes(doc));
}

TEST(ReleasePolicy, CriteriaPassOrFailAbsoluteAndRelativeToTheHoldout) {
  ReleasePolicy policy;
  policy.source = "policy.yaml";
  policy.default_checks = false;
  PolicyCriterion overlap{.id = "overlap",
                          .metric = "m_utility",
                          .statistic = "u",
                          .bound = "min",
                          .value = 0.75,
                          .key = "criteria[0]"};
  PolicyCriterion copies{.id = "copies",
                         .metric = "m_risk",
                         .statistic = "copies",
                         .bound = "max",
                         .value = 0.05,
                         .relative_to = "holdout",
                         .key = "criteria[1]"};
  PolicyCriterion target{.id = "target",
                         .metric = "m_utility",
                         .statistic = "u",
                         .bound = "target",
                         .value = 0.8,
                         .tolerance = 0.15,
                         .key = "criteria[2]"};
  policy.criteria = {overlap, copies, target};
  const json verdict = decide_verdict(document(0.12, 0.2, 0.1), policy);
  EXPECT_EQ(verdict["policy"]["criteria"].size(), 3u);
  // a: overlap 0.9 >= 0.75, copies 0.12 <= 0.1 + 0.05, |0.9 - 0.8| <= 0.15: pass.
  EXPECT_EQ(verdict_of(verdict, "a")["status"], "pass");
  // b: copies 0.2 > 0.15: fail, and the reason names the number and the baseline.
  EXPECT_EQ(verdict_of(verdict, "b")["status"], "fail");
  EXPECT_TRUE(any_reason_contains(verdict_of(verdict, "b"), "the holdout baseline is 0.1"))
      << verdict_of(verdict, "b")["reasons"].dump();
  // c: overlap 0.7 < 0.75: fail.
  EXPECT_EQ(verdict_of(verdict, "c")["status"], "fail");
  EXPECT_DOUBLE_EQ(verdict_of(verdict, "c")["checks"][0]["limit"].get<double>(), 0.75);
  EXPECT_EQ(verdict["recommended"], "a");
}

TEST(ReleasePolicy, ACriterionOnAMetricNotRunIsNotEvaluatedAndNotMet) {
  ReleasePolicy policy;
  policy.default_checks = false;
  policy.criteria = {PolicyCriterion{.id = "ks",
                                     .metric = "ks_distance",
                                     .statistic = "mean_ks_distance",
                                     .bound = "max",
                                     .value = 0.1,
                                     .key = "criteria[0]"}};
  const json verdict = decide_verdict(document(0.1, 0.1, 0.1), policy);
  EXPECT_EQ(verdict_of(verdict, "a")["checks"][0]["status"], "not_evaluated");
  EXPECT_EQ(verdict_of(verdict, "a")["status"], "review");
}

TEST(ReleasePolicy, UnknownStatisticOrScopeIsBadInputNamingTheKey) {
  ReleasePolicy policy;
  policy.criteria = {PolicyCriterion{.id = "x",
                                     .metric = "m_risk",
                                     .statistic = "copie",
                                     .bound = "max",
                                     .value = 0.1,
                                     .key = "policy.criteria[0]"}};
  try {
    decide_verdict(document(0.1, 0.1, 0.1), policy, "spec.yaml");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("spec.yaml: policy.criteria[0].statistic"), std::string::npos)
        << message;
    EXPECT_NE(message.find("did you mean 'copies'"), std::string::npos) << message;
  }
  policy.criteria[0].statistic = "copies";
  policy.criteria[0].scope = "age";
  EXPECT_THROW(decide_verdict(document(0.1, 0.1, 0.1), policy), InputError);
}

TEST(ReleasePolicy, SpecBlockAndPolicyFileParseAndRejectBadKeys) {
  const fs::path dir =
      fs::temp_directory_path() / ("synthaudit_policy_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string good = write("policy.yaml",
                                 "margins: {review_sd: 1, fail_sd: 3, fail_relative: 0.5}\n"
                                 "criteria:\n"
                                 "  - metric: distance_to_closest_record\n"
                                 "    statistic: syn_to_conf_exact_copy_share\n"
                                 "    max: 0.01\n"
                                 "    relative_to: holdout\n"
                                 "  - id: pmse\n"
                                 "    metric: table_utility\n"
                                 "    statistic: mean_S_pMSE\n"
                                 "    scope: two-way\n"
                                 "    target: 1\n"
                                 "    tolerance: 0.5\n");
  const ReleasePolicy policy = load_policy(good);
  EXPECT_EQ(policy.source, good);
  ASSERT_EQ(policy.criteria.size(), 2u);
  EXPECT_EQ(policy.criteria[0].id, "distance_to_closest_record.syn_to_conf_exact_copy_share");
  EXPECT_EQ(policy.criteria[0].relative_to, "holdout");
  EXPECT_EQ(policy.criteria[1].bound, "target");
  EXPECT_DOUBLE_EQ(*policy.criteria[1].tolerance, 0.5);
  EXPECT_DOUBLE_EQ(policy.margins.fail_relative, 0.5);
  EXPECT_NO_THROW(validate_policy(policy, good));

  const ReleasePolicy floored = load_policy(write(
      "floor.yaml", "utility_floor: {fail: 0.1, review: 0.3}\nrequire_default_checks: false\n"));
  EXPECT_TRUE(floored.utility_floor.enabled);
  EXPECT_DOUBLE_EQ(floored.utility_floor.fail, 0.1);
  EXPECT_DOUBLE_EQ(floored.utility_floor.review, 0.3);
  EXPECT_FALSE(floored.require_default_checks);
  EXPECT_FALSE(load_policy(write("nofloor.yaml", "utility_floor: false\n")).utility_floor.enabled);
  EXPECT_TRUE(load_policy(good).utility_floor.enabled);
  EXPECT_TRUE(load_policy(good).require_default_checks);

  auto error_of = [&](const std::string& text) -> std::string {
    const std::string path = write("bad.yaml", text);
    try {
      validate_policy(load_policy(path), path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of("utility_floor: true\n").find("utility_floor: expected false"),
            std::string::npos);
  EXPECT_NE(error_of("utility_floor: {fail: 0.6, review: 0.5}\n")
                .find("utility_floor.fail: must be at most the review share"),
            std::string::npos);
  EXPECT_NE(
      error_of("utility_floor: {fail: 2}\n").find("utility_floor.fail: must be between 0 and 1"),
      std::string::npos);
  EXPECT_NE(error_of("utility_floor: {fial: 0.2}\n").find("utility_floor.fial: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("require_default_checks: maybe\n")
                .find("require_default_checks: expected true or false"),
            std::string::npos);
  EXPECT_NE(error_of("criteria:\n  - metric: ks_distance\n    statistic: s\n    maxx: 1\n")
                .find("criteria[0].maxx: unknown key (did you mean 'max'?)"),
            std::string::npos);
  EXPECT_NE(error_of("criteria:\n  - metric: ks_distanse\n    statistic: s\n    max: 1\n")
                .find("criteria[0].metric: no metric named 'ks_distanse' (did you mean "
                      "'ks_distance'?)"),
            std::string::npos);
  EXPECT_NE(error_of("criteria:\n  - metric: ks_distance\n    statistic: s\n    max: 1\n")
                .find("criteria[0].statistic: ks_distance declares no statistic 's'"),
            std::string::npos);
  EXPECT_NE(error_of("criteria:\n  - metric: ks_distance\n    statistic: mean_ks_distance\n"
                     "    max: 1\n    relative_to: holdout\n")
                .find("relative_to: ks_distance has no holdout baseline"),
            std::string::npos);
  EXPECT_NE(error_of("criteria:\n  - metric: ks_distance\n    statistic: s\n    target: 1\n")
                .find("a target needs a tolerance"),
            std::string::npos);
  EXPECT_NE(error_of("critera: []\n").find("critera: unknown key (did you mean 'criteria'?)"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(PlainNumber, FourSignificantDigitsNoExponentPercentForShares) {
  EXPECT_EQ(plain_number(0.14234, "share"), "14.23 %");
  EXPECT_EQ(plain_number(3.1, "percent"), "3.1 %");
  EXPECT_EQ(plain_number(16000.4), "16000");
  EXPECT_EQ(plain_number(12345678.0), "12345678");
  EXPECT_EQ(plain_number(0.000032147), "0.00003215");
  EXPECT_EQ(plain_number(0.5), "0.5");
  EXPECT_EQ(plain_number(-0.25), "-0.25");
  EXPECT_EQ(plain_number(0.0, "share"), "0 %");
}

// End to end on the simulator: `leaky` perturbs the confidential rows slightly (a near-copy),
// `ideal` draws fresh records from the population. The near-copy must fail with a reason naming
// its risk number and the holdout baseline, and never be recommended; ideal can pass.
TEST(Verdict, SimulatedNearCopyFailsAndAFreshDrawPasses) {
  const fs::path dir =
      fs::temp_directory_path() / ("synthaudit_verdict_" + std::to_string(::getpid()));
  SimulationOptions options;
  options.rows = 1500;
  options.replicates = 2;
  options.out_dir = dir.string();
  const auto files = simulate(options);
  EvaluationSpec spec = load_spec(files.spec_path);
  spec.metrics = {"distance_to_closest_record", "distance_membership_inference",
                  "synthpop_disclosure", "ks_distance", "total_variation"};
  spec.baseline_draws = 3;
  spec.policy.require_default_checks = false;  // judged on these metrics only
  json doc = evaluate(spec, load_evaluation_data(spec));
  // holdout, resample and the utility floor's independent marginals (ks_distance has a resample
  // baseline).
  ASSERT_EQ(doc["baselines"].size(), 3u);
  EXPECT_EQ(doc["baselines"][2]["name"], "independent_marginals");
  add_verdict(doc, spec.policy, spec.origin);
  const json& verdict = doc["verdict"];
  ASSERT_TRUE(verdict.is_object()) << doc["warnings"].dump();
  const json& leaky = verdict_of(verdict, "leaky");
  EXPECT_EQ(leaky["status"], "fail") << leaky.dump(1);
  EXPECT_NE(verdict["recommended"], "leaky");
  EXPECT_TRUE(any_reason_contains(leaky, "a fresh real sample (the holdout)")) << leaky.dump(1);
  EXPECT_EQ(verdict_of(verdict, "ideal")["status"], "pass") << verdict.dump(1);
  EXPECT_EQ(verdict["recommended"], "ideal");
  // The baseline rows are in the document beside the candidates, named holdout and resample.
  bool holdout_row = false, resample_row = false;
  for (const auto& metric : doc["metrics"])
    for (const auto& entry : metric["candidates"]) {
      holdout_row = holdout_row || (entry["name"] == "holdout" && entry["baseline"] == true);
      resample_row = resample_row || (entry["name"] == "resample" && entry.contains("noise"));
    }
  EXPECT_TRUE(holdout_row);
  EXPECT_TRUE(resample_row);
  fs::remove_all(dir);
}
