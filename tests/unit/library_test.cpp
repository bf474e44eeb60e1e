// The library seam: metrics over in-memory tables through the public header only.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "synthaudit/synthaudit.hpp"

using namespace synthaudit;
namespace fs = std::filesystem;

namespace {

// A small population: age and income (numeric, income with missing values and the missing code
// -8), sex (text with missing values), region (codes into levels, one level never used), a
// depression flag that depends on age and sex, so utility and disclosure metrics have signal, and
// a text household identifier (so the household metrics run and every draw takes households).
struct Rows {
  std::vector<double> age, income;
  std::vector<std::optional<std::string>> sex;
  std::vector<std::int32_t> region;
  std::vector<std::optional<std::string>> depressed;
  std::vector<std::optional<std::string>> household;  // households of 2 and 3 persons
};

const std::vector<std::string> kRegions = {"north", "south", "east", "west", "islands"};

Rows simulate_rows(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  auto uniform = [&] { return static_cast<double>(engine() >> 11) * 0x1.0p-53; };
  Rows r;
  for (std::size_t i = 0; i < n; ++i) {
    const double age = std::floor(18 + 60 * uniform());
    const bool female = uniform() < 0.5;
    r.age.push_back(age);
    const double u = uniform();
    r.income.push_back(u < 0.05   ? std::nan("")
                       : u < 0.08 ? -8.0
                                  : std::round(1000 + 40 * age + 800 * uniform()));
    r.sex.push_back(uniform() < 0.02 ? std::nullopt
                                     : std::optional<std::string>(female ? "F" : "M"));
    r.region.push_back(uniform() < 0.03 ? -1 : static_cast<std::int32_t>(4 * uniform()));
    r.depressed.push_back(uniform() < 0.1 + 0.004 * (age - 18) + (female ? 0.1 : 0.0) ? "yes"
                                                                                      : "no");
    r.household.push_back("h" + std::to_string(i * 2 / 5));
  }
  return r;
}

InputTable table_of(const Rows& r) {
  return {InputColumn::numeric("age", r.age),
          InputColumn::numeric("income", r.income),
          InputColumn::categorical("sex", r.sex),
          InputColumn::categorical("region", r.region, kRegions),
          InputColumn::categorical("depressed", r.depressed),
          InputColumn::categorical("household", r.household)};
}

Evaluation audit_of_simulated_data() {
  Evaluation e;
  e.confidential = table_of(simulate_rows(600, 1));
  e.candidates = {{"fresh", {table_of(simulate_rows(600, 2)), table_of(simulate_rows(600, 3))}},
                  {"copy", {table_of(simulate_rows(600, 1))}}};
  e.holdout = table_of(simulate_rows(200, 4));
  e.options = {{"missing_codes", {{"income", {-8}}}},
               {"household", "household"},
               {"keys", {"age", "sex", "region"}},
               {"targets", {"depressed"}},
               {"analyses", {"lm: income ~ age + factor(sex)", "mean: age"}},
               {"seed", 7},
               // Boosting is the slowest metric by far; a few rounds on one xgboost thread keep
               // the test short. With its target every metric runs (without one it would be
               // skipped as not applicable).
               {"params",
                {{"propensity_boosted_trees", {{"rounds", 10}, {"xgboost_threads", 1}}},
                 {"train_synthetic_test_real", {{"target", "depressed"}}}}}};
  return e;
}

// The document as results.json holds it (NaN written as null, since NaN != NaN would make equal
// documents differ) without what legitimately differs between runs: timings, the creation time
// and the thread count the run reports.
nlohmann::json without_run_facts(const nlohmann::json& document) {
  nlohmann::json doc = nlohmann::json::parse(document.dump());
  doc.erase("created");
  doc.erase("threads");
  doc["spec"].erase("threads");
  std::function<void(nlohmann::json&)> strip = [&](nlohmann::json& j) {
    if (j.is_object()) {
      j.erase("wall_seconds");
      for (auto& [key, value] : j.items()) strip(value);
    } else if (j.is_array()) {
      for (auto& value : j) strip(value);
    }
  };
  strip(doc);
  return doc;
}

// The JSON patch from one document to the other, without the run facts: "[]" when they agree.
std::string differences(const nlohmann::json& a, const nlohmann::json& b) {
  return nlohmann::json::diff(without_run_facts(a), without_run_facts(b)).dump();
}

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

TEST(Library, SameDocumentForOneAndTwoThreadsAndCallerOpenMpSettingsUnchanged) {
  omp_set_num_threads(3);  // the host's own settings, which a call must leave alone
  omp_set_dynamic(0);
  Evaluation one = audit_of_simulated_data();
  one.options["threads"] = 1;
  Evaluation two = audit_of_simulated_data();
  two.options["threads"] = 2;
  const nlohmann::json doc1 = evaluate(std::move(one));
  EXPECT_EQ(omp_get_max_threads(), 3);
  EXPECT_EQ(omp_get_dynamic(), 0);
  const nlohmann::json doc2 = evaluate(std::move(two));
  EXPECT_EQ(omp_get_max_threads(), 3);
  EXPECT_EQ(omp_get_dynamic(), 0);
  EXPECT_EQ(doc1["threads"], 1);
  EXPECT_EQ(doc2["threads"], 2);
  // The library's evaluate ends as the command line's does: with the verdict.
  ASSERT_TRUE(doc1.contains("verdict"));
  EXPECT_EQ(doc1["verdict"], doc2["verdict"]);

  // Every registered metric ran, except those for partial synthesis (holdout, scenarios and
  // analyses are given) and edit_rules (no rules are declared: not applicable).
  ASSERT_EQ(doc1["metrics"].size(), list_metrics().size());
  for (std::size_t m = 0; m < list_metrics().size(); ++m)
    EXPECT_EQ(doc1["metrics"][m].contains("skipped"),
              list_metrics()[m].needs_row_correspondence || list_metrics()[m].name == "edit_rules")
        << list_metrics()[m].name;
  EXPECT_EQ(differences(doc1, doc2), "[]");
  const auto rows1 = result_rows(doc1);
  const auto rows2 = result_rows(doc2);
  ASSERT_EQ(rows1.size(), rows2.size());
  ASSERT_GT(rows1.size(), 100u);
  for (std::size_t i = 0; i < rows1.size(); ++i)
    EXPECT_TRUE(same_value(rows1[i].value, rows2[i].value))
        << rows1[i].metric << " " << rows1[i].statistic << " " << rows1[i].scope;
  omp_set_num_threads(omp_get_num_procs());
}

TEST(Library, ConcurrentCallsFromTwoHostThreadsEachUseTheirOwnThreadCount) {
  nlohmann::json alone;
  {
    Evaluation e = audit_of_simulated_data();
    e.options["metrics"] = {"general", "propensity_cart", "distance_to_closest_record"};
    alone = evaluate(std::move(e));
  }
  nlohmann::json docs[2];
  int host_threads_after[2] = {0, 0};
  std::vector<std::thread> hosts;
  for (int i = 0; i < 2; ++i)
    hosts.emplace_back([&, i] {
      omp_set_num_threads(5 + i);  // each host thread's own setting
      Evaluation e = audit_of_simulated_data();
      e.options["metrics"] = {"general", "propensity_cart", "distance_to_closest_record"};
      e.options["threads"] = i + 1;
      docs[i] = evaluate(std::move(e));
      host_threads_after[i] = omp_get_max_threads();
    });
  for (auto& host : hosts) host.join();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(docs[i]["threads"], i + 1);
    EXPECT_EQ(host_threads_after[i], 5 + i);
    EXPECT_EQ(differences(docs[i], alone), "[]") << "call with " << i + 1 << " thread(s)";
  }
}

