#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "sim/simulator.hpp"
#include "stats/keys.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

EvaluationContext scenarios(std::vector<DisclosureScenario> list) {
  EvaluationContext c;
  c.scenarios = std::move(list);
  return c;
}

std::string golden_dir() {
  return (std::filesystem::path(__FILE__).parent_path() / "../golden/keydisc").string();
}

const nlohmann::json& golden() {
  static const nlohmann::json g = [] {
    std::ifstream f(golden_dir() + "/golden.json");
    return nlohmann::json::parse(f);
  }();
  return g;
}

// Relative tolerance 1e-9 (both sides are double sums in a different order); null = NaN.
void expect_close(double got, const nlohmann::json& want, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what;
    return;
  }
  const double w = want.get<double>();
  EXPECT_NEAR(got, w, 1e-9 * std::max(1.0, std::abs(w))) << what;
}

// A hand-built table where every synthpop measure is counted by hand (see the comments):
// keys A..F, target levels y/n/m; key D is absent from the synthetic data, key F from the
// confidential data; A is disclosive and correct, B disclosive and correct for one of its two
// records, C disclosive and wrong, E not disclosive.
// The matching rule of synthpop and SDMetrics: exact equality, missing a value of its own.
const nlohmann::json kSynthpopMatching = {
    {"numeric_tolerance", 0.0}, {"relative_tolerance", 0.0}, {"missing_matches", true}};

const char* kHandConf = "k,t\nA,y\nA,y\nA,y\nB,y\nB,n\nC,n\nD,m\nE,n\nE,n\nE,m\n";
const char* kHandSyn = "k,t\nA,y\nA,y\nB,n\nC,y\nE,n\nE,m\nF,y\nF,y\n";

}  // namespace

// synthpop 1.9-3 disclosure(syn, orig, keys = c("sex","age","edu","marital"), target = "smoke")
// on SD2011 (../shared/data/sd2011/ref_synthpop_orig_vs_syn.tsv), read with cont.na income = -8.
TEST(SynthpopDisclosure, ReproducesSynthpopOnSd2011) {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8};
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                             std::nullopt, settings);
  const auto r = run_metric("synthpop_disclosure", t, kSynthpopMatching,
                            scenarios({{{"sex", "age", "edu", "marital"}, {"smoke"}}}));
  const std::string s = "keys=sex,age,edu,marital;target=smoke";
  EXPECT_NEAR(value_of(r, "UiO", s), 8.6, 1e-9);
  EXPECT_NEAR(value_of(r, "UiS", s), 8.54, 1e-9);
  EXPECT_NEAR(value_of(r, "UiOiS", s), 3.94, 1e-9);
  EXPECT_NEAR(value_of(r, "repU", s), 2.26, 1e-9);
  EXPECT_NEAR(value_of(r, "Dorig", s), 25.66, 1e-9);
  EXPECT_NEAR(value_of(r, "Dsyn", s), 28.22, 1e-9);
  EXPECT_NEAR(value_of(r, "iS", s), 91.3, 1e-9);
  EXPECT_NEAR(value_of(r, "DiS", s), 27.34, 1e-9);
  EXPECT_NEAR(value_of(r, "DiSCO", s), 21.62, 1e-9);
  EXPECT_NEAR(value_of(r, "DiSDiO", s), 11.26, 1e-9);
  EXPECT_NEAR(value_of(r, "max_denom", s), 32, 1e-12);
  EXPECT_NEAR(value_of(r, "mean_denom", s), 3.07102272727273, 1e-12);
  EXPECT_NEAR(value_of(r, "repU_max", "all"), 2.26, 1e-9);
}

