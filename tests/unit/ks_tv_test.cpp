#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "core/text.hpp"
#include "stats/ecdf.hpp"
#include "stats/summary.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

// SDMetrics 0.29.1 KSComplement and TVComplement on SD2011 (orig vs syn), from
// ../shared/data/sd2011/ref_sdmetrics_orig_vs_syn.tsv. SDMetrics reads income as a plain number
// (no -8 missing code), as we do here without missing_codes. Printed to 16 digits: 1e-12.
TEST(KsDistance, ReproducesSdmetricsOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")});
  const auto ks = run_metric("ks_distance", t);
  EXPECT_NEAR(value_of(ks, "ks_complement", "age"), 0.9858, 1e-12);
  EXPECT_NEAR(value_of(ks, "ks_complement", "income"), 0.9867966536796197, 1e-12);
  // SDMetrics drops missing values before taking shares.
  const auto tv = run_metric("total_variation", t, {{"missing", "exclude"}});
  EXPECT_NEAR(value_of(tv, "tv_complement", "sex"), 0.997, 1e-12);
  EXPECT_NEAR(value_of(tv, "tv_complement", "edu"), 0.9903662280931529, 1e-12);
  EXPECT_NEAR(value_of(tv, "tv_complement", "marital"), 0.9960857055715907, 1e-12);
  EXPECT_NEAR(value_of(tv, "tv_complement", "ls"), 0.9779378444374317, 1e-12);
  EXPECT_NEAR(value_of(tv, "tv_complement", "smoke"), 0.9948765106456895, 1e-12);
}

// Hand-checked against scipy.stats.ks_2samp([1,2,2,3], [2,3,3,4,5]).statistic = 0.55.
TEST(KsDistance, TiesStepTogether) {
  const auto t = make_tables("x\n1\n2\n2\n3\n", {"x\n2\n3\n3\n4\n5\n"});
  EXPECT_NEAR(value_of(run_metric("ks_distance", t), "ks_distance", "x"), 0.55, 1e-15);
}

// The radix sort behind every sorted marginal against a stable comparison sort, bit for bit (the
// sign of each zero included), above and below its size threshold: integers (few digits vary),
// continuous values, negatives, infinities, -0 beside 0 and missing values. Below the threshold
// (a comparison sort, unstable between -0 and 0) the values are compared as numbers.
TEST(SortedValues, EqualAStableComparisonSortBitForBit) {
  std::mt19937_64 rng(24);
  std::normal_distribution<double> normal(0.0, 1e3);
  for (std::size_t n : {100u, 2100u, 2300u, 5000u, 200000u}) {
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<double> x(n);
      for (auto& v : x) {
        const auto pick = rng() % 20;
        v = pick == 0   ? std::nan("")
            : pick == 1 ? -0.0
            : pick == 2 ? 0.0
            : pick == 3 ? (rng() % 2 ? 1.0 : -1.0) * std::numeric_limits<double>::infinity()
            : kind == 0 ? static_cast<double>(static_cast<int>(rng() % 90) - 10)
            : kind == 1
                ? normal(rng)
                : std::ldexp(static_cast<double>(rng() % 1000), -static_cast<int>(rng() % 80));
      }
      std::vector<double> want;
      for (double v : x)
        if (!std::isnan(v)) want.push_back(v);
      std::stable_sort(want.begin(), want.end());
      const auto got = stats::sorted_values(x);
      ASSERT_EQ(got.size(), want.size()) << n << " " << kind;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (got.size() < 2048)
          ASSERT_EQ(got[i], want[i]) << "n " << n << " kind " << kind << " at " << i;
        else
          ASSERT_EQ(std::bit_cast<std::uint64_t>(got[i]), std::bit_cast<std::uint64_t>(want[i]))
              << "n " << n << " kind " << kind << " at " << i;
      }
    }
  }
}

// --- KS from value counts (columns of few distinct values) ---------------------------------------

namespace {

std::vector<double> with_missing(const nlohmann::json& values) {
  std::vector<double> out;
  for (const auto& v : values) out.push_back(v.is_null() ? std::nan("") : v.get<double>());
  return out;
}

}  // namespace