// The same data given in memory and as CSV files read by the command line's path give the same
// values: unused levels, missing codes and missing values are treated alike.
TEST(Library, InMemoryTablesGiveTheValuesOfTheSameDataReadFromFiles) {
  const fs::path dir =
      fs::temp_directory_path() / ("synthaudit_library_" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto write_csv = [&](const Rows& r, const std::string& name) {
    std::ofstream out(dir / name);
    out << "age,income,sex,region,depressed,household\n";
    char number[64];
    for (std::size_t i = 0; i < r.age.size(); ++i) {
      std::snprintf(number, sizeof number, "%.17g", r.income[i]);
      out << r.age[i] << "," << (std::isnan(r.income[i]) ? "NA" : number) << ","
          << r.sex[i].value_or("") << ","
          << (r.region[i] < 0 ? "" : kRegions[static_cast<std::size_t>(r.region[i])]) << ","
          << *r.depressed[i] << "," << *r.household[i] << "\n";
    }
    return (dir / name).string();
  };
  EvaluationSpec spec;
  spec.confidential = write_csv(simulate_rows(600, 1), "conf.csv");
  spec.candidates = {
      {"fresh",
       {write_csv(simulate_rows(600, 2), "f1.csv"), write_csv(simulate_rows(600, 3), "f2.csv")}},
      {"copy", {write_csv(simulate_rows(600, 1), "c1.csv")}}};
  spec.holdout = write_csv(simulate_rows(200, 4), "holdout.csv");
  spec.read.missing_codes = {{"income", {-8}}};
  spec.context.scenarios = {{{"age", "sex", "region"}, {"depressed"}}};
  spec.context.analyses = {parse_analysis("lm: income ~ age + factor(sex)", 0, "--analysis"),
                           parse_analysis("mean: age", 1, "--analysis")};
  spec.context.seed = 7;
  spec.context.household = "household";
  spec.parameters["propensity_boosted_trees"] = {{"rounds", 10}, {"xgboost_threads", 1}};
  spec.parameters["train_synthetic_test_real"] = {{"target", "depressed"}};
  const auto from_files = result_rows(evaluate(spec, load_evaluation_data(spec)));
  const auto from_memory = result_rows(evaluate(audit_of_simulated_data()));
  ASSERT_EQ(from_files.size(), from_memory.size());
  for (std::size_t i = 0; i < from_files.size(); ++i) {
    EXPECT_EQ(from_files[i].metric + from_files[i].statistic + from_files[i].scope,
              from_memory[i].metric + from_memory[i].statistic + from_memory[i].scope);
    EXPECT_TRUE(same_value(from_files[i].value, from_memory[i].value))
        << from_files[i].metric << " " << from_files[i].statistic << " " << from_files[i].scope
        << ": " << from_files[i].value << " from files, " << from_memory[i].value << " in memory";
  }
  fs::remove_all(dir);
}

TEST(Library, BadInputIsAnInputErrorWithTheCommandLinesMessage) {
  auto message_of = [](Evaluation e) {
    try {
      evaluate(std::move(e));
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  auto base = [] {
    Evaluation e;
    e.confidential = {InputColumn::numeric("x", {1, 2, 3}),
                      InputColumn::categorical("c", {"a", "b", std::nullopt})};
    e.candidates = {{"cand",
                     {{InputColumn::categorical("c", {0, 1, -1}, {"a", "b"}),
                       InputColumn::numeric("x", {1, 2, 4})}}}};
    e.options["metrics"] = {"ks_distance"};
    return e;
  };
  EXPECT_NE(evaluate(base())["metrics"][0]["candidates"][0]["replicates"].size(), 0u);

  // Related tables are folders of files: a spec file that declares them is refused here rather
  // than evaluated as one table, and the option itself is not a library argument.
  const fs::path spec = fs::temp_directory_path() /
                        ("synthaudit_library_tables_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(spec) << "confidential: conf/\ncandidates: [{name: a, replicates: [a/]}]\n"
                         "tables:\n  households: {primary_key: hid}\n"
                         "  persons: {primary_key: pid, parent: households, foreign_key: hid}\n";
  Evaluation e = base();
  e.options["spec"] = spec.string();
  EXPECT_NE(message_of(e).find("synthaudit: tables: related tables are read from folders"),
            std::string::npos)
      << message_of(e);
  fs::remove(spec);
  e = base();
  e.options["tables"] = {{"households", {{"primary_key", "hid"}}}};
  EXPECT_NE(message_of(e).find("tables"), std::string::npos) << message_of(e);

  e = base();
  e.options["params"] = {"ks_distance"};
  EXPECT_EQ(message_of(e), "synthaudit: params: expected a mapping metric: {parameter: value}");
  e = base();
  e.options["metrics"] = {"ks_distanse"};
  EXPECT_NE(message_of(e).find("synthaudit: metrics: "), std::string::npos);
  EXPECT_NE(message_of(e).find("ks_distance"), std::string::npos);  // the did-you-mean hint
  e = base();
  e.candidates[0].replicates[0].pop_back();
  EXPECT_EQ(message_of(e),
            "synthetic 'cand' replicate 1: column 'x' of the confidential data is missing (did "
            "you mean 'c'?)");
  e = base();
  e.candidates[0].replicates[0][1] = InputColumn::categorical("x", {"1", "2", "4"});
  EXPECT_EQ(message_of(e),
            "synthetic 'cand' replicate 1: column 'x' is categorical here but numeric in the "
            "confidential data");
  e = base();
  e.candidates[0].replicates[0][0] = InputColumn::categorical("c", {0, 2, 1}, {"a", "b"});
  EXPECT_EQ(message_of(e),
            "synthetic 'cand' replicate 1: row 2, column 'c': code 2 is not a level (there are "
            "2 levels)");
  e = base();
  e.confidential[0] = InputColumn::numeric("x", {1, 2});
  EXPECT_EQ(message_of(e), "confidential: column 'c' has 3 values, column 'x' has 2");
  e = base();
  e.holdout = InputTable{InputColumn::numeric("x", {}), InputColumn::categorical("c", {})};
  EXPECT_EQ(message_of(e), "holdout: the table has no rows");
  e = base();
  e.candidates.push_back(e.candidates[0]);
  EXPECT_EQ(message_of(e), "synthaudit: candidate name 'cand' is used twice");
  e = base();
  e.origin = "synthaudit.evaluate";
  e.options["params"] = {{"ks_distance", {{"no_such_parameter", 1}}}};
  EXPECT_EQ(message_of(e).rfind("synthaudit.evaluate: parameters.ks_distance", 0), 0u);

  EXPECT_EQ(describe("ks_distance").name, "ks_distance");
  try {
    describe("ks_distanse");
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("describe: no metric named 'ks_distanse'", 0), 0u);
  }
}