// SDMetrics 0.29.1 CategoricalCAP(orig, syn, key_fields = [sex, edu, marital],
// sensitive_fields = [smoke]) = 0.3631172990388589 (ref_sdmetrics_orig_vs_syn.tsv): SDMetrics
// keeps NaN as a category (pandas merges NaN with NaN), so missing is a level here too.
TEST(DisclosureProtection, ReproducesSdmetricsCategoricalCapOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")});
  const auto r = run_metric("disclosure_protection", t, kSynthpopMatching,
                            scenarios({{{"sex", "edu", "marital"}, {"smoke"}}}));
  const std::string s = "keys=sex,edu,marital;targets=smoke";
  EXPECT_NEAR(value_of(r, "categorical_cap", s), 0.3631172990388589, 1e-12);
  // smoke has levels NO, YES and missing in the real data: baseline 1 − 1/3.
  EXPECT_NEAR(value_of(r, "baseline_protection", s), 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(value_of(r, "disclosure_protection", s), 0.3631172990388589 / (2.0 / 3.0), 1e-12);
}

TEST(SynthpopDisclosure, HandCountedTable) {
  const auto t = make_tables(kHandConf, {kHandSyn});
  const auto ctx = scenarios({{{"k"}, {"t"}}});
  const auto r = run_metric("synthpop_disclosure", t, kSynthpopMatching, ctx);
  const std::string s = "keys=k;target=t";
  EXPECT_NEAR(value_of(r, "UiO", s), 20, 1e-12);     // C, D unique in 10
  EXPECT_NEAR(value_of(r, "UiS", s), 25, 1e-12);     // B, C unique in 8
  EXPECT_NEAR(value_of(r, "UiOiS", s), 10, 1e-12);   // C (D absent from syn)
  EXPECT_NEAR(value_of(r, "repU", s), 10, 1e-12);    // C
  EXPECT_NEAR(value_of(r, "Dorig", s), 50, 1e-12);   // A×3, C, D
  EXPECT_NEAR(value_of(r, "Dsyn", s), 75, 1e-12);    // A×2, B, C, F×2 of 8
  EXPECT_NEAR(value_of(r, "iS", s), 90, 1e-12);      // all but D
  EXPECT_NEAR(value_of(r, "DiS", s), 60, 1e-12);     // A×3, B×2, C
  EXPECT_NEAR(value_of(r, "DiSCO", s), 40, 1e-12);   // A×3, B's n
  EXPECT_NEAR(value_of(r, "DiSDiO", s), 30, 1e-12);  // A×3
  EXPECT_NEAR(value_of(r, "max_denom", s), 3, 1e-12);
  EXPECT_NEAR(value_of(r, "mean_denom", s), 2, 1e-12);
  EXPECT_NEAR(value_of(r, "baseCAPd", s), 36, 1e-12);            // .4² + .4² + .2²
  EXPECT_NEAR(value_of(r, "CAPd", s), 76.0 + 2.0 / 3.0, 1e-12);  // (3+1+1+1+5/3)/10
  EXPECT_NEAR(value_of(r, "CAPs", s), 87.5, 1e-12);              // (2+1+1+1+2)/8
  EXPECT_NEAR(value_of(r, "DCAP", s), 55, 1e-12);                // (3+1+1+.5)/10
  EXPECT_NEAR(value_of(r, "TCAP", s), 400.0 / 9.0, 1e-12);       // 4 / 9
  // denom_lim = 2 with exclusion: the (A, y) cell of 3 is zeroed in every table.
  nlohmann::json denom = kSynthpopMatching;
  denom["denom_lim"] = 2;
  denom["exclude_over_denom_lim"] = true;
  const auto d = run_metric("synthpop_disclosure", t, denom, ctx);
  EXPECT_NEAR(value_of(d, "Dorig", s), 20, 1e-12);
  EXPECT_NEAR(value_of(d, "DiSCO", s), 10, 1e-12);
  EXPECT_NEAR(value_of(d, "excluded_original", s), 3, 1e-12);
  EXPECT_NEAR(value_of(d, "excluded_synthetic", s), 0, 1e-12);

  // The same table by CAP (seed 002): record CAPs 1,1,1,0,1,0,0,.5,.5,.5 -> v1 = .55, v2 = 5.5/9;
  // confidential 1,1,1,.5,.5,1,1,2/3,2/3,1/3; risk rose for B's n and E's m.
  const auto c = run_metric("correct_attribution_probability", t, kSynthpopMatching, ctx);
  EXPECT_NEAR(value_of(c, "cap_mean_v1", s), 0.55, 1e-12);
  EXPECT_NEAR(value_of(c, "cap_mean_v2", s), 5.5 / 9, 1e-12);
  EXPECT_NEAR(value_of(c, "cap_confidential", s), 7.6666666666666667 / 10, 1e-12);
  EXPECT_NEAR(value_of(c, "dcap_ratio_v1", s), 0.55 / 0.76666666666666667, 1e-12);
  EXPECT_NEAR(value_of(c, "absent_key_share", s), 0.1, 1e-12);
  EXPECT_NEAR(value_of(c, "risk_rose_share", s), 0.2, 1e-12);
  // SDMetrics: 1 − v2, baseline 1 − 1/3.
  const auto p = run_metric("disclosure_protection", t, kSynthpopMatching, ctx);
  EXPECT_NEAR(value_of(p, "categorical_cap", "keys=k;targets=t"), 1 - 5.5 / 9, 1e-12);
  EXPECT_NEAR(value_of(p, "disclosure_protection", "keys=k;targets=t"), (1 - 5.5 / 9) / (2.0 / 3),
              1e-12);
}

// Against tests/golden/keydisc/make_golden.py (pandas transcriptions of synthpop's
// disclosure.synds, seed 002's CalculateIndividualCAP and SDMetrics' CAPAttacker) on random
// tables with missing keys and targets and keys absent from the synthetic data.
TEST(KeyDisclosure, MatchesPandasTranscriptions) {
  const auto t = load_tables(golden_dir() + "/conf_random.csv", {golden_dir() + "/syn_random.csv"});
  const auto& g = golden()["random"];
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"a", "b"}, "t"}, {{"a", "b", "c"}, "t"}, {{"a", "c"}, "u"}};
  const std::vector<std::pair<std::string, nlohmann::json>> variants = {
      {"synthpop", nlohmann::json::object()},
      {"synthpop_denom_lim", {{"denom_lim", 3}, {"exclude_over_denom_lim", true}}},
      {"synthpop_no_missing", {{"use_target_missing", false}, {"use_keys_missing", false}}},
      {"synthpop_not_target",
       {{"not_target_levels", "no"},
        {"exclude_keys", "a"},
        {"exclude_key_levels", "x"},
        {"exclude_target_levels", "yes"}}}};
  for (const auto& [keys, target] : cases) {
    const std::string scope = "keys=" + join(keys, ",") + ";target=" + target;
    const auto ctx = scenarios({{keys, {target}}});
    for (const auto& [variant, given] : variants) {
      nlohmann::json params = kSynthpopMatching;
      params.update(given);
      const auto r = run_metric("synthpop_disclosure", t, params, ctx);
      for (const auto& [stat, want] : g[scope][variant].items())
        expect_close(value_of(r, stat, scope), want, scope + " " + variant + " " + stat);
    }
    nlohmann::json cap_params = kSynthpopMatching;
    cap_params["record_level"] = true;
    const auto c = run_metric("correct_attribution_probability", t, cap_params, ctx);
    const auto& gc = g[scope]["cap"];
    for (const char* stat : {"cap_mean_v1", "cap_mean_v2", "cap_confidential", "dcap_ratio_v1",
                             "dcap_ratio_v2", "absent_key_share", "risk_rose_share"}) {
      const std::string name = std::string(stat) == "cap_mean_v1"   ? "cap_v1"
                               : std::string(stat) == "cap_mean_v2" ? "cap_v2"
                                                                    : stat;
      expect_close(value_of(c, stat, scope), gc[name], scope + " " + stat);
    }
    EXPECT_FALSE(c.details.contains("records"));  // per record: records.tsv, not the document
    ASSERT_EQ(c.records.size(), 1u);
    const auto& records = c.records[0];
    EXPECT_EQ(records.scope, scope);
    EXPECT_EQ(records.data, "confidential");
    EXPECT_FALSE(records.confidential_only);
    ASSERT_EQ(records.fields, (std::vector<std::string>{"cap_confidential", "cap_synthetic"}));
    ASSERT_EQ(records.values[0].size(), gc["record_cap_synthetic"].size());
    for (std::size_t i = 0; i < records.values[0].size(); ++i) {
      expect_close(records.values[0][i], gc["record_cap_confidential"][i], "record conf");
      expect_close(records.values[1][i], gc["record_cap_synthetic"][i], "record syn");
    }
    const auto p = run_metric("disclosure_protection", t, kSynthpopMatching, ctx);
    const std::string pscope = "keys=" + join(keys, ",") + ";targets=" + target;
    for (const char* stat : {"categorical_cap", "baseline_protection", "disclosure_protection"})
      expect_close(value_of(p, stat, pscope), g[scope]["sdmetrics"][stat], pscope + " " + stat);
  }
  // Two targets taken jointly (SDMetrics sensitive_fields = [t, u]).
  const auto p = run_metric("disclosure_protection", t, kSynthpopMatching,
                            scenarios({{{"a", "b"}, {"t", "u"}}}));
  for (const char* stat : {"categorical_cap", "baseline_protection", "disclosure_protection"})
    expect_close(value_of(p, stat, "keys=a,b;targets=t,u"),
                 g["keys=a,b;targets=t,u"]["sdmetrics"][stat], stat);
}

