// moments_and_covariance computes every sum exactly (stats/exact_sum.hpp), so its result from the
// partial states of any row partition, merged in any order, at any thread count, is the result of
// one pass bit for bit: values, NaN-ness, warnings and details. The data are built to cancel: a
// large common mean, synthetic rows that are the confidential ones reordered or moved by one unit
// in the last place, missing values in different rows of different columns, and survey weights
// (declared and the synthetic data's own, one of them unusable in a late row).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/threads.hpp"
#include "table/row_slice.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string number(double v) {
  if (std::isnan(v)) return "";
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

struct Row {
  double big, small, age, gappy, sparse, w;
};

std::vector<Row> confidential_rows(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> big(1e6, 1e3), small(0, 1);
  std::uniform_int_distribution<int> age(16, 90), weight(1, 6);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Row> rows;
  for (std::size_t i = 0; i < n; ++i) {
    Row r{big(rng),        small(rng) * 1e-3, double(age(rng)),
          small(rng) + 50, small(rng) * 1e8,  weight(rng) * 0.75};
    if (u(rng) < 0.1) r.gappy = NAN;
    if (u(rng) < 0.3) r.sparse = NAN;
    rows.push_back(r);
  }
  return rows;
}

// The confidential rows reordered, and every other numeric value moved by one ulp or not at all.
std::vector<Row> near_copy(std::vector<Row> rows, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::shuffle(rows.begin(), rows.end(), rng);
  for (auto& r : rows)
    for (double* v : {&r.big, &r.small, &r.gappy}) {
      if ((rng() & 1) != 0 && !std::isnan(*v))
        *v = std::nextafter(*v, (rng() & 1) != 0 ? 1e9 : -1e9);
    }
  return rows;
}

std::string csv(const std::vector<Row>& rows) {
  std::string text = "big,small,age,gappy,sparse,w,group\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    text += number(r.big) + "," + number(r.small) + "," + number(r.age) + "," + number(r.gappy) +
            "," + number(r.sparse) + "," + number(r.w) + "," + (i % 3 == 0 ? "a" : "b") + "\n";
  }
  return text;
}

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

void expect_identical(const MetricResult& whole, const MetricResult& merged,
                      const std::string& where) {
  ASSERT_EQ(whole.values.size(), merged.values.size()) << where;
  for (std::size_t i = 0; i < whole.values.size(); ++i) {
    const auto& a = whole.values[i];
    const auto& b = merged.values[i];
    EXPECT_EQ(a.statistic, b.statistic) << where;
    EXPECT_EQ(a.scope, b.scope) << where;
    EXPECT_TRUE(same(a.value, b.value)) << where << ": " << a.statistic << " [" << a.scope << "] "
                                        << std::hexfloat << a.value << " vs " << b.value;
  }
  EXPECT_EQ(whole.warnings, merged.warnings) << where;
  EXPECT_EQ(whole.details.dump(), merged.details.dump()) << where;
}

struct Setting {
  std::string name;
  Tables tables;
  EvaluationContext context;
  nlohmann::json params;
};

std::vector<Setting> settings(std::size_t rows) {
  const auto conf = confidential_rows(rows, 1);
  auto copy = near_copy(conf, 2);
  auto unusable = copy;
  unusable[rows - 3].w = NAN;  // the synthetic weights fall back to none, with a warning
  EvaluationContext plain;
  EvaluationContext weighted;
  weighted.weights = "w";
  const auto tables = make_tables(csv(conf), {csv(copy), csv(unusable)});
  const nlohmann::json no_plots = {{"plots", false}};
  return {{"unweighted", tables, plain, no_plots},
          {"weighted", tables, weighted, no_plots},
          {"weighted, synthetic weights none",
           tables,
           weighted,
           {{"plots", true}, {"synthetic_weights", "none"}}}};
}

