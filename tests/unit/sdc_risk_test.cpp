// The sdc-risk family against independent references: tests/golden/sdc_risk/make_golden.py
// (brute-force k-anonymity, l-diversity, t-closeness and synthpop's replicated.uniques on
// SD2011) and make_risk_golden.R (sdcMicro 5.8.1's own freqCalc and indivRisk on the survey
// package's nhanes and apiclus2), plus hand-counted and published worked examples.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stats/equivalence_classes.hpp"
#include "stats/keys.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string golden_dir() {
  return (std::filesystem::path(__FILE__).parent_path() / "../golden/sdc_risk").string();
}

const nlohmann::json& golden(const std::string& file) {
  static std::map<std::string, nlohmann::json> cache;
  auto it = cache.find(file);
  if (it == cache.end()) {
    std::ifstream f(golden_dir() + "/" + file);
    it = cache.emplace(file, nlohmann::json::parse(f)).first;
  }
  return it->second;
}

EvaluationContext scenario(std::vector<std::string> keys, std::vector<std::string> targets = {}) {
  EvaluationContext c;
  c.scenarios = {{std::move(keys), std::move(targets)}};
  return c;
}

// Relative tolerance 1e-9: both sides sum doubles in different orders.
void expect_close(double got, const nlohmann::json& want, const std::string& what) {
  const double w = want.get<double>();
  EXPECT_NEAR(got, w, 1e-9 * std::max(1.0, std::abs(w))) << what;
}

const std::vector<std::vector<std::string>> kSd2011Keys = {{"sex", "age", "edu", "marital"},
                                                           {"sex", "edu", "marital", "smoke"}};
const char* kData[2] = {"confidential", "synthetic"};

Tables sd2011() {
  return load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")});
}

std::string keys_text(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ",") + k;
  return "keys=" + out;
}

}  // namespace

TEST(SdcKAnonymity, MatchesBruteForceOnSd2011) {
  const auto t = sd2011();
  for (const auto& keys : kSd2011Keys)
    for (const std::string rule : {"wildcard", "value"}) {
      const auto r = run_metric("k_anonymity", t, {{"missing_keys", rule}}, scenario(keys));
      for (int data = 0; data < 2; ++data) {
        const auto& g = golden(
            "golden.json")["k_anonymity;" + keys_text(keys) + ";" + rule + ";" + kData[data]];
        const std::string base = keys_text(keys) + ";data=" + kData[data];
        for (const std::string s : {"classes", "sample_uniques", "smallest_class"})
          expect_close(value_of(r, s, base), g[s], s + " " + base + " " + rule);
        for (int k : {2, 3, 5}) {
          const std::string scope =
              keys_text(keys) + ";k=" + std::to_string(k) + ";data=" + kData[data];
          for (const std::string s : {"records_below_k", "share_below_k"})
            expect_close(value_of(r, s, scope), g[s + ";k=" + std::to_string(k)],
                         s + " " + scope + " " + rule);
        }
      }
    }
}

TEST(SdcLDiversity, MatchesBruteForceOnSd2011) {
  const auto t = sd2011();
  for (const auto& keys : kSd2011Keys) {
    const auto r = run_metric("l_diversity", t, {{"l", 2}}, scenario(keys, {"income", "ls"}));
    for (const std::string target : {"income", "ls"})
      for (int data = 0; data < 2; ++data) {
        const auto& g = golden("golden.json")["l_diversity;" + keys_text(keys) +
                                              ";target=" + target + ";" + kData[data]];
        const std::string scope = keys_text(keys) + ";target=" + target + ";data=" + kData[data];
        const std::string scope_l =
            keys_text(keys) + ";target=" + target + ";l=2;data=" + kData[data];
        expect_close(value_of(r, "min_distinct_l", scope), g["min_distinct_l"], scope);
        expect_close(value_of(r, "min_entropy_l", scope), g["min_entropy_l"], scope);
        expect_close(value_of(r, "share_below_distinct_l", scope_l), g["share_below_distinct_l"],
                     scope_l);
        expect_close(value_of(r, "share_below_entropy_l", scope_l), g["share_below_entropy_l"],
                     scope_l);
      }
  }
}

