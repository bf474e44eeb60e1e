// The verdict's calibrated null: the multiplicity corrections against statsmodels, the
// permutation test's error rate under the null measured over many seeds, and its power against
// copies of confidential records.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <random>

#include "engine/permutation_null.hpp"
#include "metrics/registry.hpp"
#include "result/verdict.hpp"
#include "synthaudit/synthaudit.hpp"

using namespace synthaudit;
using nlohmann::json;

namespace {

std::string golden(const std::string& file) {
  return std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/verdict/" + file;
}

// A population of people described by four categorical keys and a sensitive attribute, with
// structure between them (so some key combinations are rare and some common).
InputTable people(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::optional<std::string>> a, b, c, d, y;
  for (std::size_t i = 0; i < n; ++i) {
    const int region = static_cast<int>(rng() % 6);
    const int age = static_cast<int>(rng() % 8);
    const int sex = static_cast<int>(rng() % 2);
    const int edu = static_cast<int>((rng() % 4 + static_cast<std::uint64_t>(age) / 3) % 5);
    a.push_back("r" + std::to_string(region));
    b.push_back("a" + std::to_string(age));
    c.push_back("s" + std::to_string(sex));
    d.push_back("e" + std::to_string(edu));
    y.push_back((rng() % 10) < static_cast<std::uint64_t>(2 + edu) ? "yes" : "no");
  }
  return {InputColumn::categorical("region", a), InputColumn::categorical("age", b),
          InputColumn::categorical("sex", c), InputColumn::categorical("edu", d),
          InputColumn::categorical("smoke", y)};
}

// The rows `from`..`to` of a table.
InputTable rows_of(const InputTable& table, std::size_t from, std::size_t to) {
  InputTable out;
  for (const auto& column : table) {
    const auto& values = std::get<std::vector<std::optional<std::string>>>(column.values);
    out.push_back(InputColumn::categorical(
        column.name,
        std::vector<std::optional<std::string>>(values.begin() + from, values.begin() + to)));
  }
  return out;
}

json scenario_options() {
  return {{"keys", "region,age,sex,edu"}, {"targets", "smoke"}, {"threads", 1}, {"seed", 3}};
}

}  // namespace

TEST(VerdictNull, MultiplicityCorrectionsEqualStatsmodels) {
  std::ifstream in(golden("multiplicity.json"));
  ASSERT_TRUE(in) << golden("multiplicity.json");
  const json cases = json::parse(in)["cases"];
  ASSERT_GE(cases.size(), 5u);
  for (const auto& c : cases)
    for (const char* method : {"holm", "bonferroni", "benjamini-hochberg"}) {
      const auto got = corrected_p_values(c["p"].get<std::vector<double>>(), method);
      const auto want = c[method].get<std::vector<double>>();
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-15 * std::max(1.0, want[i])) << method << " " << i;
    }
}

// Under the null (the replicate and the holdout are two fresh samples of one population) the
// test rejects at level 0.05 at most about 5 % of the time: measured over 300 seeds, with ties
// counted as extreme (so the rate may be lower, never higher beyond noise).
TEST(VerdictNull, PermutationTestHoldsItsLevelUnderTheNull) {
  const MetricSpec* metric = find_metric("replicated_uniques");
  ASSERT_NE(metric, nullptr);
  const std::size_t seeds = 300;
  std::size_t rejected = 0, tested = 0;
  double p_sum = 0.0;
  for (std::size_t s = 0; s < seeds; ++s) {
    const InputTable population = people(900, 1000 + s);
    Evaluation e;
    e.confidential = rows_of(population, 0, 500);
    e.candidates = {{"fresh", {rows_of(population, 500, 700)}}};
    e.holdout = rows_of(population, 700, 900);
    e.options = scenario_options();
    e.options["metrics"] = "replicated_uniques";
    const EvaluationSpec spec = make_spec(e);
    const EvaluationData data = make_evaluation_data(std::move(e), spec);
    const Params params =
        Params::resolve(metric->name, metric->params, given_parameters(spec, *metric), "test");
    const MetricOnTables run = [&](const Table& synthetic, const Table* holdout,
                                   std::uint64_t seed) {
      MetricInput input{data.confidential, {&synthetic}, holdout, spec.context, "fresh", seed};
      return metric->compute(input, params).values;
    };
    for (const auto& test :
         permutation_nulls(*metric, data.candidates[0].replicates[0], *data.holdout, 199, s, run)) {
      if (test.resplits == 0) continue;
      ++tested;
      p_sum += test.p_value;
      rejected += test.p_value <= 0.05;
    }
  }
  ASSERT_GE(tested, seeds);
  const double rate = static_cast<double>(rejected) / static_cast<double>(tested);
  std::cout << "permutation null at level 0.05: " << rejected << " of " << tested
            << " rejected; mean p " << p_sum / static_cast<double>(tested) << "\n";
  // Binomial: at the level 0.05 over 300 tests the rate exceeds 0.085 with probability < 0.5 %.
  EXPECT_LE(rate, 0.085) << rejected << " of " << tested;
  // And the p-values are not all near 1 (the test is not vacuous): their mean is near 1/2.
  EXPECT_GT(p_sum / static_cast<double>(tested), 0.35);
}