// Seed 001's example: over 100 records, Jar Jar's candidate set has 3 records containing the true
// one and R2-D2's has 1 (correct); nobody else matches anything. Expected risk 1/3 + 1 = 1.333,
// true match rate 1/100, false match rate 0/1.
TEST(IdentityMatching, Seed001Example) {
  std::string conf = "homeworld,species\n", syn = "homeworld,species\n";
  for (int i = 0; i < 100; ++i) {
    std::string c = "W" + std::to_string(i) + ",S" + std::to_string(i);
    std::string s = "X" + std::to_string(i) + ",Y" + std::to_string(i);  // matches no one
    if (i == 0) c = s = "Naboo,Gungan";                                  // Jar Jar
    if (i == 1) c = s = "Naboo,Droid";                                   // R2-D2
    if (i == 2 || i == 3) s = "Naboo,Gungan";  // two more Gungans in the release
    conf += c + "\n";
    syn += s + "\n";
  }
  const auto t = make_tables(conf, {syn});
  EvaluationContext ctx = scenarios({{{"homeworld", "species"}, {}}});
  ctx.synthesis = SynthesisType::kPartial;
  const auto r = run_metric("identity_matching", t, {}, ctx);
  const std::string s = "keys=homeworld,species";
  EXPECT_NEAR(value_of(r, "expected_match_risk", s), 1.0 / 3 + 1, 1e-12);
  EXPECT_NEAR(value_of(r, "true_match_rate", s), 0.01, 1e-15);
  EXPECT_NEAR(value_of(r, "false_match_rate", s), 0.0, 1e-15);
}

