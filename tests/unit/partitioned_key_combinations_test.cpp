// The collective forms of the key-combination measures (k_anonymity, replicated_uniques,
// individual_risk; sdc/owned_combinations.hpp), on threads standing in for ranks: each key
// combination's records are sent to the rank that owns it, and every statistic, plot, warning and
// output-checking record count must equal one process over the whole tables (bit for bit where
// the arithmetic is integer, within 1e-12 relative for sums of risks and weights) and the
// mergeable form's. The data have unique and shared key combinations, missing key values (some
// records with every key missing, for sdcMicro's wildcard exception), a combination present on
// one rank only, uneven and empty partitions, and a numeric key.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/communicator.hpp"
#include "core/error.hpp"
#include "metrics/metric.hpp"
#include "metrics/registry.hpp"
#include "metrics/sdc_risk/owned_combinations.hpp"
#include "partitioned_test_support.hpp"
#include "stats/equivalence_classes.hpp"
#include "table/table.hpp"

namespace synthaudit {
namespace {

// cuts, rows_of, run_partitioned, same_bits
using namespace testing;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool within(double a, double b, double relative) {
  return (std::isnan(a) && std::isnan(b)) || a == b ||
         std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));
}

struct Tables {
  Table confidential, synthetic;
};

// Keys: region (6 levels, some missing; level "island" only in rows [n/10, 2n/10), which lie on
// one rank at 2 and 4 ranks), sex (2 levels, rarely missing), age (numeric, some missing) and rare
// (many levels: mostly unique combinations). A few records have every key missing. Target smoke;
// design weight w.
Tables test_tables() {
  std::vector<std::shared_ptr<Dictionary>> dictionaries;
  auto categorical = [&](std::string name, std::vector<std::string> levels) {
    auto dictionary = std::make_shared<Dictionary>();
    for (const auto& level : levels) dictionary->intern(level);
    dictionaries.push_back(dictionary);
    Column column;
    column.name = std::move(name);
    column.kind = ColumnKind::kCategorical;
    column.dictionary = dictionary;
    return column;
  };
  std::vector<std::string> rare_levels;
  for (int i = 0; i < 400; ++i) rare_levels.push_back("r" + std::to_string(i));
  auto make = [&](std::size_t n, std::uint64_t seed, bool with_island) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<Column> columns = {
        categorical("region", {"north", "south", "east", "west", "centre", "island"}),
        categorical("sex", {"F", "M"}),
        Column{},
        categorical("rare", rare_levels),
        categorical("smoke", {"no", "yes"}),
        Column{}};
    columns[2].name = "age";
    columns[5].name = "w";
    for (std::size_t row = 0; row < n; ++row) {
      const double draw = u(random);
      std::uint32_t region = static_cast<std::uint32_t>(u(random) * 5);
      if (with_island && row >= n / 10 && row < n * 2 / 10 && row % 3 == 0) region = 5;
      if (draw < 0.06) region = kMissingCode;
      std::uint32_t sex = u(random) < 0.5 ? 0 : 1;
      if (u(random) < 0.01) sex = kMissingCode;
      double age = std::floor(20 + u(random) * 45);
      if (u(random) < 0.04) age = kNaN;
      std::uint32_t rare = static_cast<std::uint32_t>(std::pow(u(random), 2.0) * 400);
      if (u(random) < 0.03) rare = kMissingCode;
      if (row % 97 == 5) {  // every key missing
        region = sex = rare = kMissingCode;
        age = kNaN;
      }
      columns[0].codes.push_back(region);
      columns[1].codes.push_back(sex);
      columns[2].numeric.push_back(age);
      columns[3].codes.push_back(rare);
      columns[4].codes.push_back(u(random) < 0.3 ? 1 : 0);
      columns[5].numeric.push_back(0.5 + u(random) * 40.0);
    }
    return columns;
  };
  const std::size_t n = 1500, m = 1300;
  Tables out;
  out.confidential = Table(TableSource{"conf.csv", "", "confidential"}, make(n, 5, true));
  out.synthetic = Table(TableSource{"syn.csv", "", "synthetic"}, make(m, 6, false));
  return out;
}

EvaluationContext test_context() {
  EvaluationContext context;
  context.scenarios = {{{"region", "sex", "age"}, {"smoke"}},
                       {{"rare", "sex"}, {}},
                       {{"age"}, {}},
                       {{"region", "age", "rare", "sex"}, {"smoke"}}};
  return context;
}