TEST(SdcTCloseness, MatchesScipyEarthMoversDistanceOnSd2011) {
  const auto t = sd2011();
  for (const auto& keys : kSd2011Keys) {
    const auto r = run_metric("t_closeness", t, {{"t", 0.15}}, scenario(keys, {"income", "ls"}));
    for (const std::string target : {"income", "ls"})
      for (int data = 0; data < 2; ++data) {
        const auto& g = golden("golden.json")["t_closeness;" + keys_text(keys) +
                                              ";target=" + target + ";" + kData[data]];
        const std::string scope = keys_text(keys) + ";target=" + target + ";data=" + kData[data];
        const std::string scope_t =
            keys_text(keys) + ";target=" + target + ";t=0.15;data=" + kData[data];
        expect_close(value_of(r, "max_emd", scope), g["max_emd"], scope);
        expect_close(value_of(r, "share_classes_above_t", scope_t), g["share_classes_above_t"],
                     scope_t);
        expect_close(value_of(r, "share_records_above_t", scope_t), g["share_records_above_t"],
                     scope_t);
      }
  }
}

// Li, Li & Venkatasubramanian (2007), section 4.2: salaries 3k..11k, the class {3k, 4k, 5k} is at
// ordered EMD 0.375 and {6k, 8k, 11k} at 0.167 from the whole table; {7k, 9k, 10k} is at
// 17/72 by the same formula (counted by hand).
TEST(SdcTCloseness, ReproducesThePapersWorkedExample) {
  const std::string csv = "zip,salary\nA,3\nA,4\nA,5\nB,6\nB,8\nB,11\nC,7\nC,9\nC,10\n";
  const auto t = make_tables(csv, {csv});
  const auto r = run_metric("t_closeness", t, {{"t", 0.2}}, scenario({"zip"}, {"salary"}));
  EXPECT_NEAR(value_of(r, "max_emd", "keys=zip;target=salary;data=confidential"), 0.375, 1e-12);
  EXPECT_NEAR(value_of(r, "share_classes_above_t", "keys=zip;target=salary;t=0.2;data=synthetic"),
              2.0 / 3.0, 1e-12);
  const auto only_b = make_tables(csv, {"zip,salary\nB,6\nB,8\nB,11\n"});
  // Against its own file the synthetic class B is the whole file: distance 0.
  const auto rb = run_metric("t_closeness", only_b, {}, scenario({"zip"}, {"salary"}));
  EXPECT_NEAR(value_of(rb, "max_emd", "keys=zip;target=salary;data=synthetic"), 0.0, 1e-12);
}

TEST(SdcReplicatedUniques, MatchesSynthpopDefinitionOnSd2011) {
  const auto t = sd2011();
  for (const auto& keys : kSd2011Keys) {
    const auto r = run_metric("replicated_uniques", t, {}, scenario(keys));
    const auto& g = golden("golden.json")["replicated_uniques;" + keys_text(keys)];
    for (const std::string s :
         {"original_uniques", "synthetic_uniques", "synthetic_uniques_in_original",
          "replicated_uniques", "replicated_unique_share"})
      expect_close(value_of(r, s, keys_text(keys)), g[s], s + " " + keys_text(keys));
  }
}

// Hand-counted wildcard rule: rows (1,1), (1,NA), (NA,NA), (1,2). (1,1) matches itself and
// (1,NA) but not the all-missing row (sdcMicro's exception for complete keys): 2; (1,NA) matches
// every row: 4; (NA,NA) every row: 4; (1,2) itself and (1,NA): 2.
TEST(SdcEquivalenceClasses, WildcardRuleByHand) {
  const std::uint32_t M = 9;
  const std::vector<std::uint32_t> a = {0, 0, M, 0}, b = {0, M, M, 1};
  const auto patterns = stats::key_patterns({&a, &b});
  const std::vector<double> w = {1, 2, 4, 8};
  const auto f = stats::class_frequencies(patterns, {M, M}, &w, stats::MissingKeys::kWildcard);
  EXPECT_EQ(f.sample, (std::vector<double>{2, 4, 4, 2}));
  EXPECT_EQ(f.weighted, (std::vector<double>{3, 15, 15, 10}));
  const auto v = stats::class_frequencies(patterns, {M, M}, &w, stats::MissingKeys::kValue);
  EXPECT_EQ(v.sample, (std::vector<double>{1, 1, 1, 1}));
  // One key: sdcMicro adds the missing records to every other record.
  const auto one = stats::key_patterns({&a});
  const auto f1 = stats::class_frequencies(one, {M}, nullptr, stats::MissingKeys::kWildcard);
  EXPECT_EQ(f1.sample, (std::vector<double>{4, 4, 4, 4}));
}