// Against make_golden.py's brute-force matcher (every confidential record against every
// synthetic record), exact and within a radius of 1 on the numeric key c.
TEST(IdentityMatching, MatchesBruteForce) {
  const auto t =
      load_tables(golden_dir() + "/conf_random.csv", {golden_dir() + "/partial_random.csv"});
  EvaluationContext ctx = scenarios({{{"a", "b", "c"}, {}}});
  ctx.synthesis = SynthesisType::kPartial;
  for (double radius : {0.0, 1.0}) {
    const auto& g =
        golden()["identity"][radius == 0 ? "keys=a,b,c;radius=0" : "keys=a,b,c;radius=1"];
    nlohmann::json params = kSynthpopMatching;
    params["numeric_tolerance"] = radius;
    const auto r = run_metric("identity_matching", t, params, ctx);
    for (const char* stat :
         {"expected_match_risk", "true_match_rate", "false_match_rate", "unique_matches"})
      expect_close(value_of(r, stat, "keys=a,b,c"), g[stat], stat);
  }
}

TEST(KeyDisclosure, UnknownColumnsAreInputErrorsWithHint) {
  const auto t = make_tables(kHandConf, {kHandSyn});
  try {
    run_metric("correct_attribution_probability", t, {}, scenarios({{{"kk"}, {"t"}}}));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'kk'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'k'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_metric("synthpop_disclosure", t, {}, scenarios({{{"k"}, {"tt"}}})), InputError);
  EXPECT_THROW(run_metric("disclosure_protection", t, {}, scenarios({{{"k"}, {"k"}}})), InputError);
  EXPECT_THROW(run_metric("correct_attribution_probability", t, {{"numeric", "breaks"}},
                          scenarios({{{"k"}, {"t"}}})),
               InputError);
}

TEST(KeyDisclosure, EmptyOneRowAndAllMissingTablesDoNotCrash) {
  const auto ctx = scenarios({{{"k", "x"}, {"t"}}});
  const char* metrics[] = {"correct_attribution_probability", "synthpop_disclosure",
                           "disclosure_protection"};
  for (const std::string& conf :
       {std::string("k,x,t\nA,1,y\n"), std::string("k,x,t\nNA,NA,NA\nNA,NA,NA\n")}) {
    ReadSettings settings;
    settings.kinds = {{"k", ColumnKind::kCategorical}, {"t", ColumnKind::kCategorical}};
    const auto t = make_tables(conf, {"k,x,t\nA,1,y\nB,2,n\n"}, std::nullopt, settings);
    for (const char* m : metrics) EXPECT_NO_THROW(run_metric(m, t, {}, ctx)) << m << " on " << conf;
  }
  // Empty confidential and synthetic tables (the CSV reader refuses header-only files, so built
  // here): no crash, no values.
  auto t = make_tables("k,x,t\nA,1,y\n", {"k,x,t\nA,1,y\n"});
  std::vector<Column> columns = t.confidential.columns();
  for (auto& c : columns) {
    c.codes.clear();
    c.numeric.clear();
  }
  t.confidential = Table({}, columns);
  t.synthetic[0] = Table({}, columns);
  for (const char* m : metrics)
    EXPECT_NO_THROW(run_metric(m, t, {}, ctx)) << m << " on empty tables";
}