// scipy.stats.ks_2samp on samples of few distinct values (tests/golden/ks_counted/make_golden.py),
// at 1e-12; and bit for bit the D of the sorting path.
TEST(KsCounted, MatchesScipyAndTheSortedSamples) {
  std::ifstream in(std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/ks_counted/golden.json");
  ASSERT_TRUE(in.good());
  const auto golden = nlohmann::json::parse(in);
  ASSERT_EQ(golden["cases"].size(), 4u);
  for (const auto& c : golden["cases"]) {
    const auto a = with_missing(c["a"]), b = with_missing(c["b"]);
    const auto a_counts = stats::value_counts_if_few(a, 4096);
    const auto b_counts = stats::value_counts_if_few(b, 4096);
    ASSERT_TRUE(a_counts && b_counts) << c["name"];
    const double d = stats::ks_distance_counted(*a_counts, *b_counts);
    EXPECT_NEAR(d, c["d"].get<double>(), 1e-12) << c["name"];
    const double sorted =
        stats::ks_distance_sorted(stats::sorted_values(a), stats::sorted_values(b));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(d), std::bit_cast<std::uint64_t>(sorted)) << c["name"];
  }
}

TEST(KsCounted, CountsValuesAndGivesUpPastTheLimit) {
  const std::vector<double> x = {2, -0.0, std::nan(""), 0, 2, 1e300, 2};
  const auto counts = stats::value_counts_if_few(x, 3);
  ASSERT_TRUE(counts);
  const std::vector<std::pair<double, std::size_t>> want = {{0.0, 2}, {2.0, 3}, {1e300, 1}};
  EXPECT_EQ(*counts, want);
  EXPECT_FALSE(stats::value_counts_if_few(x, 2));
  std::vector<double> many(10000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<double>(i % 5000);
  EXPECT_FALSE(stats::value_counts_if_few(many, 4096));
  EXPECT_EQ(stats::value_counts_if_few(many, 5000)->size(), 5000u);
  EXPECT_TRUE(stats::value_counts_if_few(std::vector<double>{}, 4)->empty());
  // An empty (or all-missing) sample: D is NaN, as for sorted samples.
  EXPECT_TRUE(std::isnan(stats::ks_distance_counted({}, *counts)));
}

// The metric without plot data (each column counted when it has at most 16,384 distinct values in
// both datasets, else sorted) and with it (every column sorted): the same numbers, bit for bit,
// with and without a column of more values than that.
TEST(KsCounted, MetricGivesTheSameNumbersAsTheSortingPath) {
  std::mt19937_64 rng(5);
  for (bool many_values : {false, true}) {
    std::string conf = "age,score,y\n", syn = "age,score,y\n";
    const int rows = many_values ? 40000 : 6000;
    for (int r = 0; r < rows; ++r) {
      auto line = [&] {
        const double y = many_values ? static_cast<double>(rng() % 1000000000) / 7.0
                                     : static_cast<double>(rng() % 9);
        return std::to_string(18 + rng() % 70) + "," +
               (rng() % 20 == 0 ? std::string() : std::to_string(rng() % 11)) + "," +
               format_number(y) + "\n";
      };
      conf += line();
      if (r < rows * 5 / 6) syn += line();
    }
    const auto t = make_tables(conf, {syn});
    const auto counted = run_metric("ks_distance", t, {{"plots", false}, {"pvalue", true}});
    const auto sorted = run_metric("ks_distance", t, {{"plots", true}, {"pvalue", true}});
    ASSERT_EQ(counted.values.size(), sorted.values.size());
    for (std::size_t i = 0; i < sorted.values.size(); ++i) {
      EXPECT_EQ(counted.values[i].statistic, sorted.values[i].statistic);
      EXPECT_EQ(counted.values[i].scope, sorted.values[i].scope);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(counted.values[i].value),
                std::bit_cast<std::uint64_t>(sorted.values[i].value))
          << counted.values[i].statistic << " " << counted.values[i].scope;
    }
    EXPECT_EQ(counted.warnings, sorted.warnings);
    EXPECT_FALSE(counted.details.contains("plots"));
  }
}