// `together` against `expected`: the same statistics and scopes in the same order, details and
// warnings; values and record counts bit for bit, or within `relative` for the statistics named
// in `summed`.
void expect_same(const MetricResult& together, const MetricResult& expected,
                 const std::vector<std::string>& summed = {}, double relative = 0) {
  ASSERT_EQ(together.values.size(), expected.values.size());
  for (std::size_t i = 0; i < expected.values.size(); ++i) {
    const auto& a = together.values[i];
    const auto& b = expected.values[i];
    EXPECT_EQ(a.statistic, b.statistic);
    EXPECT_EQ(a.scope, b.scope);
    const bool is_summed = std::find(summed.begin(), summed.end(), b.statistic) != summed.end();
    EXPECT_TRUE(is_summed ? within(a.value, b.value, relative) : same_bits(a.value, b.value))
        << b.statistic << " " << b.scope << ": " << a.value << " vs " << b.value;
    EXPECT_TRUE(same_bits(a.records, b.records)) << b.statistic << " " << b.scope << " records";
  }
  EXPECT_EQ(together.details.dump(), expected.details.dump());
  EXPECT_EQ(together.warnings, expected.warnings);
}

struct Case {
  const char* metric;
  nlohmann::json params;
  bool weighted = false;
};

class KeyCombinationsTogether : public ::testing::TestWithParam<Case> {};

TEST_P(KeyCombinationsTogether, EqualOneProcessAndTheMergeableForm) {
  const Case& test = GetParam();
  const Tables tables = test_tables();
  EvaluationContext context = test_context();
  if (test.weighted) context.weights = "w";
  const MetricSpec* metric = find_metric(test.metric);
  ASSERT_NE(metric, nullptr);
  ASSERT_TRUE(metric->collective.has_value());
  const Params params = Params::resolve(metric->name, metric->params, test.params, "test");
  const MetricInput whole{tables.confidential, {&tables.synthetic}, nullptr, context, "c", 1};
  ASSERT_TRUE(metric->collective->applies(whole, params));
  const MetricResult single = metric->compute(whole, params);
  ASSERT_FALSE(single.values.empty());
  // Sums of risks (and the weights behind F) add their terms in another order.
  const std::vector<std::string> summed = {"expected_reidentifications", "global_risk",
                                           "max_individual_risk"};
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const auto [together, merged] =
        run_partitioned(*metric, tables.confidential, tables.synthetic, context, params, ranks);
    expect_same(together, single, summed, 1e-12);
    expect_same(together, merged, summed, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Metrics, KeyCombinationsTogether,
    ::testing::Values(Case{"k_anonymity",
                           {{"missing_keys", "wildcard"}, {"k", {"2", "3", "5", "40"}}}},
                      Case{"k_anonymity", {{"missing_keys", "value"}}},
                      Case{"k_anonymity", {{"numeric", "breaks"}, {"breaks", {"30", "45"}}}},
                      Case{"replicated_uniques", nlohmann::json::object()},
                      Case{"replicated_uniques", {{"numeric", "breaks"}, {"breaks", {"30", "45"}}}},
                      Case{"individual_risk", {{"missing_keys", "wildcard"}}},
                      Case{"individual_risk", {{"missing_keys", "value"}}},
                      Case{"individual_risk", {{"missing_keys", "wildcard"}}, true},
                      Case{"individual_risk", {{"missing_keys", "value"}}, true}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return std::string(info.param.metric) + "_" + std::to_string(info.index);
    });

// The class frequencies the owners find together are stats::class_frequencies' for every
// combination, under both rules, with and without weights, whichever path (totals sent to every
// rank, or requests answered by their owners) a pair of masks takes.
TEST(OwnedClassFrequencies, EqualOneProcessForEveryCombination) {
  const Tables tables = test_tables();
  const Table& conf = tables.confidential;
  const std::vector<std::size_t> key_columns = {0, 1, 2, 3};
  const stats::CodingOptions exact;
  const std::vector<double>& weights = conf.column(5).numeric;
  // One process: one pattern per combination, weighted by its records and its weight sum.
  const auto whole = keydisc::count_combinations({&conf}, key_columns, exact, &weights);
  const auto patterns = keydisc::combination_patterns(whole, 0);
  for (auto rule : {stats::MissingKeys::kWildcard, stats::MissingKeys::kValue}) {
    SCOPED_TRACE(rule == stats::MissingKeys::kWildcard ? "wildcard" : "value");
    const auto f = stats::class_frequencies(patterns.patterns, patterns.missing_levels,
                                            &patterns.records, rule)
                       .weighted;
    const auto big_f =
        stats::class_frequencies(patterns.patterns, patterns.missing_levels, &patterns.weight, rule)
            .weighted;
    std::map<keydisc::KeyCombination, std::pair<double, double>> expected;
    std::size_t c = 0;
    for (const auto& [combination, per_table] : whole.counts) {
      expected[combination] = {f[c], big_f[c]};
      ++c;
    }
    for (int ranks : {2, 3, 4}) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const auto at = cuts(conf.rows(), ranks);
      std::vector<std::map<keydisc::KeyCombination, std::pair<double, double>>> found(
          static_cast<std::size_t>(ranks));
      run_thread_group(ranks, [&](Communicator& communicator) {
        const Table part = rows_of(conf, at, communicator.rank());
        const auto owned = sdc::exchange_to_owners(
            keydisc::count_flat_combinations({&part}, key_columns, exact, &part.column(5).numeric),
            key_columns.size(), communicator);
        const auto frequencies = sdc::owned_class_frequencies(owned, 0, true, rule, communicator);
        auto& mine = found[static_cast<std::size_t>(communicator.rank())];
        for (std::size_t i = 0; i < owned.size(); ++i)
          mine[keydisc::KeyCombination(owned.key(i), owned.key(i) + owned.keys)] = {
              frequencies.sample[i], frequencies.weighted[i]};
      });
      std::size_t seen = 0;
      for (const auto& owned : found)
        for (const auto& [combination, value] : owned) {
          ++seen;
          const auto it = expected.find(combination);
          ASSERT_NE(it, expected.end());
          EXPECT_EQ(value.first, it->second.first);
          EXPECT_TRUE(within(value.second, it->second.second, 1e-12))
              << value.second << " vs " << it->second.second;
        }
      EXPECT_EQ(seen, expected.size());  // every combination owned by exactly one rank
    }
  }
}