// Numeric keys: quantile bins, equal-width bins and fixed breaks give the expected levels, and a
// numeric target matched within a tolerance counts near values as correct.
TEST(KeyDisclosure, NumericCodingAndTolerance) {
  const auto t =
      make_tables("g,x,y\na,1,10\na,2,11\na,3,20\nb,4,30\n", {"g,x,y\na,1,10.5\na,9,19\nb,4,40\n"});
  const std::vector<const Table*> tables = {&t.confidential, &t.synthetic[0]};
  stats::CodingOptions breaks;
  breaks.numeric = stats::NumericCoding::kBreaks;
  breaks.breaks = {2, 5};
  const auto b = stats::code_column(tables, 1, breaks);
  EXPECT_EQ(b.levels(), 3u);
  EXPECT_EQ(b.codes[0], (std::vector<std::uint32_t>{0, 0, 1, 1}));  // (−inf,2], (2,5], (5,inf)
  EXPECT_EQ(b.codes[1], (std::vector<std::uint32_t>{0, 2, 1}));
  stats::CodingOptions equal;
  equal.numeric = stats::NumericCoding::kEqualWidth;
  equal.bins = 3;  // inner edges 2 and 3 over [1, 4]
  EXPECT_EQ(stats::code_column(tables, 1, equal).codes[1], (std::vector<std::uint32_t>{0, 2, 2}));
  // CAP of y from g within ±1: a-records 10 (syn 10.5 of 2 a's -> 1/2), 11 (10.5 -> 1/2),
  // 20 (19 -> 1/2); b 30 (syn 40 -> 0). v1 = 1.5/4.
  const auto r = run_metric("correct_attribution_probability", t,
                            {{"numeric_tolerance", 1.0}, {"relative_tolerance", 0.0}},
                            scenarios({{{"g"}, {"y"}}}));
  EXPECT_NEAR(value_of(r, "cap_mean_v1", "keys=g;target=y"), 1.5 / 4, 1e-15);
  // Confidential baseline: 10 and 11 match each other (2/3 each), 20 alone (1/3), 30 (1).
  EXPECT_NEAR(value_of(r, "cap_confidential", "keys=g;target=y"),
              (2.0 / 3 + 2.0 / 3 + 1.0 / 3 + 1) / 4, 1e-15);
}

// Mixed radix and hash densification give the same groups.
TEST(KeyEncoding, HashAndMixedRadixAgree) {
  std::vector<std::vector<std::uint32_t>> a = {{0, 1, 2, 1, 0}, {2, 1}},
                                          b = {{5, 5, 3, 5, 5}, {3, 5}};
  const auto small = stats::combine_codes({&a, &b}, {3, 6});
  const auto large = stats::combine_codes({&a, &b}, {3, 1u << 30});  // forces hashing
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t i = 0; i < a[t].size(); ++i)
      for (std::size_t u = 0; u < 2; ++u)
        for (std::size_t j = 0; j < a[u].size(); ++j)
          EXPECT_EQ(small.ids[t][i] == small.ids[u][j], large.ids[t][i] == large.ids[u][j]);
  EXPECT_EQ(small.groups, 3u);
  EXPECT_EQ(large.groups, 3u);
}

// On simulator data (the truth is known: `leaky` copies confidential records) the leaky candidate
// must show far higher CAP, DiSCO and repU than `ideal`.
TEST(KeyDisclosure, LeakyCandidateIsFarRiskierThanIdeal) {
  SimulationOptions o;
  o.rows = 3000;
  o.replicates = 1;
  o.seed = 7;
  o.out_dir = (synthaudit::testing::private_temp_dir("synthaudit_keydisc_sim")).string();
  std::filesystem::create_directories(o.out_dir);
  const SimulationFiles files = simulate(o);
  std::string ideal, leaky;
  for (const auto& [name, paths] : files.candidates) {
    if (name == "ideal") ideal = paths.at(0);
    if (name == "leaky") leaky = paths.at(0);
  }
  const auto t = load_tables(files.confidential, {ideal, leaky});
  const auto ctx = scenarios({{{"region", "sex", "age", "education"}, {"smoke"}}});
  const std::string s = "keys=region,sex,age,education;target=smoke";
  const auto cap_i = run_metric("correct_attribution_probability", t, {}, ctx, 0);
  const auto cap_l = run_metric("correct_attribution_probability", t, {}, ctx, 1);
  EXPECT_GT(value_of(cap_l, "cap_mean_v1", s), 1.5 * value_of(cap_i, "cap_mean_v1", s));
  const auto sp_i = run_metric("synthpop_disclosure", t, {}, ctx, 0);
  const auto sp_l = run_metric("synthpop_disclosure", t, {}, ctx, 1);
  EXPECT_GT(value_of(sp_l, "DiSCO", s), 1.5 * value_of(sp_i, "DiSCO", s));
  EXPECT_GT(value_of(sp_l, "repU", s), 2 * value_of(sp_i, "repU", s));
  std::filesystem::remove_all(o.out_dir);
}

