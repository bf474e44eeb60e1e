// The evaluation's shared nearest-neighbour searches (stats/neighbour_cache), the progress of
// long steps (core/progress), the per-record outputs (record_level, records.tsv) and the
// simulator's extra columns.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/random.hpp"
#include "engine/evaluate.hpp"
#include "sim/simulator.hpp"
#include "stats/neighbour_cache.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;
namespace fs = std::filesystem;

namespace {

std::string mixed_csv(std::uint64_t seed, std::size_t rows) {
  Rng rng(seed);
  std::ostringstream out;
  out << "x,y,c,d\n";
  for (std::size_t i = 0; i < rows; ++i) {
    out << rng.below(6) << ","
        << (rng.uniform() < 0.05 ? std::string("NA") : std::to_string(rng.below(40) * 0.5)) << ","
        << "abc"[rng.below(3)] << ","
        << "uv"[rng.below(2)] << "\n";
  }
  return out.str();
}

fs::path temp_dir(const std::string& name) {
  auto dir =
      fs::temp_directory_path() / ("synthaudit_nnplan_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST(NeighbourCache, SharesSearchesBetweenKeptTablesAndEqualsDirectSearch) {
  const auto t = make_tables(mixed_csv(1, 300), {mixed_csv(2, 250)}, mixed_csv(3, 200));
  const Table& conf = t.confidential;
  const Table& syn = t.synthetic[0];
  stats::NeighbourCache cache;
  cache.keep(conf);
  cache.keep(syn);
  stats::NeighbourOptions o;
  o.scale = &conf;
  o.k = 3;
  const auto direct3 = stats::nearest_neighbours(syn, conf, o);
  const auto first = cache.search(syn, conf, o);
  EXPECT_EQ(first.distance, direct3.distance);
  EXPECT_EQ(first.index, direct3.index);
  EXPECT_EQ(cache.searches_run(), 1u);
  // A smaller k is the prefix of the stored search, equal to a search with that k.
  o.k = 2;
  const auto direct2 = stats::nearest_neighbours(syn, conf, o);
  const auto again = cache.search(syn, conf, o);
  EXPECT_EQ(again.k, 2u);
  EXPECT_EQ(again.distance, direct2.distance);
  EXPECT_EQ(again.index, direct2.index);
  EXPECT_EQ(cache.searches_run(), 1u);
  EXPECT_EQ(cache.searches_reused(), 1u);
  // A larger k runs again; other columns, another direction are other searches.
  o.k = 5;
  EXPECT_EQ(cache.search(syn, conf, o).index, stats::nearest_neighbours(syn, conf, o).index);
  EXPECT_EQ(cache.searches_run(), 2u);
  o.columns = {0, 2};
  EXPECT_EQ(cache.search(syn, conf, o).distance, stats::nearest_neighbours(syn, conf, o).distance);
  EXPECT_EQ(cache.searches_run(), 3u);
  o.columns.clear();
  EXPECT_EQ(cache.search(conf, syn, o).index, stats::nearest_neighbours(conf, syn, o).index);
  EXPECT_EQ(cache.searches_run(), 4u);
  // The holdout was not kept: never stored, always searched.
  cache.search(*t.holdout, conf, o);
  cache.search(*t.holdout, conf, o);
  EXPECT_EQ(cache.searches_run(), 6u);
  EXPECT_EQ(cache.searches_reused(), 1u);
}

TEST(NeighbourCache, MetricsGiveTheSameResultsWithAndWithoutTheSharedSearches) {
  const auto t = make_tables(mixed_csv(4, 400), {mixed_csv(5, 300)}, mixed_csv(6, 350));
  stats::NeighbourCache cache;
  cache.keep(t.confidential);
  cache.keep(t.synthetic[0]);
  cache.keep(*t.holdout);
  const EvaluationContext context;
  for (const std::string name : {"distance_to_closest_record", "distance_membership_inference",
                                 "distance_to_closest_record"}) {
    const MetricSpec* metric = find_metric(name);
    ASSERT_NE(metric, nullptr);
    const Params p = Params::resolve(name, metric->params, nlohmann::json::object(), "test");
    MetricInput direct{t.confidential, {&t.synthetic[0]}, &*t.holdout, context, "c", 7};
    MetricInput shared = direct;
    shared.neighbours = &cache;
    const MetricResult a = metric->compute(direct, p);
    const MetricResult b = metric->compute(shared, p);
    ASSERT_EQ(a.values.size(), b.values.size());
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      EXPECT_EQ(a.values[i].statistic, b.values[i].statistic);
      if (std::isnan(a.values[i].value)) {
        EXPECT_TRUE(std::isnan(b.values[i].value));
      } else {
        EXPECT_EQ(a.values[i].value, b.values[i].value) << name << " " << a.values[i].statistic;
      }
    }
    EXPECT_EQ(a.details.dump(), b.details.dump()) << name;
  }
  // DCR runs syn->conf, conf->syn, holdout->conf, SDMetrics' random baseline->conf (a temporary
  // table: never stored) and syn->holdout; membership inference reuses conf->syn and runs
  // holdout->syn; the second DCR reuses all but the random baseline.
  EXPECT_EQ(cache.searches_run(), 7u);
  EXPECT_EQ(cache.searches_reused(), 5u);
}

namespace {
struct RecordingSink : ProgressSink {
  std::vector<std::tuple<std::size_t, std::size_t, bool>> calls;
  void report(const std::string&, std::size_t done, std::size_t total, double,
              bool finished) override {
    calls.emplace_back(done, total, finished);
  }
};
}  // namespace

TEST(Progress, SearchReportsQueriesDoneAndFinishes) {
  const auto t = make_tables(mixed_csv(7, 3000), {mixed_csv(8, 3000)});
  RecordingSink sink;
  stats::NeighbourOptions o;
  o.progress = &sink;
  o.progress_task = "search";
  stats::nearest_neighbours(t.synthetic[0], t.confidential, o);
  ASSERT_GE(sink.calls.size(), 2u);
  for (std::size_t i = 0; i + 1 < sink.calls.size(); ++i) {
    const auto [done, total, finished] = sink.calls[i];
    EXPECT_FALSE(finished);
    EXPECT_EQ(total, 3000u);
    EXPECT_LE(done, total);
  }
  EXPECT_EQ(sink.calls.back(), std::make_tuple(std::size_t{3000}, std::size_t{3000}, true));
}

TEST(Progress, StreamLinesAfterTheQuietTimeWithTimeLeft) {
  EXPECT_EQ(StreamProgress::describe(250, 1000, 30.0), "25% (250/1000), about 1m 30s left");
  EXPECT_EQ(StreamProgress::describe(1, 2, 3600.0), "50% (1/2), about 1h 0m 0s left");
  EXPECT_EQ(StreamProgress::describe(10, 10, 5.0), "100% (10/10)");
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* stream = open_memstream(&buffer, &size);
  {
    StreamProgress plain(stream, false, 10.0, 15.0);
    plain.report("task", 1, 10, 5.0, false);   // quiet time: nothing
    plain.report("task", 2, 10, 11.0, false);  // first line
    plain.report("task", 3, 10, 20.0, false);  // within 15 s of it: nothing
    plain.report("task", 5, 10, 26.0, false);  // a line
    plain.report("task", 10, 10, 40.0, true);  // shown, so a final line
    plain.report("short", 10, 10, 2.0, true);  // never shown: silent
  }
  std::fclose(stream);
  const std::string text(buffer, size);
  std::free(buffer);
  EXPECT_EQ(text,
            "synthaudit: task 20% (2/10), about 44s left\n"
            "synthaudit: task 50% (5/10), about 26s left\n"
            "synthaudit: task done in 40 s\n");
}

TEST(RecordLevel, RecordsTsvHoldsEveryQueryRecordsNearestDistanceAndRow) {
  const auto dir = temp_dir("records");
  std::ofstream(dir / "conf.csv") << mixed_csv(9, 120);
  std::ofstream(dir / "syn.csv") << mixed_csv(10, 90);
  std::ofstream(dir / "hold.csv") << mixed_csv(11, 60);
  EvaluationSpec spec;
  spec.confidential = (dir / "conf.csv").string();
  spec.holdout = (dir / "hold.csv").string();
  spec.candidates = {{"cand", {(dir / "syn.csv").string()}}};
  spec.metrics = {"distance_to_closest_record", "distance_membership_inference"};
  spec.parameters["distance_to_closest_record"] = {{"record_level", true}};
  spec.output_dir = (dir / "out").string();
  spec.baseline_draws = 0;
  const auto data = load_evaluation_data(spec);
  std::vector<RecordLevelOutput> records;
  EvaluationSinks sinks;
  sinks.records = &records;
  const auto doc = evaluate(spec, data, {}, sinks);
  EXPECT_EQ(doc.dump().find("nearest_row"), std::string::npos);  // not in the document
  ASSERT_EQ(records.size(), 3u);  // DCR only: membership inference was not asked
  EXPECT_EQ(records[0].records.scope, "syn_to_conf");
  EXPECT_EQ(records[1].records.scope, "conf_to_syn");
  EXPECT_EQ(records[2].records.scope, "holdout_to_conf");
  EXPECT_EQ(records[0].records.data, "synthetic");
  EXPECT_EQ(records[1].records.data, "confidential");
  EXPECT_EQ(records[2].records.data, "holdout");
  for (const auto& r : records) {
    EXPECT_EQ(r.candidate, "cand");
    EXPECT_EQ(r.replicate, "1");
    EXPECT_EQ(r.records.fields, (std::vector<std::string>{"nearest_row", "distance"}));
  }
  EXPECT_EQ(records[0].records.values[1].size(), 90u);
  EXPECT_EQ(records[1].records.values[1].size(), 120u);
  EXPECT_EQ(records[2].records.values[1].size(), 60u);
  // Each row: the brute-force nearest distance and the lowest row at that distance (1-based).
  stats::NeighbourOptions o;
  o.scale = &data.confidential;
  const stats::PairDistance pair(data.candidates[0].replicates[0], data.confidential, o);
  for (std::size_t q = 0; q < 90; ++q) {
    double best = INFINITY;
    std::uint32_t row = 0;
    for (std::size_t j = 0; j < 120; ++j)
      if (pair(q, j) < best) {
        best = pair(q, j);
        row = static_cast<std::uint32_t>(j);
      }
    EXPECT_EQ(records[0].records.values[1][q], best);
    EXPECT_EQ(records[0].records.values[0][q], row + 1.0);
  }
  const std::string tsv = records_tsv(records);
  std::istringstream lines(tsv);
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(header, "candidate\treplicate\tmetric\tscope\tdata\trow\tfield\tvalue");
  char expected[128];
  std::snprintf(expected, sizeof expected,
                "cand\t1\tdistance_to_closest_record\tsyn_to_conf\tsynthetic\t1\tnearest_row\t%.0f",
                records[0].records.values[0][0]);
  EXPECT_EQ(first, expected);
  std::snprintf(expected, sizeof expected,
                "cand\t1\tdistance_to_closest_record\tsyn_to_conf\tsynthetic\t1\tdistance\t%.17g",
                records[0].records.values[1][0]);
  EXPECT_EQ(second, expected);
  EXPECT_EQ(std::count(tsv.begin(), tsv.end(), '\n'), 1 + 2 * (90 + 120 + 60));
  fs::remove_all(dir);
}

TEST(Simulator, ColumnsAddsNumericAndCategoricalColumnsInTurn) {
  const auto dir = temp_dir("columns");
  SimulationOptions options;
  options.rows = 200;
  options.replicates = 1;
  options.columns = 15;
  options.out_dir = dir.string();
  const auto files = simulate(options);
  std::ifstream in(files.confidential);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header,
            "region,sex,age,education,marital,household_size,employed,occupation,hours_worked,"
            "income,smoke,health_score,num1,cat1,num2");
  const auto t = load_tables(files.confidential, {files.candidates[2].second[0]});
  ASSERT_EQ(t.confidential.column_count(), 15u);
  EXPECT_TRUE(t.confidential.column(12).is_numeric());
  EXPECT_TRUE(t.confidential.column(13).is_categorical());
  EXPECT_TRUE(t.confidential.column(14).is_numeric());
  options.columns = 11;
  EXPECT_THROW(simulate(options), InputError);
  fs::remove_all(dir);
}

// Targets with the same rows share the kNN attack's searches; the numbers equal those of one
// scenario per target (each with its own searches).
TEST(NeighbourCache, KnnAttackTargetsWithTheSameRowsShareSearches) {
  const auto t = make_tables(mixed_csv(12, 500), {mixed_csv(13, 400)});
  EvaluationContext together;
  together.scenarios = {{{"x", "y"}, {"c", "d"}}};
  EvaluationContext apart;
  apart.scenarios = {{{"x", "y"}, {"c"}}, {{"x", "y"}, {"d"}}};
  const MetricResult a = run_metric("knn_attribute_attack", t, nlohmann::json::object(), together);
  const MetricResult b = run_metric("knn_attribute_attack", t, nlohmann::json::object(), apart);
  ASSERT_EQ(a.values.size(), b.values.size());
  ASSERT_GT(a.values.size(), 0u);
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    EXPECT_EQ(a.values[i].statistic, b.values[i].statistic);
    EXPECT_EQ(a.values[i].scope, b.values[i].scope);
    if (!std::isnan(a.values[i].value)) {
      EXPECT_EQ(a.values[i].value, b.values[i].value) << a.values[i].statistic;
    }
  }
}