TEST(OwnedClassFrequencies, WildcardOverMoreThan64KeysIsTheSameErrorOnEveryRank) {
  std::atomic<int> errors{0};
  run_thread_group(3, [&](Communicator& communicator) {
    keydisc::FlatCombinations mine;
    mine.keys = 65;
    mine.tables = 1;
    const keydisc::KeyCombination key(65, 1);
    const std::uint64_t records = 1;
    if (communicator.rank() == 1) mine.push(key.data(), &records, 0.0);
    try {
      sdc::owned_class_frequencies(mine, 0, false, stats::MissingKeys::kWildcard, communicator);
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("at most 64 key columns"), std::string::npos);
      ++errors;
    }
  });
  EXPECT_EQ(errors.load(), 3);
}

TEST(KeyCombinationsTogether, DoNotApplyWhereTheyWouldNeedRows) {
  const Tables tables = test_tables();
  EvaluationContext context = test_context();
  const MetricInput whole{tables.confidential, {&tables.synthetic}, nullptr, context, "c", 1};
  for (const char* name : {"k_anonymity", "replicated_uniques", "individual_risk"}) {
    SCOPED_TRACE(name);
    const MetricSpec* metric = find_metric(name);
    const Params binned = Params::resolve(metric->name, metric->params,
                                          nlohmann::json{{"numeric", "quantile"}}, "test");
    EXPECT_FALSE(metric->collective->applies(whole, binned));
    if (std::string(name) != "replicated_uniques") {
      const Params per_record = Params::resolve(metric->name, metric->params,
                                                nlohmann::json{{"record_level", true}}, "test");
      EXPECT_FALSE(metric->collective->applies(whole, per_record));
    }
  }
  EvaluationContext with_household = context;
  with_household.household = "rare";
  const MetricInput households{
      tables.confidential, {&tables.synthetic}, nullptr, with_household, "c", 1};
  const MetricSpec* risk = find_metric("individual_risk");
  EXPECT_FALSE(risk->collective->applies(
      households, Params::resolve(risk->name, risk->params, nlohmann::json::object(), "test")));
}

}  // namespace
}  // namespace synthaudit