// The family's matching rule, metric by metric. CAP of a numeric target y from key g: confidential
// a: 100, 200, NA; b: 50. Synthetic a: 101, 230, NA; b: NA.
//  - exact (both tolerances 0), missing matches missing: 100 -> 0/3, 200 -> 0/3, NA -> 1/3 (the
//    synthetic NA), 50 -> 0/1: v1 = (1/3) / 4;
//  - absolute 1: 100 matches 101 -> 1/3; v1 = (1/3 + 1/3) / 4;
//  - relative 0.2 (200 ± 40 catches 230, 100 ± 20 catches 101): v1 = (1/3 + 1/3 + 1/3) / 4;
//  - relative 0.2 and missing does not match: the NA records score 0: v1 = (1/3 + 1/3) / 4.
// The tolerance is relative to the confidential value: with 0.1, 200 ± 20 misses 230 and only 100
// is matched.
TEST(DisclosureMatching, CapToleranceAbsoluteRelativeAndMissing) {
  const auto t =
      make_tables("g,y\na,100\na,200\na,NA\nb,50\n", {"g,y\na,101\na,230\na,NA\nb,NA\n"});
  const auto ctx = scenarios({{{"g"}, {"y"}}});
  const std::string s = "keys=g;target=y";
  auto v1 = [&](double absolute, double relative, bool missing) {
    return value_of(run_metric("correct_attribution_probability", t,
                               {{"numeric_tolerance", absolute},
                                {"relative_tolerance", relative},
                                {"missing_matches", missing}},
                               ctx),
                    "cap_mean_v1", s);
  };
  EXPECT_NEAR(v1(0, 0, true), (1.0 / 3) / 4, 1e-15);
  EXPECT_NEAR(v1(1, 0, true), (2.0 / 3) / 4, 1e-15);
  EXPECT_NEAR(v1(0, 0.2, true), (3.0 / 3) / 4, 1e-15);
  EXPECT_NEAR(v1(0, 0.2, false), (2.0 / 3) / 4, 1e-15);
  EXPECT_NEAR(v1(0, 0.1, false), (1.0 / 3) / 4, 1e-15);
  EXPECT_NEAR(v1(0, 0, false), 0.0, 1e-15);
  // The defaults: relative 0.05 (101 is within 5 of 100; 230 is not within 10 of 200), missing
  // matches nothing.
  EXPECT_NEAR(value_of(run_metric("correct_attribution_probability", t, {}, ctx), "cap_mean_v1", s),
              (1.0 / 3) / 4, 1e-15);
}

// A missing key value: with missing_matches the records whose key g is missing share a key; without
// it such a record has no key to match (absent key, CAP 0 from both datasets).
TEST(DisclosureMatching, CapMissingKeyMatchesOnlyWhenAllowed) {
  const auto t = make_tables("g,t\nNA,x\nNA,x\na,y\n", {"g,t\nNA,x\na,z\n"});
  const auto ctx = scenarios({{{"g"}, {"t"}}});
  const std::string s = "keys=g;target=t";
  const auto with =
      run_metric("correct_attribution_probability", t, {{"missing_matches", true}}, ctx);
  EXPECT_NEAR(value_of(with, "cap_mean_v1", s), 2.0 / 3, 1e-15);  // 1, 1, 0
  EXPECT_NEAR(value_of(with, "absent_key_share", s), 0.0, 1e-15);
  const auto without =
      run_metric("correct_attribution_probability", t, {{"missing_matches", false}}, ctx);
  EXPECT_NEAR(value_of(without, "cap_mean_v1", s), 0.0, 1e-15);
  EXPECT_NEAR(value_of(without, "absent_key_share", s), 2.0 / 3, 1e-15);
  EXPECT_NEAR(value_of(without, "cap_confidential", s), 1.0 / 3, 1e-15);  // only a's record
}