// Copies of confidential records as the candidate fail; a fresh sample passes; the results carry
// each tested headline's p-value, the correction and the number of re-splits.
TEST(VerdictNull, CopiesFailAndAFreshSamplePassWithPValuesInTheDocument) {
  const InputTable population = people(1500, 77);
  auto audit = [&](InputTable candidate) {
    Evaluation e;
    e.confidential = rows_of(population, 0, 900);
    e.candidates = {{"c", {std::move(candidate)}}};
    e.holdout = rows_of(population, 1200, 1500);
    e.options = scenario_options();
    e.options["metrics"] = "replicated_uniques,synthpop_disclosure";
    // Judged on these two metrics: the other risk families would keep it from passing.
    e.options["policy"] = {{"require_default_checks", false}};
    return evaluate(std::move(e));
  };
  const json fresh = audit(rows_of(population, 900, 1200));
  EXPECT_EQ(fresh["verdict"]["candidates"][0]["status"], "pass") << fresh["verdict"].dump(1);
  const json copies = audit(rows_of(population, 0, 300));
  EXPECT_EQ(copies["verdict"]["candidates"][0]["status"], "fail") << copies["verdict"].dump(1);
  // The fresh sample's checks were decided by the permutation tests (copies of this many rows
  // are failed by the checks before the metrics, which need no test).
  bool found = false;
  for (const auto& check : fresh["verdict"]["candidates"][0]["checks"]) {
    if (!check.contains("p_value")) continue;
    found = true;
    EXPECT_EQ(check["correction"], "holm");
    EXPECT_GE(check["tests"].get<int>(), 3);
    EXPECT_GT(check["resplits"].get<double>(), 0.0);
    EXPECT_NE(check["reason"].get<std::string>().find("after Holm over"), std::string::npos);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(fresh["verdict"]["policy"]["multiplicity"], "holm");
}

TEST(VerdictNull, PolicyChoosesTheCorrectionAndLevels) {
  const InputTable population = people(1200, 5);
  Evaluation e;
  e.confidential = rows_of(population, 0, 800);
  e.candidates = {{"c", {rows_of(population, 800, 1000)}}};
  e.holdout = rows_of(population, 1000, 1200);
  e.options = scenario_options();
  e.options["metrics"] = "replicated_uniques";
  e.options["policy"] = {{"multiplicity", "benjamini-hochberg"},
                         {"levels", {{"fail", 0.001}, {"review", 0.02}}}};
  const json document = evaluate(std::move(e));
  EXPECT_EQ(document["verdict"]["policy"]["multiplicity"], "benjamini-hochberg");
  EXPECT_EQ(document["verdict"]["policy"]["levels"]["fail"], 0.001);
  Evaluation bad;
  bad.confidential = rows_of(population, 0, 10);
  bad.candidates = {{"c", {rows_of(population, 10, 20)}}};
  bad.options = {{"policy", {{"multiplicity", "holmes"}}}};
  try {
    (void)evaluate(std::move(bad));
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("'holmes' is not one of holm, bonferroni, "
                        "benjamini-hochberg (did you mean 'holm'?)"),
              std::string::npos)
        << error.what();
  }
}
