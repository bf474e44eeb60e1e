// Rank statistics over ranks that each hold a part of the rows (stats/distributed_sort.hpp) and
// the collective forms of ks_distance and wasserstein_distance built on them, on threads standing
// in for ranks: every number, plot and warning is bit-identical to one process over the whole
// columns, on data with many ties, values equal to the splitters, empty partitions, missing values
// and a column constant on one rank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/communicator.hpp"
#include "engine/partitioned_evaluate.hpp"
#include "metrics/metric.hpp"
#include "metrics/registry.hpp"
#include "partitioned_test_support.hpp"
#include "sim/simulator.hpp"
#include "spec/spec.hpp"
#include "stats/distributed_sort.hpp"
#include "stats/distribution.hpp"
#include "stats/ecdf.hpp"
#include "stats/quantile.hpp"
#include "stats/summary.hpp"
#include "table/table.hpp"

namespace synthaudit {
namespace {

// cuts, rows_of, run_partitioned, same_bits
using namespace testing;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> slice(const std::vector<double>& values, const std::vector<std::size_t>& at,
                          int rank) {
  return {values.begin() + static_cast<std::ptrdiff_t>(at[static_cast<std::size_t>(rank)]),
          values.begin() + static_cast<std::ptrdiff_t>(at[static_cast<std::size_t>(rank) + 1])};
}

// A few distinct values, most of them one value (so splitters fall on it), and missing values.
std::vector<double> tied_values(std::size_t n, std::uint64_t seed, double spike_share) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = unit(random);
    if (u < 0.05)
      out.push_back(kNaN);
    else if (u < 0.05 + spike_share)
      out.push_back(3.0);
    else
      out.push_back(std::floor(unit(random) * 9.0) * 0.5);
  }
  return out;
}

TEST(CoSortedSamples, StatisticsEqualOneProcessOverTheWholeSamples) {
  const auto first = tied_values(3001, 1, 0.4);
  auto second = tied_values(2203, 2, 0.1);
  for (std::size_t i = 0; i < 500; ++i) second[i] = 0.25 * static_cast<double>(i % 37);
  const auto a = stats::sorted_values(first);
  const auto b = stats::sorted_values(second);
  const auto pooled = [&] {
    std::vector<double> all(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), all.begin());
    return all;
  }();
  std::vector<double> probabilities;
  for (int k = 0; k <= 200; ++k) probabilities.push_back(k / 200.0);
  const std::vector<double> xs = {-1.0, 0.0, 0.25, 2.5, 3.0, 3.1, 4.0, 9.0};
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const auto first_cuts = cuts(first.size(), ranks);
    // The second sample split differently: a rank may hold rows of one sample only.
    auto second_cuts = cuts(second.size(), ranks);
    std::reverse(second_cuts.begin(), second_cuts.end());
    for (auto& cut : second_cuts) cut = second.size() - cut;
    run_thread_group(ranks, [&](Communicator& communicator) {
      const int rank = communicator.rank();
      stats::CoSortedSamples samples(communicator, slice(first, first_cuts, rank),
                                     slice(second, second_cuts, rank));
      using Sample = stats::CoSortedSamples::Sample;
      EXPECT_EQ(samples.size(Sample::kFirst), a.size());
      EXPECT_EQ(samples.size(Sample::kSecond), b.size());
      EXPECT_TRUE(same_bits(samples.ks_distance(), stats::ks_distance_sorted(a, b)));
      EXPECT_TRUE(same_bits(samples.wasserstein1(), stats::wasserstein1_sorted(a, b)));
      for (const auto& [sample, whole] :
           {std::pair{Sample::kFirst, &a}, std::pair{Sample::kSecond, &b},
            std::pair{Sample::kPooled, &pooled}}) {
        for (auto arithmetic : {stats::QuantileArithmetic::kNumpy, stats::QuantileArithmetic::kR}) {
          const auto quantiles = samples.quantiles_type7(sample, probabilities, arithmetic);
          for (std::size_t k = 0; k < probabilities.size(); ++k)
            EXPECT_TRUE(same_bits(quantiles[k],
                                  stats::quantile_type7(*whole, probabilities[k], arithmetic)))
                << probabilities[k];
        }
        const auto counts = samples.count_at_or_below(sample, xs);
        for (std::size_t k = 0; k < xs.size(); ++k)
          EXPECT_EQ(counts[k],
                    static_cast<std::uint64_t>(
                        std::upper_bound(whole->begin(), whole->end(), xs[k]) - whole->begin()));
        const auto ends = samples.at(sample, {0, whole->size() - 1});
        EXPECT_EQ(ends[0], whole->front());
        EXPECT_EQ(ends[1], whole->back());
      }
      // Each rank's values are one value range, ascending, with every copy of a value.
      const auto& mine = samples.local(Sample::kFirst);
      EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
      if (!mine.empty()) {
        EXPECT_EQ(std::count(mine.begin(), mine.end(), mine.front()),
                  std::count(a.begin(), a.end(), mine.front()));
      }
    });
  }
}