// Identity matching on a numeric key x and a categorical key g (partial synthesis, row i of the
// synthetic data is record i): confidential x 100, 200, NA, 300 (g all a); synthetic 103, 180, NA,
// 1000.
//  - exact, missing matches missing: only the NA record matches (itself): 1 unique true match;
//  - absolute 5: 100 ~ 103 too: 2;
//  - relative 0.1 (100 ± 10, 200 ± 20): 100 ~ 103, 200 ~ 180, NA ~ NA: 3;
//  - relative 0.1, missing matches nothing: 2.
TEST(DisclosureMatching, IdentityMatchingToleranceAbsoluteRelativeAndMissing) {
  const auto t =
      make_tables("g,x\na,100\na,200\na,NA\na,300\n", {"g,x\na,103\na,180\na,NA\na,1000\n"});
  EvaluationContext ctx = scenarios({{{"g", "x"}, {}}});
  ctx.synthesis = SynthesisType::kPartial;
  const std::string s = "keys=g,x";
  auto unique_true = [&](double absolute, double relative, bool missing) {
    return value_of(run_metric("identity_matching", t,
                               {{"numeric_tolerance", absolute},
                                {"relative_tolerance", relative},
                                {"missing_matches", missing}},
                               ctx),
                    "true_unique_matches", s);
  };
  EXPECT_EQ(unique_true(0, 0, true), 1);
  EXPECT_EQ(unique_true(5, 0, true), 2);
  EXPECT_EQ(unique_true(0, 0.1, true), 3);
  EXPECT_EQ(unique_true(0, 0.1, false), 2);
  EXPECT_EQ(unique_true(0, 0, false), 0);
}

namespace {
// SD2011 (income's −8 declared missing) and a copy whose income is the confidential income times
// (1 + 0.01 z), z standard normal (seed 20261125): a near copy, every other column unchanged.
Tables sd2011_with_perturbed_income() {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8};
  auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/orig.csv")},
                       std::nullopt, settings);
  std::vector<Column> columns = t.synthetic[0].columns();
  Rng rng(20261125);
  for (auto& c : columns)
    if (c.name == "income")
      for (auto& v : c.numeric)
        if (!std::isnan(v)) v *= 1.0 + 0.01 * rng.normal();
  t.synthetic[0] = Table({}, columns);
  return t;
}
}  // namespace

// The effect of the matching rule on a copy with incomes perturbed by 1 % (docs/metrics.md,
// "Matching numeric and missing values", prints this table): CAP of income from sex, age, edu,
// marital. Exact equality (synthpop's rule) calls the near copy safe; the default 5 % relative
// tolerance sees that it discloses almost as much as the confidential data itself.
TEST(DisclosureMatching, PerturbedCopyTable) {
  const auto t = sd2011_with_perturbed_income();
  const auto ctx = scenarios({{{"sex", "age", "edu", "marital"}, {"income"}}});
  const std::string s = "keys=sex,age,edu,marital;target=income";
  struct Row {
    const char* setting;
    nlohmann::json params;
  };
  const std::vector<Row> rows = {
      {"exact, missing matches missing (synthpop)", kSynthpopMatching},
      {"exact, missing matches nothing",
       {{"numeric_tolerance", 0.0}, {"relative_tolerance", 0.0}, {"missing_matches", false}}},
      {"relative 1 %", {{"relative_tolerance", 0.01}}},
      {"relative 5 % (default)", nlohmann::json::object()},
      {"absolute 100", {{"numeric_tolerance", 100.0}, {"relative_tolerance", 0.0}}}};
  std::vector<double> v1, base, disco, dorig;
  std::cout << "| setting | cap_mean_v1 | cap_confidential | dcap_ratio_v1 | DiSCO % | Dorig % "
               "|\n|---|---|---|---|---|---|\n";
  for (const auto& row : rows) {
    const auto r = run_metric("correct_attribution_probability", t, row.params, ctx);
    const auto d = run_metric("synthpop_disclosure", t, row.params, ctx);
    v1.push_back(value_of(r, "cap_mean_v1", s));
    base.push_back(value_of(r, "cap_confidential", s));
    disco.push_back(value_of(d, "DiSCO", s));
    dorig.push_back(value_of(d, "Dorig", s));
    std::printf("| %s | %.3f | %.3f | %.3f | %.1f | %.1f |\n", row.setting, v1.back(), base.back(),
                value_of(r, "dcap_ratio_v1", s), disco.back(), dorig.back());
  }
  // synthpop's DiSCO follows the rule too: the near copy discloses about as many incomes as the
  // confidential data disclose about themselves once the tolerance covers the perturbation.
  EXPECT_LT(disco[0], 0.5 * dorig[0]);
  EXPECT_GT(disco[3], 0.9 * dorig[3]);
  // Exact equality: only the records whose income is missing (NA or −8) still match.
  EXPECT_LT(v1[0], 0.5 * base[0]);
  EXPECT_LT(v1[1], 0.05);
  // A 5 % tolerance catches nearly every 1 %-perturbed income: close to the confidential baseline.
  EXPECT_GT(v1[3], 0.9 * base[3]);
  EXPECT_GT(v1[3], v1[2]);
  EXPECT_GT(v1[2], v1[1]);
}

