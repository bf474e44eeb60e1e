#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/error.hpp"
#include "engine/evaluate.hpp"
#include "result/document.hpp"
#include "result/output_files.hpp"
#include "sim/simulator.hpp"
#include "synthaudit/synthaudit.hpp"

using namespace synthaudit;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const std::string& name) {
  auto dir =
      fs::temp_directory_path() / ("synthaudit_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
}  // namespace

TEST(Engine, DerivedSeedsDependOnMetricCandidateAndReplicateOnly) {
  EXPECT_EQ(derive_seed(1, "a", "ideal", 1), derive_seed(1, "a", "ideal", 1));
  EXPECT_NE(derive_seed(1, "a", "ideal", 1), derive_seed(1, "a", "ideal", 2));
  EXPECT_NE(derive_seed(1, "a", "ideal", 1), derive_seed(1, "b", "ideal", 1));
  EXPECT_NE(derive_seed(1, "a", "ideal", 1), derive_seed(2, "a", "ideal", 1));
}

TEST(Engine, DocumentTsvAndMeanOverReplicates) {
  const auto dir = temp_dir("engine");
  write(dir / "conf.csv", "x,c\n1,a\n2,b\n3,a\n4,b\n");
  write(dir / "s1.csv", "c,x\na,1\nb,2\na,3\nb,5\n");  // other column order
  write(dir / "s2.csv", "x,c\n1,a\n2,a\n3,a\n4,z\n");  // level z only in synthetic data
  EvaluationSpec spec;
  spec.confidential = (dir / "conf.csv").string();
  spec.candidates = {{"cand", {(dir / "s1.csv").string(), (dir / "s2.csv").string()}}};
  spec.metrics = {"ks_distance", "total_variation"};
  spec.output_dir = (dir / "out").string();
  const auto data = load_evaluation_data(spec);
  ASSERT_EQ(data.warnings.size(), 1u);
  EXPECT_NE(data.warnings[0].find("not in the confidential data: z"), std::string::npos);
  const auto doc = evaluate(spec, data);
  EXPECT_EQ(doc["schema"], kResultsSchema);
  ASSERT_EQ(doc["metrics"].size(), 2u);
  const auto& ks = doc["metrics"][0]["candidates"][0];
  ASSERT_EQ(ks["replicates"].size(), 2u);
  // replicate 1: x = {1,2,3,5} vs {1,2,3,4}: D = 0.25; replicate 2 identical: D = 0.
  EXPECT_DOUBLE_EQ(ks["replicates"][0]["values"][0]["value"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(ks["replicates"][1]["values"][0]["value"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(ks["mean"]["values"][0]["value"].get<double>(), 0.125);
  const std::string tsv = results_tsv(doc);
  EXPECT_EQ(tsv.substr(0, tsv.find('\n')), "candidate\treplicate\tmetric\tstatistic\tscope\tvalue");
  EXPECT_NE(tsv.find("cand\tmean\tks_distance\tks_distance\tx\t0.125\n"), std::string::npos);
  EXPECT_NE(tsv.find("cand\t1\tks_distance\tks_distance\tx\t0.25\n"), std::string::npos);
  fs::remove_all(dir);
}

// The mean of shares of records is withheld whenever one of its replicates would be: it counts the
// fewest records any replicate's share counted, 0 only when every replicate counted none.
TEST(Engine, MeanOfSharesCountsTheFewestRecordsOfAnyReplicate) {
  const auto replicates = [](std::vector<double> records) {
    std::vector<MetricResult> results(records.size());
    for (std::size_t r = 0; r < records.size(); ++r) {
      results[r].add_share("share", "all", records[r], 100);
      results[r].add("plain", "all", 1.0);
    }
    return mean_over_replicates(results);
  };
  const auto mixed = replicates({40, 3, 0, 25});
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_DOUBLE_EQ(mixed[0].value, 0.17);
  EXPECT_EQ(mixed[0].records, 3.0) << "the smallest positive count";
  EXPECT_TRUE(std::isnan(mixed[1].records)) << "a number that is no share counts nothing";
  EXPECT_EQ(replicates({0, 0})[0].records, 0.0);
  EXPECT_EQ(replicates({12, 30})[0].records, 12.0);
  EXPECT_EQ(values_to_json(mixed)[0]["records"], 3.0);
  EXPECT_FALSE(values_to_json(mixed)[1].contains("records"));
}

// `plots`: first keeps plot data for the first replicate only, all for every one, none for none;
// values and other details are untouched.
TEST(Engine, PlotsSettingKeepsPlotDataWhereAsked) {
  Evaluation tables;
  tables.confidential = {InputColumn::numeric("x", {1, 2, 3, 4})};
  tables.candidates = {
      {"cand",
       {{InputColumn::numeric("x", {1, 2, 3, 5})}, {InputColumn::numeric("x", {1, 2, 2, 4})}}}};
  tables.options["metrics"] = "ks_distance";
  for (const std::string setting : {"first", "all", "none"}) {
    Evaluation evaluation = tables;
    evaluation.options["plots"] = setting;
    const auto doc = evaluate(std::move(evaluation));
    const auto& reps = doc["metrics"][0]["candidates"][0]["replicates"];
    ASSERT_EQ(reps.size(), 2u);
    for (std::size_t r = 0; r < 2; ++r) {
      const bool kept = setting == "all" || (setting == "first" && r == 0);
      EXPECT_EQ(reps[r]["details"].contains("plots"), kept) << setting << " replicate " << r;
      EXPECT_EQ(reps[r].contains("plots_omitted"), !kept) << setting << " replicate " << r;
      EXPECT_FALSE(reps[r]["values"].empty());
    }
    EXPECT_EQ(doc["spec"]["plots"], setting);
  }
}

TEST(Engine, AtomicWriteLeavesNoTemporaryAndFailsCleanly) {
  const auto dir = temp_dir("atomic");
  write_file_atomic((dir / "a.txt").string(), "hello");
  std::ifstream in(dir / "a.txt");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "hello");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(write_file_atomic((dir / "no" / "such" / "dir.txt").string(), "x"), InputError);
  fs::remove_all(dir);
}

TEST(Simulator, DeterministicForSeedAndThreadCount) {
  const auto a = temp_dir("sim_a");
  const auto b = temp_dir("sim_b");
  SimulationOptions options;
  options.rows = 70000;  // several random-stream blocks
  options.replicates = 1;
  options.seed = 42;
  options.out_dir = a.string();
  omp_set_num_threads(1);
  simulate(options);
  options.out_dir = b.string();
  omp_set_num_threads(2);
  simulate(options);
  for (const auto* name :
       {"confidential.csv", "holdout.csv", "ideal_1.csv", "independent_1.csv", "leaky_1.csv"}) {
    std::ifstream fa(a / name), fb(b / name);
    const std::string ca((std::istreambuf_iterator<char>(fa)), {});
    const std::string cb((std::istreambuf_iterator<char>(fb)), {});
    EXPECT_FALSE(ca.empty()) << name;
    EXPECT_TRUE(ca == cb) << name << " differs between 1 and 2 threads";
  }
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(Simulator, CandidatesHaveTheirKnownQuality) {
  const auto dir = temp_dir("sim_quality");
  SimulationOptions options;
  options.rows = 4000;
  options.replicates = 1;
  options.out_dir = dir.string();
  const auto files = simulate(options);
  EvaluationSpec spec = load_spec(files.spec_path);
  spec.metrics = {"ks_distance"};
  const auto doc = evaluate(spec, load_evaluation_data(spec));
  auto mean_ks = [&](std::size_t candidate) {
    for (const auto& v : doc["metrics"][0]["candidates"][candidate]["replicates"][0]["values"])
      if (v["statistic"] == "mean_ks_distance") return v["value"].get<double>();
    return -1.0;
  };
  // leaky copies confidential rows (tiny perturbations): marginals much closer than any fresh
  // draw; ideal and independent are fresh draws with sampling error of order 1/sqrt(n).
  EXPECT_LT(mean_ks(2), 0.5 * mean_ks(0));
  EXPECT_LT(mean_ks(0), 0.05);
  EXPECT_LT(mean_ks(1), 0.05);
  fs::remove_all(dir);
}

// A metric that is not applicable on every run is reported as skipped with its reason, like a
// metric whose requirements are not met: no headline row of NA, no baseline runs of it. A
// metric that applies keeps its candidates and baselines.
TEST(Engine, MetricNotApplicableOnEveryRunIsSkippedWithItsReason) {
  const auto dir = temp_dir("engine_not_applicable");
  std::string rows = "x,y,c\n";
  for (int i = 0; i < 60; ++i)
    rows += std::to_string(i % 7) + "," + std::to_string((i * 3) % 5) + "," + (i % 2 ? "a" : "b") +
            "\n";
  write(dir / "conf.csv", rows);
  write(dir / "syn.csv", rows);
  write(dir / "holdout.csv", rows);
  EvaluationSpec spec;
  spec.confidential = (dir / "conf.csv").string();
  spec.holdout = (dir / "holdout.csv").string();
  spec.candidates = {{"cand", {(dir / "syn.csv").string()}}};
  spec.metrics = {"train_synthetic_test_real", "ks_distance"};
  spec.baseline_draws = 2;
  spec.output_dir = (dir / "out").string();
  const auto data = load_evaluation_data(spec);
  const auto doc = evaluate(spec, data);
  ASSERT_EQ(doc["metrics"].size(), 2u);
  const auto metric = [&](const std::string& name) {
    for (const auto& m : doc["metrics"])
      if (m["name"] == name) return m;
    ADD_FAILURE() << name << " not in the results";
    return nlohmann::json::object();
  };
  const auto tstr = metric("train_synthetic_test_real");
  ASSERT_TRUE(tstr.contains("skipped"));
  const std::string reason = tstr["skipped"].get<std::string>();
  EXPECT_EQ(reason.rfind("not applicable: ", 0), 0u) << reason;
  EXPECT_NE(reason.find("no target (give the parameter target"), std::string::npos) << reason;
  EXPECT_TRUE(tstr["candidates"].empty());
  const auto ks = metric("ks_distance");
  EXPECT_FALSE(ks.contains("skipped"));
  // The candidate, the resample baseline and the utility floor's independent marginals.
  ASSERT_EQ(ks["candidates"].size(), 3u);
  EXPECT_EQ(ks["candidates"][1]["name"], "resample");
  EXPECT_EQ(ks["candidates"][2]["name"], "independent_marginals");

  // With its target declared it applies, and keeps its candidate and baselines.
  spec.metrics = {"train_synthetic_test_real"};
  spec.parameters["train_synthetic_test_real"] = {{"target", "c"}};
  const auto applied = evaluate(spec, data);
  const auto& fitted = applied["metrics"][0];
  EXPECT_FALSE(fitted.contains("skipped"));
  ASSERT_FALSE(fitted["candidates"].empty());
  EXPECT_EQ(fitted["candidates"][0]["name"], "cand");
  fs::remove_all(dir);
}

// The baseline draws' rows sorted by counting give the comparison sort's sequence, on draws with
// and without repeats, pools larger and smaller than the draw, and the edges of the pool.
TEST(Engine, DrawnRowsSortedByCountingEqualAComparisonSort) {
  std::mt19937_64 rng(3);
  for (std::size_t pool : {1u, 7u, 1000u, 5000u, 100000u}) {
    for (std::size_t rows : {0u, 1u, 1023u, 1024u, 4000u, 30000u}) {
      std::vector<std::size_t> draw(rows);
      for (auto& r : draw) r = rng() % pool;
      if (rows > 1) draw[0] = pool - 1, draw[1] = 0;
      auto want = draw;
      std::sort(want.begin(), want.end());
      sort_drawn_rows(draw, pool);
      EXPECT_EQ(draw, want) << "pool " << pool << " rows " << rows;
    }
  }
}