// The rows [0, n) cut at `parts` − 1 random points (empty ranges allowed).
std::vector<std::size_t> random_cuts(std::size_t n, std::size_t parts, std::mt19937_64& rng) {
  std::vector<std::size_t> cuts{0, n};
  for (std::size_t p = 1; p < parts; ++p) cuts.push_back(rng() % (n + 1));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

void check_partitions(std::size_t rows, int partitions_per_count) {
  const MetricSpec* metric = find_metric("moments_and_covariance");
  ASSERT_NE(metric, nullptr);
  ASSERT_TRUE(metric->mergeable.has_value());
  std::mt19937_64 rng(rows);
  for (const Setting& s : settings(rows)) {
    const Params params = Params::resolve(metric->name, metric->params, s.params, "test");
    for (std::size_t replicate : {0, 1}) {
      const Table& syn = s.tables.synthetic.at(replicate);
      const std::vector<const Table*> syn_list{&syn};
      const MetricInput whole_input{s.tables.confidential, syn_list, nullptr, s.context, "test", 1};
      MetricResult whole;
      {
        const ThreadCountScope one_thread(1);
        whole = metric->compute(whole_input, params);
      }
      for (std::size_t parts = 1; parts <= 4; ++parts) {
        for (int trial = 0; trial < partitions_per_count; ++trial) {
          const auto conf_cuts = random_cuts(s.tables.confidential.rows(), parts, rng);
          const auto syn_cuts = random_cuts(syn.rows(), parts, rng);
          std::vector<Table> conf_parts, syn_parts;
          for (std::size_t p = 0; p < parts; ++p) {
            conf_parts.push_back(slice_rows(s.tables.confidential, conf_cuts[p], conf_cuts[p + 1]));
            syn_parts.push_back(slice_rows(syn, syn_cuts[p], syn_cuts[p + 1]));
          }
          std::vector<std::vector<const Table*>> syn_pointers(parts);
          std::vector<std::string> states;
          const ThreadCountScope threads(1 + trial % 4);
          for (std::size_t p = 0; p < parts; ++p) {
            syn_pointers[p] = {&syn_parts[p]};
            const MetricInput input{conf_parts[p], syn_pointers[p], nullptr, s.context, "test", 1};
            states.push_back(metric->mergeable->partial_state(input, params));
          }
          // Exact sums merge in any order (a partitioned run merges in rank order).
          if (trial % 2 == 1) std::shuffle(states.begin(), states.end(), rng);
          const MetricResult merged = metric->mergeable->finalize(states, whole_input, params);
          expect_identical(whole, merged,
                           s.name + ", replicate " + std::to_string(replicate) + ", P = " +
                               std::to_string(parts) + ", trial " + std::to_string(trial));
        }
      }
    }
  }
}

}  // namespace

TEST(MomentsExactMerge, AnyPartitionGivesTheSinglePassBitForBit) { check_partitions(1500, 3); }

// Above 10,000 rows the pairs run on several threads.
TEST(MomentsExactMerge, AnyPartitionAndThreadCountOnALargerTable) { check_partitions(12000, 1); }

// The synthetic data are the confidential rows in another order: every difference is exactly 0,
// however the rows are ordered or split (a rounded sum leaves the last digits of its order).
TEST(MomentsExactMerge, ReorderedCopyHasExactlyZeroDifferences) {
  const auto conf = confidential_rows(3000, 7);
  auto shuffled = conf;
  std::mt19937_64 rng(8);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const auto tables = make_tables(csv(conf), {csv(shuffled)});
  EvaluationContext weighted;
  weighted.weights = "w";
  for (const auto& context : {EvaluationContext{}, weighted}) {
    const auto r = run_metric("moments_and_covariance", tables, {{"plots", false}}, context);
    std::size_t diffs = 0;
    for (const auto& v : r.values) {
      if (!v.statistic.starts_with("diff_") && v.statistic != "relative_covariance_difference" &&
          v.statistic.find("abs_correlation_difference") == std::string::npos)
        continue;
      ++diffs;
      EXPECT_TRUE(same(v.value, 0.0)) << v.statistic << " [" << v.scope << "] " << v.value;
    }
    EXPECT_GE(diffs, 20u);
  }
}
