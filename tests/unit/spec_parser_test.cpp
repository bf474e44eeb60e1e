// Unit tests of the YAML evaluation spec (src/spec/spec.*): every key, paths relative to the
// spec's folder, unknown keys with a hint, wrong types, analyses, and `init` output that loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "metrics/registry.hpp"
#include "spec/spec.hpp"

using namespace synthaudit;
namespace fs = std::filesystem;

namespace {

class SpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("synthaudit_spec_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // The InputError message of load_spec(name with text), or "" when none.
  std::string error(const std::string& text) {
    const auto path = write("spec.yaml", text);
    try {
      load_spec(path);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());  // drop the temp folder prefix
    }
    return "";
  }
  fs::path dir_;
};

const char* kMinimal = "confidential: conf.csv\ncandidates: [{name: a, replicates: [a1.csv]}]\n";

}  // namespace

TEST_F(SpecTest, EveryKey) {
  const auto path = write("sub/spec.yaml", R"(
confidential: data/conf.csv.gz
holdout: /abs/holdout.csv
candidates:
  - name: cart
    replicates: [syn_1.csv, ../syn_2.csv]
  - name: one
    replicates: single.csv
synthesis: partial
read:
  delimiter: tab
  decimal: ","
  encoding: latin1
  missing_values: ["", NA, "-9"]
  value_labels: codes
metadata: meta.json
columns:
  zip: categorical
  age: numeric
  region: factor
  weight: continuous
missing_codes:
  income: [-8, -9]
  wage: -1
  smoke: [DK, Refused, 99]
metrics: [general, ks_distance]
parameters:
  ks_distance: {pvalue: true}
  total_variation: {missing: exclude}
disclosure:
  - keys: [sex, age]
    targets: [smoke]
  - keys: sex,region
    targets: income
analyses:
  - lm: log(wage) ~ age + sex
  - name: smoking
    glm_logit: smoke ~ age
  - "mean: income"
  - "q90=quantile: income 0.9"
seed: 42
threads: 2
output: results
)");
  const EvaluationSpec s = load_spec(path);
  const fs::path base = dir_ / "sub";
  EXPECT_EQ(s.origin, path);
  EXPECT_EQ(s.confidential, (base / "data/conf.csv.gz").string());
  EXPECT_EQ(s.holdout.value(), "/abs/holdout.csv");
  ASSERT_EQ(s.candidates.size(), 2u);
  EXPECT_EQ(s.candidates[0].name, "cart");
  EXPECT_EQ(
      s.candidates[0].replicates,
      (std::vector<std::string>{(base / "syn_1.csv").string(), (base / "../syn_2.csv").string()}));
  EXPECT_EQ(s.candidates[1].replicates, (std::vector<std::string>{(base / "single.csv").string()}));
  EXPECT_EQ(s.context.synthesis, SynthesisType::kPartial);
  EXPECT_EQ(s.read.csv.delimiter, '\t');
  EXPECT_EQ(s.read.csv.decimal, ',');
  EXPECT_EQ(s.read.csv.encoding, TextEncoding::kWindows1252);
  EXPECT_EQ(s.read.missing_values, (std::vector<std::string>{"", "NA", "-9"}));
  EXPECT_EQ(s.read.origin, path);
  EXPECT_EQ(s.metadata, (base / "meta.json").string());
  EXPECT_EQ(s.read.kinds.at("zip"), ColumnKind::kCategorical);
  EXPECT_EQ(s.read.kinds.at("age"), ColumnKind::kNumeric);
  EXPECT_EQ(s.read.kinds.at("region"), ColumnKind::kCategorical);
  EXPECT_EQ(s.read.kinds.at("weight"), ColumnKind::kNumeric);
  EXPECT_EQ(s.read.missing_codes.at("income"), (std::vector<double>{-8, -9}));
  EXPECT_EQ(s.read.missing_codes.at("wage"), (std::vector<double>{-1}));
  // Codes that read as numbers match by value; the others as text.
  EXPECT_EQ(s.read.missing_codes.at("smoke"), (std::vector<double>{99}));
  EXPECT_EQ(s.read.missing_text_codes.at("smoke"), (std::vector<std::string>{"DK", "Refused"}));
  EXPECT_EQ(s.read.value_labels, ValueLabels::kCodes);
  EXPECT_EQ(s.metrics, (std::vector<std::string>{"general", "ks_distance"}));
  EXPECT_EQ(s.parameters.at("ks_distance"), nlohmann::json({{"pvalue", true}}));
  EXPECT_EQ(s.parameters.at("total_variation"), nlohmann::json({{"missing", "exclude"}}));
  ASSERT_EQ(s.context.scenarios.size(), 2u);
  EXPECT_EQ(s.context.scenarios[0].keys, (std::vector<std::string>{"sex", "age"}));
  EXPECT_EQ(s.context.scenarios[1].keys, (std::vector<std::string>{"sex", "region"}));
  EXPECT_EQ(s.context.scenarios[1].targets, (std::vector<std::string>{"income"}));
  ASSERT_EQ(s.context.analyses.size(), 4u);
  EXPECT_EQ(s.context.analyses[0].kind, "lm");
  EXPECT_EQ(s.context.analyses[0].name, "lm_1");
  EXPECT_EQ(s.context.analyses[0].formula, "log(wage) ~ age + sex");
  EXPECT_EQ(s.context.analyses[1].name, "smoking");
  EXPECT_EQ(s.context.analyses[1].kind, "glm_logit");
  EXPECT_EQ(s.context.analyses[2].column, "income");
  EXPECT_EQ(s.context.analyses[3].name, "q90");
  EXPECT_DOUBLE_EQ(s.context.analyses[3].probability, 0.9);
  EXPECT_EQ(s.context.seed, 42u);
  EXPECT_EQ(s.context.threads, 2);
  EXPECT_EQ(s.output_dir, (base / "results").string());
  EXPECT_NO_THROW(validate_spec(s));
  // The JSON echo of the spec has every key.
  const auto j = spec_to_json(s);
  for (const char* key :
       {"confidential", "holdout", "candidates", "synthesis", "read", "metadata", "columns",
        "missing_codes", "metrics", "parameters", "disclosure", "analyses", "seed", "threads"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["synthesis"], "partial");
  EXPECT_EQ(j["analyses"][3]["probability"], 0.9);
}

TEST_F(SpecTest, DefaultsOfAMinimalSpec) {
  const EvaluationSpec s = load_spec(write("spec.yaml", kMinimal));
  EXPECT_EQ(s.metrics, (std::vector<std::string>{"all"}));
  EXPECT_EQ(s.context.synthesis, SynthesisType::kFull);
  EXPECT_EQ(s.read.csv.delimiter, 0);  // detected from each file
  EXPECT_EQ(s.read.csv.decimal, 0);
  EXPECT_EQ(s.read.csv.encoding, TextEncoding::kUtf8);
  EXPECT_EQ(s.read.missing_values, (std::vector<std::string>{"", "NA", "NaN", "null"}));
  EXPECT_FALSE(s.holdout.has_value());
  EXPECT_TRUE(s.output_dir.empty());
  EXPECT_NO_THROW(validate_spec(s));
}

// Found by fuzz/spec_fuzz.cpp: a parameter value with bytes that are not UTF-8 made the message
// builder throw nlohmann's type_error (an internal error, exit 1). It is bad input like any other.
TEST_F(SpecTest, ParameterValueThatIsNotUtf8IsBadInput) {
  const auto path = write(
      "spec.yaml", std::string(kMinimal) + "parameters:\n  ks_distance: {pvalue: true\xdb\xdb}\n");
  const EvaluationSpec s = load_spec(path);
  try {
    validate_spec(s);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ks_distance.pvalue: expected true or false"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(SpecTest, UnknownKeysWithHints) {
  EXPECT_EQ(
      error(std::string(kMinimal) + "metircs: [all]\n")
          .rfind(": metircs: unknown key (did you mean 'metrics'?); allowed: limits, confidential",
                 0),
      0u);
  EXPECT_EQ(error("confidential: c.csv\ncandidates: [{name: a, replicate: [x.csv]}]\n")
                .rfind(": candidates[0].replicate: unknown key (did you mean 'replicates'?)", 0),
            0u);
  EXPECT_EQ(error(std::string(kMinimal) + "read: {delimeter: ';'}\n")
                .rfind(": read.delimeter: unknown key (did you mean 'delimiter'?)", 0),
            0u);
  EXPECT_EQ(error(std::string(kMinimal) + "disclosure: [{keys: [a], target: [b]}]\n")
                .rfind(": disclosure[0].target: unknown key (did you mean 'targets'?)", 0),
            0u);
  EXPECT_EQ(error(std::string(kMinimal) + "analyses: [{name: x, lmm: y ~ x}]\n")
                .rfind(": analyses[0].lmm: unknown key (did you mean 'lm'?)", 0),
            0u);
  // Something unrelated gets no hint but still lists what is allowed.
  const auto far = error(std::string(kMinimal) + "zzzzzzzzzzzz: 1\n");
  EXPECT_EQ(far.rfind(": zzzzzzzzzzzz: unknown key; allowed: ", 0), 0u) << far;
}

TEST_F(SpecTest, WrongTypesAndValues) {
  const std::string m = kMinimal;
  EXPECT_EQ(error("candidates: []\n"), ": confidential: required key is missing");
  EXPECT_EQ(error(""), ": top level: the spec is empty");
  EXPECT_EQ(error("- a\n- b\n"), ": top level: expected a mapping");
  EXPECT_EQ(error("confidential: [a, b]\n"), ": confidential: expected a text value");
  EXPECT_EQ(error("confidential: ''\n"), ": confidential: empty path");
  EXPECT_EQ(error("confidential: c.csv\ncandidates: {name: a}\n"), ": candidates: expected a list");
  EXPECT_EQ(error("confidential: c.csv\ncandidates: [{replicates: [x]}]\n"),
            ": candidates[0].name: required key is missing");
  EXPECT_EQ(error("confidential: c.csv\ncandidates: [{name: a, replicates: []}]\n"),
            ": candidates[0].replicates: expected a non-empty list of files");
  EXPECT_EQ(error(m + "seed: -1\n"), ": seed: '-1': a seed is a non-negative integer");
  EXPECT_EQ(error(m + "seed: abc\n"), ": seed: 'abc' is not a seed (a non-negative integer)");
  EXPECT_EQ(error(m + "seed: 1.5\n"), ": seed: '1.5' is not a seed (a non-negative integer)");
  EXPECT_EQ(error(m + "seed: 18446744073709551616\n"),
            ": seed: '18446744073709551616' is larger than the largest seed, 2^64 - 1 "
            "(18446744073709551615)");
  EXPECT_EQ(error(m + "threads: -1\n"),
            ": threads: '-1': the thread count cannot be negative (0 = all cores)");
  // More threads than the machine: accepted here, capped with a warning (cap_threads).
  EXPECT_EQ(error(m + "threads: 5000\n"), "");
  EXPECT_EQ(error(m + "plots: al\n"),
            ": plots: 'al' is not one of first, all, none (did you mean 'all'?)");
  EXPECT_EQ(error(m + "read: {delimiter: ';;'}\n"),
            ": read.delimiter: ';;' is not a delimiter; expected one character, tab or auto");
  EXPECT_EQ(error(m + "read: {decimal: ';'}\n"),
            ": read.decimal: ';' is not a decimal mark; expected . or , (or auto)");
  EXPECT_EQ(error(m + "read: {encoding: ascii}\n"),
            ": read.encoding: 'ascii' is not an encoding synthaudit reads; use utf-8, latin1 or "
            "windows-1252");
  EXPECT_EQ(error(m + "read: {delimiter: ',', decimal: ','}\n"),
            ": read: the delimiter and the decimal mark are both ','");
  EXPECT_EQ(error(m + "read: {missing_values: [\"a\\tb\"]}\n"),
            ": read.missing_values: the missing-value spelling 'a\\tb' holds a control character");
  EXPECT_EQ(error(m + "missing_codes: {income: [-8, \"\"]}\n"),
            ": missing_codes.income[1]: an empty code (blank fields are missing already; see "
            "read.missing_values)");
  EXPECT_EQ(error(m + "missing_codes: {income: [[1]]}\n"),
            ": missing_codes.income[0]: expected a text value");
  EXPECT_EQ(error(m + "read: {value_labels: code}\n"),
            ": read.value_labels: 'code' is not one of labels, codes (did you mean 'codes'?)");
  EXPECT_EQ(error(m + "missing_codes: [income]\n"),
            ": missing_codes: expected a mapping column: [codes]");
  EXPECT_EQ(error(m + "columns: {age: number}\n"),
            ": columns.age: 'number' is not a column type; use numeric or categorical");
  EXPECT_EQ(error(m + "synthesis: partal\n"),
            ": synthesis: 'partal' is not one of full, partial (did you mean 'partial'?)");
  EXPECT_EQ(error(m + "parameters: {ks_distance: true}\n"),
            ": parameters.ks_distance: expected a mapping parameter: value");
  EXPECT_EQ(error(m + "metrics: {a: b}\n"), ": metrics: expected a list");
  EXPECT_EQ(error(m + "disclosure: [{keys: [a]}]\n"),
            ": disclosure[0].targets: required key is missing");
  // YAML syntax errors and shapes yaml-cpp cannot convert name the line.
  EXPECT_EQ(error("confidential: [a\n").rfind(": line ", 0), 0u);
  EXPECT_EQ(error(m + "columns: {[a]: numeric}\n").rfind(": line 3: ", 0), 0u);
}

TEST_F(SpecTest, Analyses) {
  EXPECT_EQ(parse_analysis("lm: y ~ x", 0, "w").name, "lm_1");
  EXPECT_EQ(parse_analysis(" fit = glm_logit : s ~ a + b ", 4, "w").name, "fit");
  EXPECT_EQ(parse_analysis(" fit = glm_logit : s ~ a + b ", 4, "w").formula, "s ~ a + b");
  EXPECT_EQ(parse_analysis("proportion: smoke", 1, "w").column, "smoke");
  EXPECT_EQ(parse_analysis("total: income", 2, "w").name, "total_3");
  const auto q = parse_analysis("quantile: net income 0.25", 0, "w");
  EXPECT_EQ(q.column, "net income");
  EXPECT_DOUBLE_EQ(q.probability, 0.25);
  auto err = [](const std::string& text) {
    try {
      parse_analysis(text, 0, "--analysis");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(err("lm y ~ x"),
            "--analysis: 'lm y ~ x' should look like 'lm: y ~ x' or 'mean: income'");
  EXPECT_EQ(err("lmm: y ~ x"),
            "--analysis: unknown analysis kind 'lmm' (did you mean 'lm'?); use mean, proportion, "
            "quantile, total, lm, glm_logit, glm_probit, glm_cloglog, glm_poisson, glm_gaussian, "
            "multinom, polr");
  EXPECT_EQ(err("mean:  "), "--analysis: analysis 'mean:  ' has nothing after ':'");
  EXPECT_EQ(err("quantile: income"),
            "--analysis: quantile needs a column and a probability, e.g. 'quantile: income 0.9'");
  EXPECT_EQ(err("quantile: income 1.5"), "--analysis: the quantile probability must be in (0, 1)");
  EXPECT_EQ(err("quantile: income high"), "--analysis: 'high' is not a probability");
  EXPECT_EQ(error(std::string(kMinimal) + "analyses: [{lm: y ~ x, mean: y}]\n"),
            ": analyses[0]: give exactly one analysis kind");
  EXPECT_EQ(error(std::string(kMinimal) + "analyses: [{name: x}]\n"),
            ": analyses[0]: no analysis kind given (mean, proportion, quantile, total, lm, "
            "glm_logit, glm_probit, glm_cloglog, glm_poisson, glm_gaussian, multinom, polr)");
}

TEST_F(SpecTest, CandidatesFromTheCommandLine) {
  const auto c = parse_candidate("cart=a.csv,b.csv");
  EXPECT_EQ(c.name, "cart");
  EXPECT_EQ(c.replicates, (std::vector<std::string>{"a.csv", "b.csv"}));
  for (const std::string bad : {"a.csv", "=a.csv", "cart=", "cart=a.csv,,b.csv"})
    EXPECT_THROW(parse_candidate(bad), InputError) << bad;
}

TEST_F(SpecTest, Validation) {
  auto invalid = [&](const std::string& text) {
    EvaluationSpec s = load_spec(write("v.yaml", text));
    try {
      validate_spec(s);
    } catch (const InputError& e) {
      return std::string(e.what()).substr((dir_ / "v.yaml").string().size());
    }
    return std::string();
  };
  EXPECT_EQ(invalid("confidential: c.csv\n"),
            ": no synthetic data given (--synthetic NAME=FILE or 'candidates:')");
  EXPECT_EQ(invalid("confidential: c.csv\ncandidates: [{name: a, replicates: x}, {name: a, "
                    "replicates: y}]\n"),
            ": candidate name 'a' is used twice");
  EXPECT_EQ(invalid(std::string(kMinimal) + "metrics: [ks_distanse]\n"),
            ": metrics: unknown metric or family 'ks_distanse' (did you mean 'ks_distance'?)");
  EXPECT_EQ(invalid(std::string(kMinimal) + "parameters: {ks_distanse: {pvalue: true}}\n"),
            ": parameters.ks_distanse: no metric named 'ks_distanse' (did you mean "
            "'ks_distance'?)");
  EXPECT_EQ(invalid(std::string(kMinimal) + "parameters: {ks_distance: {pvalue: 3}}\n"),
            ": parameters.ks_distance.pvalue: expected true or false, got 3");
  // A quoted "true" stays a string and is rejected for a bool parameter.
  EXPECT_EQ(invalid(std::string(kMinimal) + "parameters: {ks_distance: {pvalue: 'true'}}\n"),
            ": parameters.ks_distance.pvalue: expected true or false, got \"true\"");
}

TEST_F(SpecTest, InitOutputLoadsBack) {
  write("sub/conf.csv", "age,sex,\"odd: name\",yes,\"quote\"\"d\"\n34,F,1,x,2\n51,M,2,y,3\n");
  const std::string conf = (dir_ / "sub/conf.csv").string();
  const std::string spec_path = (dir_ / "spec.yaml").string();
  // Relative confidential path, spec written in another folder: written relative to the spec.
  const auto cwd = fs::current_path();
  fs::current_path(dir_ / "sub");
  std::string text = starter_spec("conf.csv", ReadSettings{}, spec_path);
  const std::string to_stdout = starter_spec("conf.csv", ReadSettings{});
  // A spec in a sibling folder: still relative, through the parent.
  fs::create_directories(dir_ / "specs");
  const std::string beside = starter_spec("conf.csv", ReadSettings{}, "../specs/spec.yaml");
  fs::current_path(cwd);
  EXPECT_NE(beside.find("\nconfidential: ../sub/conf.csv\n"), std::string::npos) << beside;
  const auto pos = text.find("synthetic_1.csv");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, std::string("synthetic_1.csv").size(), "sub/conf.csv");  // fill a candidate
  write("spec.yaml", text);
  const EvaluationSpec s = load_spec(spec_path);
  EXPECT_NO_THROW(validate_spec(s));
  EXPECT_EQ(fs::weakly_canonical(s.confidential), fs::weakly_canonical(conf));
  EXPECT_EQ(s.read.kinds.at("age"), ColumnKind::kNumeric);
  EXPECT_EQ(s.read.kinds.at("sex"), ColumnKind::kCategorical);
  EXPECT_EQ(s.read.kinds.at("odd: name"), ColumnKind::kNumeric);
  EXPECT_EQ(s.read.kinds.at("yes"), ColumnKind::kCategorical);
  EXPECT_EQ(s.read.kinds.at("quote\"d"), ColumnKind::kNumeric);
  EXPECT_EQ(s.read.kinds.size(), 5u);
  ASSERT_EQ(s.candidates.size(), 1u);
  EXPECT_EQ(fs::weakly_canonical(s.candidates[0].replicates[0]), fs::weakly_canonical(conf));
  // To stdout (no spec path): relative to the current folder.
  EXPECT_NE(to_stdout.find("\nconfidential: conf.csv\n"), std::string::npos);
  EXPECT_NE(text.find("\nconfidential: sub/conf.csv\n"), std::string::npos);
  EXPECT_NE(starter_spec(conf, ReadSettings{}).find("confidential: " + conf + "\n"),
            std::string::npos);
}

// The disclosure_matching block: read with its keys checked, given to every key-disclosure metric
// that declares the parameter, and beaten by the metric's own parameters entry.
TEST_F(SpecTest, DisclosureMatchingBlock) {
  const auto path = write("spec.yaml", std::string(kMinimal) + R"(
disclosure_matching: {numeric_tolerance: 2, relative_tolerance: 0.01, missing_matches: true}
parameters:
  correct_attribution_probability: {relative_tolerance: 0}
)");
  const auto spec = load_spec(path);
  EXPECT_EQ(spec.disclosure_matching, nlohmann::json({{"numeric_tolerance", 2.0},
                                                      {"relative_tolerance", 0.01},
                                                      {"missing_matches", true}}));
  EXPECT_NO_THROW(validate_spec(spec));
  const auto cap = given_parameters(spec, *find_metric("correct_attribution_probability"));
  ASSERT_EQ(cap.size(), 3u);
  EXPECT_EQ(cap["numeric_tolerance"].get<double>(), 2.0);
  EXPECT_EQ(cap["relative_tolerance"].get<double>(), 0.0);  // the metric's own value wins
  EXPECT_EQ(cap["missing_matches"], true);
  const auto identity = given_parameters(spec, *find_metric("identity_matching"));
  EXPECT_EQ(identity, spec.disclosure_matching);
  // Every metric of the family follows the block; metrics outside the family get none.
  EXPECT_EQ(given_parameters(spec, *find_metric("synthpop_disclosure")), spec.disclosure_matching);
  EXPECT_EQ(given_parameters(spec, *find_metric("disclosure_protection")),
            spec.disclosure_matching);
  EXPECT_EQ(given_parameters(spec, *find_metric("ks_distance")), nlohmann::json::object());

  const std::string m = kMinimal;
  EXPECT_EQ(error(m + "disclosure_matching: {numeric_tolerance: -1}\n"),
            ": disclosure_matching.numeric_tolerance: must be a number >= 0");
  EXPECT_EQ(error(m + "disclosure_matching: {relative_tolerance: 1.5}\n"),
            ": disclosure_matching.relative_tolerance: must be a number between 0 and 1 (a "
            "fraction)");
  EXPECT_EQ(error(m + "disclosure_matching: {missing_matches: sometimes}\n"),
            ": disclosure_matching.missing_matches: expected true or false");
  EXPECT_EQ(error(m + "disclosure_matching: {relative_tolerence: 0.1}\n")
                .rfind(": disclosure_matching.relative_tolerence: unknown key (did you mean "
                       "'relative_tolerance'?)",
                       0),
            0u);
  EXPECT_EQ(error(m + "disclosure_matching: [0.1]\n")
                .rfind(": disclosure_matching: expected a "
                       "mapping",
                       0),
            0u);
  EXPECT_NE(error(m + "disclosure_matching: {numeric_tolerance: wide}\n")
                .find("disclosure_matching.numeric_tolerance"),
            std::string::npos);
}