TEST(CoSortedSamples, DistinctValuesAreSpreadAboutEvenly) {
  std::mt19937_64 random(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> first(40000), second(30000);
  for (auto& v : first) v = normal(random);
  for (auto& v : second) v = 2.0 * normal(random) + 1.0;
  const int ranks = 4;
  // Every value starts on rank 0: after the sort each rank holds about a quarter.
  run_thread_group(ranks, [&](Communicator& communicator) {
    const bool root = communicator.is_root();
    stats::CoSortedSamples samples(communicator, root ? first : std::vector<double>{},
                                   root ? second : std::vector<double>{});
    using Sample = stats::CoSortedSamples::Sample;
    const double held = static_cast<double>(samples.local(Sample::kFirst).size() +
                                            samples.local(Sample::kSecond).size());
    EXPECT_LT(held, 1.25 * (first.size() + second.size()) / ranks) << communicator.rank();
    EXPECT_GT(held, 0.75 * (first.size() + second.size()) / ranks) << communicator.rank();
  });
}

TEST(CoSortedSamples, EmptySamplesGiveNaNOnEveryRank) {
  run_thread_group(3, [&](Communicator& communicator) {
    const std::vector<double> some = {1.0, 2.0, kNaN};
    stats::CoSortedSamples samples(communicator, some, std::vector<double>{kNaN});
    EXPECT_TRUE(std::isnan(samples.ks_distance()));
    EXPECT_TRUE(std::isnan(samples.wasserstein1()));
    EXPECT_TRUE(std::isnan(samples.quantiles_type7(stats::CoSortedSamples::kSecond, {0.5},
                                                   stats::QuantileArithmetic::kNumpy)[0]));
    EXPECT_EQ(samples.size(stats::CoSortedSamples::kFirst), 6u);
  });
}

// The metric's inputs: numeric columns with ties, missing values, a spike, a column constant on
// one rank's rows, a column the synthetic data leave empty, and a categorical column.
struct Tables {
  Table confidential, synthetic;
};

Tables test_tables() {
  auto dictionary = std::make_shared<Dictionary>();
  auto numeric = [](std::string name, std::vector<double> values) {
    Column column;
    column.name = std::move(name);
    column.numeric = std::move(values);
    return column;
  };
  auto categorical = [&](std::size_t rows) {
    Column column;
    column.name = "group";
    column.kind = ColumnKind::kCategorical;
    column.dictionary = dictionary;
    column.codes.assign(rows, 0);
    return column;
  };
  const std::size_t n = 2000, m = 1700;
  std::vector<double> constant_part = tied_values(n, 11, 0.0);
  // Rows [n/10, 6n/10) are one value: rank 1's whole partition at 4 ranks, most of rank 0's at 3.
  for (std::size_t i = n / 10; i < n * 6 / 10; ++i) constant_part[i] = 2.0;
  std::vector<double> continuous(n), continuous_syn(m);
  std::mt19937_64 random(3);
  std::normal_distribution<double> normal(10.0, 3.0);
  for (auto& v : continuous) v = normal(random);
  for (auto& v : continuous_syn) v = std::round(normal(random) * 4.0) / 4.0;
  dictionary->intern("a");
  Tables out;
  out.confidential =
      Table(TableSource{"conf.csv", "", "confidential"},
            {numeric("tied", tied_values(n, 7, 0.5)), categorical(n),
             numeric("constant_part", constant_part), numeric("continuous", continuous),
             numeric("empty_in_synthetic", tied_values(n, 8, 0.2))});
  out.synthetic = Table(
      TableSource{"syn.csv", "", "synthetic"},
      {numeric("tied", tied_values(m, 9, 0.3)), categorical(m),
       numeric("constant_part", tied_values(m, 10, 0.6)), numeric("continuous", continuous_syn),
       numeric("empty_in_synthetic", std::vector<double>(m, kNaN))});
  return out;
}

void expect_same_result(const MetricResult& together, const MetricResult& single) {
  ASSERT_EQ(together.values.size(), single.values.size());
  for (std::size_t i = 0; i < single.values.size(); ++i) {
    EXPECT_EQ(together.values[i].statistic, single.values[i].statistic);
    EXPECT_EQ(together.values[i].scope, single.values[i].scope);
    EXPECT_TRUE(same_bits(together.values[i].value, single.values[i].value))
        << single.values[i].statistic << " " << single.values[i].scope << ": "
        << together.values[i].value << " vs " << single.values[i].value;
  }
  EXPECT_EQ(together.details.dump(), single.details.dump());
  EXPECT_EQ(together.warnings, single.warnings);
}

TEST(CollectiveForm, RankStatisticMetricsEqualOneProcess) {
  const Tables tables = test_tables();
  EvaluationContext context;
  for (const char* name : {"ks_distance", "wasserstein_distance"}) {
    SCOPED_TRACE(name);
    const MetricSpec* metric = find_metric(name);
    ASSERT_NE(metric, nullptr);
    ASSERT_TRUE(metric->collective.has_value());
    nlohmann::json given = nlohmann::json::object();
    if (std::string(name) == "ks_distance") given["pvalue"] = true;
    const Params params = Params::resolve(metric->name, metric->params, given, "test");
    const MetricInput whole{tables.confidential, {&tables.synthetic}, nullptr, context, "c", 1};
    ASSERT_TRUE(metric->collective->applies(whole, params));
    const MetricResult single = metric->compute(whole, params);
    ASSERT_FALSE(single.details["plots"].empty());
    for (int ranks : {1, 2, 3, 4}) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const auto conf_cuts = cuts(tables.confidential.rows(), ranks);
      const auto syn_cuts = cuts(tables.synthetic.rows(), ranks);
      MetricResult together;
      run_thread_group(ranks, [&](Communicator& communicator) {
        const Table conf = rows_of(tables.confidential, conf_cuts, communicator.rank());
        const Table syn = rows_of(tables.synthetic, syn_cuts, communicator.rank());
        const MetricInput partition{conf, {&syn}, nullptr, context, "c", 1};
        MetricResult result = metric->collective->run(partition, params, communicator);
        if (communicator.is_root()) together = std::move(result);
      });
      expect_same_result(together, single);
    }
  }
}