// Against make_golden.py's record-by-record transcription of the matching rule
// (cap_with_rule, identity_with_rule) on the random tables: CAP of the numeric c and of the
// categorical t, and identity matching on a, b, c, under absolute, relative and combined
// tolerances with and without missing matching missing.
TEST(DisclosureMatching, MatchesRecordByRecordTranscription) {
  const auto t = load_tables(golden_dir() + "/conf_random.csv", {golden_dir() + "/syn_random.csv"});
  const auto partial =
      load_tables(golden_dir() + "/conf_random.csv", {golden_dir() + "/partial_random.csv"});
  const auto& g = golden()["matching"];
  EvaluationContext identity_ctx = scenarios({{{"a", "b", "c"}, {}}});
  identity_ctx.synthesis = SynthesisType::kPartial;
  for (const auto& [name, rule] : g["rules"].items()) {
    for (const auto& [scope, want] : g["cap"][name].items()) {
      const auto keys = scope == "keys=a,b;target=c" ? std::vector<std::string>{"a", "b"}
                                                     : std::vector<std::string>{"a", "c"};
      const std::string target = scope == "keys=a,b;target=c" ? "c" : "t";
      const auto r =
          run_metric("correct_attribution_probability", t, rule, scenarios({{keys, {target}}}));
      expect_close(value_of(r, "cap_mean_v1", scope), want["cap_v1"], name + " " + scope + " v1");
      expect_close(value_of(r, "cap_mean_v2", scope), want["cap_v2"], name + " " + scope + " v2");
      for (const char* stat : {"cap_confidential", "absent_key_share", "risk_rose_share"})
        expect_close(value_of(r, stat, scope), want[stat], name + " " + scope + " " + stat);
    }
    const auto r = run_metric("identity_matching", partial, rule, identity_ctx);
    for (const char* stat :
         {"expected_match_risk", "true_match_rate", "false_match_rate", "unique_matches"})
      expect_close(value_of(r, stat, "keys=a,b,c"), g["identity"][name][stat], name + " " + stat);
  }
}

// synthpop's measures and SDMetrics' CategoricalCAP under the family's rule, against
// make_golden.py's record-by-record transcription (synthpop_with_rule, sdmetrics_with_rule; the
// script first checks that with synthpop's rule they reproduce its synthpop and SDMetrics
// transcriptions): a numeric target c within absolute and relative tolerances, a categorical
// target t with missing values that match nothing, and joint targets mixing both.
TEST(DisclosureMatching, SynthpopAndSdmetricsFollowTheRule) {
  const auto t = load_tables(golden_dir() + "/conf_random.csv", {golden_dir() + "/syn_random.csv"});
  const auto& g = golden()["matching"];
  auto split_scope = [](const std::string& scope, const std::string& target_key) {
    const auto semicolon = scope.find(';');
    const auto keys = split(scope.substr(5, semicolon - 5), ',');
    const auto targets = split(scope.substr(semicolon + 1 + target_key.size() + 1), ',');
    return DisclosureScenario{keys, targets};
  };
  for (const auto& [name, rule] : g["rules"].items()) {
    for (const auto& [scope, want] : g["synthpop"][name].items()) {
      const auto r =
          run_metric("synthpop_disclosure", t, rule, scenarios({split_scope(scope, "target")}));
      for (const auto& [stat, value] : want.items())
        expect_close(value_of(r, stat, scope), value, name + " " + scope + " " + stat);
    }
    for (const auto& [scope, want] : g["sdmetrics"][name].items()) {
      const auto r =
          run_metric("disclosure_protection", t, rule, scenarios({split_scope(scope, "targets")}));
      expect_close(value_of(r, "categorical_cap", scope), want["categorical_cap"],
                   name + " " + scope);
    }
  }
  // synthpop's exclusions are defined on its exact tables only.
  nlohmann::json tolerant = g["rules"]["relative_0.25"];
  tolerant["exclude_over_denom_lim"] = true;
  EXPECT_THROW(run_metric("synthpop_disclosure", t, tolerant, scenarios({{{"a", "b"}, {"c"}}})),
               InputError);
}