// Per-record f_k and F_k of sdcMicro's freqCalc on nhanes (weights WTMEC2YR, HI_CHOL missing).
TEST(SdcEquivalenceClasses, MatchesSdcMicroFreqCalcPerRecord) {
  const auto t = load_tables(golden_dir() + "/nhanes.csv", {golden_dir() + "/nhanes_syn.csv"});
  const std::vector<std::string> keys = {"race", "agecat", "RIAGENDR", "HI_CHOL"};
  std::vector<stats::CodedColumn> coded;
  for (const auto& k : keys)
    coded.push_back(stats::code_column({&t.confidential, &t.synthetic[0]}, *t.confidential.find(k),
                                       stats::CodingOptions{}));
  std::vector<const std::vector<std::uint32_t>*> codes;
  std::vector<std::uint32_t> missing;
  for (const auto& c : coded) codes.push_back(&c.codes[0]), missing.push_back(c.missing_level);
  const auto patterns = stats::key_patterns(codes);
  const auto& w = t.confidential.column(*t.confidential.find("WTMEC2YR")).numeric;
  for (const std::string rule : {"wildcard", "value"}) {
    const auto f = stats::class_frequencies(
        patterns, missing, &w,
        rule == "value" ? stats::MissingKeys::kValue : stats::MissingKeys::kWildcard);
    const auto& g = golden("golden_risk.json")["nhanes;" + rule + ";confidential"];
    ASSERT_EQ(g["fk"].size(), f.sample.size());
    for (std::size_t i = 0; i < f.sample.size(); ++i) {
      ASSERT_EQ(f.sample[i], g["fk"][i].get<double>()) << rule << " row " << i;
      ASSERT_NEAR(f.weighted[i], g["Fk"][i].get<double>(), 1e-9 * g["Fk"][i].get<double>())
          << rule << " row " << i;
    }
  }
}

TEST(SdcIndividualRisk, MatchesSdcMicroMeasureRisk) {
  const std::vector<std::string> risk_stats = {"expected_reidentifications", "global_risk",
                                               "max_individual_risk"};
  {
    const auto t = load_tables(golden_dir() + "/nhanes.csv", {golden_dir() + "/nhanes_syn.csv"});
    auto context = scenario({"race", "agecat", "RIAGENDR", "HI_CHOL"});
    context.weights = "WTMEC2YR";
    for (const std::string rule : {"wildcard", "value"}) {
      const auto r = run_metric("individual_risk", t, {{"missing_keys", rule}}, context);
      for (int data = 0; data < 2; ++data) {
        const auto& g = golden("golden_risk.json")["nhanes;" + rule + ";" + kData[data]];
        const std::string scope =
            std::string("keys=race,agecat,RIAGENDR,HI_CHOL;data=") + kData[data];
        for (const auto& s : risk_stats)
          expect_close(value_of(r, s, scope), g[s], s + " " + scope + " " + rule);
      }
    }
  }
  const auto t = load_tables(golden_dir() + "/apiclus2.csv", {golden_dir() + "/apiclus2_syn.csv"});
  auto context = scenario({"stype", "sch.wide", "comp.imp", "awards", "yr.rnd"});
  context.weights = "pw";
  context.household = "dnum";
  const auto r = run_metric("individual_risk", t, {}, context);
  for (int data = 0; data < 2; ++data) {
    const auto& g = golden("golden_risk.json")[std::string("apiclus2;") + kData[data]];
    const std::string scope =
        std::string("keys=stype,sch.wide,comp.imp,awards,yr.rnd;data=") + kData[data];
    for (const auto& s : risk_stats) expect_close(value_of(r, s, scope), g[s], s + " " + scope);
    for (const std::string s : {"household_expected_reidentifications", "household_risk"})
      expect_close(value_of(r, s, scope), g[s], s + " " + scope);
  }
}

TEST(SdcIndividualRisk, WithoutWeightsIsOneOverClassSizeWithAWarning) {
  const std::string csv = "a,b\nx,1\nx,1\ny,2\n";
  const auto t = make_tables(csv, {csv});
  const auto r = run_metric("individual_risk", t, {}, scenario({"a", "b"}));
  EXPECT_NEAR(value_of(r, "expected_reidentifications", "keys=a,b;data=confidential"), 2.0, 1e-12);
  EXPECT_NEAR(value_of(r, "max_individual_risk", "keys=a,b;data=synthetic"), 1.0, 1e-12);
  EXPECT_EQ(r.warnings.size(), 1u);
}