// l_diversity's classes hash-partitioned over the ranks: the same numbers as its mergeable form
// (bit for bit: whole record counts and minima) and as compute on the whole tables.
TEST(CollectiveForm, LDiversityFromHashPartitionedClassesEqualsOneProcess) {
  const Tables tables = test_tables();
  EvaluationContext context;
  context.scenarios = {{{"tied", "group"}, {"constant_part", "continuous"}},
                       {{"constant_part"}, {"tied"}}};
  const MetricSpec* metric = find_metric("l_diversity");
  ASSERT_NE(metric, nullptr);
  ASSERT_TRUE(metric->collective.has_value());
  const Params params = Params::resolve(metric->name, metric->params,
                                        nlohmann::json{{"numeric", "exact"}, {"l", 3}}, "test");
  const MetricInput whole{tables.confidential, {&tables.synthetic}, nullptr, context, "c", 1};
  ASSERT_TRUE(metric->collective->applies(whole, params));
  const MetricResult single = metric->compute(whole, params);
  ASSERT_EQ(single.values.size(), 3u * 2u * 6u);
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const auto [together, merged] =
        run_partitioned(*metric, tables.confidential, tables.synthetic, context, params, ranks);
    expect_same_result(together, merged);
    ASSERT_EQ(together.values.size(), single.values.size());
    for (std::size_t i = 0; i < single.values.size(); ++i) {
      EXPECT_EQ(together.values[i].scope, single.values[i].scope);
      const double a = together.values[i].value, b = single.values[i].value;
      EXPECT_TRUE((std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= 1e-12 * std::abs(b))
          << single.values[i].statistic << " " << single.values[i].scope << ": " << a << " vs "
          << b;
    }
  }
}

// coverage_and_validity's ranks exchange counts and ranges, then count their own synthetic values
// inside the whole confidential range: bit for bit one process's and the mergeable form's, with a
// column the synthetic data leave empty and partitions without rows.
TEST(CollectiveForm, CoverageAndValidityEqualsOneProcess) {
  const Tables tables = test_tables();
  EvaluationContext context;
  const MetricSpec* metric = find_metric("coverage_and_validity");
  ASSERT_NE(metric, nullptr);
  ASSERT_TRUE(metric->collective.has_value());
  const Params params =
      Params::resolve(metric->name, metric->params, nlohmann::json::object(), "test");
  const MetricInput whole{tables.confidential, {&tables.synthetic}, nullptr, context, "c", 1};
  ASSERT_TRUE(metric->collective->applies(whole, params));
  const MetricResult single = metric->compute(whole, params);
  ASSERT_FALSE(single.warnings.empty());  // the column empty in the synthetic data
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const auto [together, merged] =
        run_partitioned(*metric, tables.confidential, tables.synthetic, context, params, ranks);
    expect_same_result(together, single);
    expect_same_result(merged, single);
    for (std::size_t i = 0; i < single.values.size(); ++i)
      EXPECT_TRUE(same_bits(together.values[i].records, single.values[i].records));
  }
}