TEST(SdcRiskParameters, BadValuesAreInputErrors) {
  const std::string csv = "a,b\nx,1\nx,1\ny,2\n";
  const auto t = make_tables(csv, {csv});
  for (const std::string k : {"1", "two", "3.5", ""})
    EXPECT_THROW(run_metric("k_anonymity", t, {{"k", {k}}}, scenario({"a"})), InputError) << k;
  EXPECT_THROW(run_metric("k_anonymity", t, {{"missing_keys", "ignore"}}, scenario({"a"})),
               InputError);
  EXPECT_THROW(run_metric("l_diversity", t, {{"l", 0}}, scenario({"a"}, {"b"})), InputError);
  EXPECT_THROW(run_metric("t_closeness", t, {{"t", 1.5}}, scenario({"a"}, {"b"})), InputError);
  EXPECT_THROW(run_metric("k_anonymity", t, {}, scenario({"nope"})), InputError);
  EXPECT_THROW(run_metric("l_diversity", t, {}, scenario({"a"})), MetricNotApplicable);
  EXPECT_THROW(run_metric("k_anonymity", t, {}, EvaluationContext{}), MetricNotApplicable);
}

// The per-record values a metric adds with record_level, by data set ("confidential" or
// "synthetic"); fails the test when absent.
const RecordValues& records_of(const MetricResult& r, const std::string& data) {
  for (const auto& records : r.records)
    if (records.data == data) return records;
  ADD_FAILURE() << "no per-record values for " << data;
  static const RecordValues none;
  return none;
}

std::vector<double> field_of(const RecordValues& records, const std::string& field) {
  for (std::size_t f = 0; f < records.fields.size(); ++f)
    if (records.fields[f] == field) return records.values[f];
  ADD_FAILURE() << "no field " << field;
  return {};
}

// Every record's class size against the brute-force count of make_golden.py on SD2011.
TEST(SdcKAnonymity, RecordLevelClassSizesMatchBruteForce) {
  const auto t = sd2011();
  const auto& keys = kSd2011Keys[0];
  EXPECT_TRUE(run_metric("k_anonymity", t, {}, scenario(keys)).records.empty());  // default off
  for (const std::string rule : {"wildcard", "value"}) {
    const auto r = run_metric("k_anonymity", t, {{"missing_keys", rule}, {"record_level", true}},
                              scenario(keys));
    ASSERT_EQ(r.records.size(), 2u);
    for (int data = 0; data < 2; ++data) {
      const auto& records = records_of(r, kData[data]);
      EXPECT_EQ(records.scope, keys_text(keys));
      EXPECT_EQ(records.confidential_only, data == 0);
      EXPECT_EQ(records.fields, std::vector<std::string>{"class_size"});
      const auto& g = golden(
          "golden.json")["k_anonymity_records;" + keys_text(keys) + ";" + rule + ";" + kData[data]];
      const auto sizes = field_of(records, "class_size");
      ASSERT_EQ(sizes.size(), g.size());
      for (std::size_t i = 0; i < sizes.size(); ++i)
        ASSERT_EQ(sizes[i], g[i].get<double>()) << rule << " " << kData[data] << " row " << i;
    }
  }
}