TEST(CollectiveForm, DoesNotApplyWithDesignWeights) {
  const Tables tables = test_tables();
  EvaluationContext context;
  context.weights = "continuous";
  for (const char* name : {"ks_distance", "wasserstein_distance"}) {
    const MetricSpec* metric = find_metric(name);
    const Params params =
        Params::resolve(metric->name, metric->params, nlohmann::json::object(), "test");
    const MetricInput whole{tables.confidential, {&tables.synthetic}, nullptr, context, "c", 1};
    EXPECT_FALSE(metric->collective->applies(whole, params)) << name;
  }
}

// A metric with both forms, counting which one the engine runs; `together` says whether its
// collective form applies.
MetricSpec counted_metric(bool together, std::atomic<int>& collective_runs,
                          std::atomic<int>& states_made) {
  MetricSpec metric;
  metric.name = "test_counted";
  metric.compute = [](const MetricInput&, const Params&) { return MetricResult{}; };
  metric.mergeable = MergeableForm{
      .partial_state =
          [&states_made](const MetricInput&, const Params&) {
            ++states_made;
            return std::string();
          },
      .finalize =
          [](const std::vector<std::string>& states, const MetricInput&, const Params&) {
            MetricResult result;
            result.add("path", "all", 1.0);
            result.add("states", "all", static_cast<double>(states.size()));
            return result;
          }};
  metric.collective = CollectiveForm{
      .applies = [together](const MetricInput&, const Params&) { return together; },
      .run =
          [&collective_runs](const MetricInput& partition, const Params&,
                             Communicator& communicator) {
            ++collective_runs;
            // A collective inside the form: every rank's rows of the confidential partition.
            std::uint64_t rows = 0;
            for (const auto& bytes :
                 communicator.all_gather(std::to_string(partition.confidential.rows())))
              rows += std::stoull(bytes);
            MetricResult result;
            result.add("path", "all", 2.0);
            result.add("rows", "all", static_cast<double>(rows));
            return result;
          }};
  return metric;
}

TEST(CollectiveForm, EnginePrefersItWithoutWholeTables) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("synthaudit_collective_engine_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  SimulationOptions options;
  options.rows = 900;
  options.holdout_rows = 200;
  options.replicates = 1;
  options.out_dir = dir.string();
  EvaluationSpec spec = load_spec(simulate(options).spec_path);
  spec.metrics = {"ks_distance"};
  spec.context.analyses.clear();
  ASSERT_FALSE(needs_whole_tables(spec));
  for (const bool together : {true, false}) {
    SCOPED_TRACE(together ? "applies" : "does not apply");
    std::atomic<int> collective_runs{0}, states_made{0};
    const MetricSpec metric = counted_metric(together, collective_runs, states_made);
    const MetricFinder find = [&](std::string_view name) {
      return name == metric.name ? &metric : nullptr;
    };
    MetricResult result;
    std::size_t whole_rows = 0;
    run_thread_group(3, [&](Communicator& communicator) {
      PartitionedData data = load_partitioned_evaluation_data(spec, communicator);
      evaluate_partitioned(
          spec, data, communicator,
          [&](const EvaluationData& tables, EvaluationSinks sinks) {
            whole_rows = sinks.whole_rows(tables.confidential);
            const Params params = Params::resolve(metric.name, {}, nlohmann::json::object(), "");
            const auto& candidate = tables.candidates.front();
            const MetricInput input{tables.confidential,
                                    {&candidate.replicates[0]},
                                    nullptr,
                                    spec.context,
                                    candidate.name,
                                    1};
            result = *sinks.compute(metric, input, params);
            return nlohmann::json::object();
          },
          find);
    });
    ASSERT_EQ(result.values.size(), 2u);
    if (together) {
      EXPECT_EQ(collective_runs.load(), 3);
      EXPECT_EQ(states_made.load(), 0);
      EXPECT_EQ(result.values[0].value, 2.0);
      EXPECT_EQ(result.values[1].value, static_cast<double>(whole_rows));
    } else {
      EXPECT_EQ(collective_runs.load(), 0);
      EXPECT_EQ(states_made.load(), 3);
      EXPECT_EQ(result.values[0].value, 1.0);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace synthaudit