// Every record's f_k, F_k, risk and household risk against sdcMicro's freqCalc and indivRisk
// (make_risk_golden.R) on apiclus2, weights pw, households dnum.
TEST(SdcIndividualRisk, RecordLevelMatchesSdcMicroPerRecord) {
  const auto t = load_tables(golden_dir() + "/apiclus2.csv", {golden_dir() + "/apiclus2_syn.csv"});
  auto context = scenario({"stype", "sch.wide", "comp.imp", "awards", "yr.rnd"});
  context.weights = "pw";
  context.household = "dnum";
  const auto r = run_metric("individual_risk", t, {{"record_level", true}}, context);
  for (int data = 0; data < 2; ++data) {
    const auto& records = records_of(r, kData[data]);
    EXPECT_EQ(records.fields, (std::vector<std::string>{"class_size", "weighted_class_size", "risk",
                                                        "household_risk"}));
    const auto& g = golden("golden_risk.json")[std::string("apiclus2;") + kData[data]];
    const std::pair<const char*, const char*> fields[] = {{"class_size", "fk"},
                                                          {"weighted_class_size", "Fk"},
                                                          {"risk", "rk"},
                                                          {"household_risk", "household_rk"}};
    for (const auto& [ours, theirs] : fields) {
      const auto values = field_of(records, ours);
      ASSERT_EQ(values.size(), g[theirs].size()) << ours;
      for (std::size_t i = 0; i < values.size(); ++i)
        expect_close(values[i], g[theirs][i],
                     std::string(ours) + " " + kData[data] + " row " + std::to_string(i));
    }
  }
  // Without weights or households: class size and risk only.
  const auto plain = run_metric("individual_risk", t, {{"record_level", true}},
                                scenario({"stype", "sch.wide", "comp.imp", "awards", "yr.rnd"}));
  EXPECT_EQ(records_of(plain, "synthetic").fields,
            (std::vector<std::string>{"class_size", "risk"}));
}

// Recursive (c,l)-diversity against make_golden.py's test of the definition, for several c and l.
TEST(SdcLDiversity, RecursiveMatchesBruteForceOnSd2011) {
  const auto t = sd2011();
  const std::vector<std::pair<double, int>> settings = {{2.0, 2}, {2.0, 3}, {0.5, 2}, {3.0, 4}};
  for (const auto& keys : kSd2011Keys)
    for (const auto& [c, l] : settings) {
      const auto r =
          run_metric("l_diversity", t, {{"l", l}, {"c", c}}, scenario(keys, {"income", "ls"}));
      const std::string c_text = format_number(c);
      for (const std::string target : {"income", "ls"})
        for (int data = 0; data < 2; ++data) {
          const auto& g = golden("golden.json")["l_diversity;" + keys_text(keys) +
                                                ";target=" + target + ";" + kData[data]];
          const std::string c_scope =
              keys_text(keys) + ";target=" + target + ";c=" + c_text + ";data=" + kData[data];
          const std::string c_l_scope = keys_text(keys) + ";target=" + target + ";c=" + c_text +
                                        ";l=" + std::to_string(l) + ";data=" + kData[data];
          expect_close(value_of(r, "min_recursive_l", c_scope), g["min_recursive_l;c=" + c_text],
                       c_scope);
          expect_close(value_of(r, "share_below_recursive_l", c_l_scope),
                       g["share_below_recursive_l;c=" + c_text + ";l=" + std::to_string(l)],
                       c_l_scope);
        }
    }
}

// Hand-worked classes: counts (5, 3, 2) have recursive l 2 for c = 2 (5 < 2·5, 5 >= 2·2) and 3
// for c = 3 (5 < 3·2); a class of one value has recursive l 1.
TEST(SdcLDiversity, RecursiveLByHand) {
  std::string csv = "k,s\n";
  for (int i = 0; i < 5; ++i) csv += "a,x\n";
  for (int i = 0; i < 3; ++i) csv += "a,y\n";
  for (int i = 0; i < 2; ++i) csv += "a,z\n";
  const auto t = make_tables(csv, {csv + "b,x\nb,x\n"});
  for (const auto& [c, want] : std::vector<std::pair<double, double>>{{2.0, 2.0}, {3.0, 3.0}}) {
    const auto r = run_metric("l_diversity", t, {{"l", 3}, {"c", c}}, scenario({"k"}, {"s"}));
    const std::string c_text = format_number(c);
    EXPECT_EQ(value_of(r, "min_recursive_l", "keys=k;target=s;c=" + c_text + ";data=confidential"),
              want);
    EXPECT_EQ(value_of(r, "min_recursive_l", "keys=k;target=s;c=" + c_text + ";data=synthetic"),
              1.0);
    EXPECT_EQ(value_of(r, "share_below_recursive_l",
                       "keys=k;target=s;c=" + c_text + ";l=3;data=confidential"),
              want < 3 ? 1.0 : 0.0);
    EXPECT_EQ(value_of(r, "share_below_recursive_l",
                       "keys=k;target=s;c=" + c_text + ";l=3;data=synthetic"),
              want < 3 ? 1.0 : 2.0 / 12.0);
  }
  EXPECT_THROW(run_metric("l_diversity", t, {{"c", 0}}, scenario({"k"}, {"s"})), InputError);
}
