// Joint counts count every row into four interleaved integer tables, and equal-width coding takes
// its edges from the break sources' range and each value's interval by a branch-free count of the
// cuts below it when there are few. Both must give exactly what the plain definitions give.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/threads.hpp"
#include "stats/binning.hpp"
#include "stats/contingency.hpp"

using namespace synthaudit;

namespace {

stats::CodedColumn random_codes(Rng& rng, std::uint32_t levels, std::size_t rows) {
  stats::CodedColumn c;
  c.name = "c" + std::to_string(levels);
  for (std::uint32_t l = 0; l < levels; ++l) c.labels.push_back(std::to_string(l));
  c.codes.assign(1, std::vector<std::uint32_t>(rows));
  // Runs of equal codes (as sorted or clustered files have) and scattered ones.
  std::uint32_t run = 0;
  for (auto& code : c.codes[0]) {
    if (rng.bernoulli(0.3)) run = static_cast<std::uint32_t>(rng.uniform() * levels) % levels;
    code = run;
  }
  return c;
}

std::vector<double> direct_counts(const stats::CodedColumn& a, const stats::CodedColumn* b) {
  std::vector<double> counts(a.levels() * (b ? b->levels() : 1), 0.0);
  for (std::size_t r = 0; r < a.codes[0].size(); ++r)
    counts[a.codes[0][r] + a.levels() * (b ? b->codes[0][r] : 0)] += 1;
  return counts;
}

}  // namespace

// Row counts that are not multiples of four, one and two columns, and a table above the size
// where the integer tables are used.
TEST(ContingencyCounts, JointCountsEqualTheDirectCount) {
  Rng rng(4);
  for (std::size_t rows : {0, 1, 3, 4, 5, 1001, 20003}) {
    const auto small = random_codes(rng, 11, rows);
    const auto other = random_codes(rng, 242, rows);
    const auto wide = random_codes(rng, 300, rows);
    EXPECT_EQ(stats::joint_counts({&small}, 0), direct_counts(small, nullptr)) << rows;
    EXPECT_EQ(stats::joint_counts({&small, &other}, 0), direct_counts(small, &other)) << rows;
    EXPECT_EQ(stats::joint_counts({&other, &wide}, 0), direct_counts(other, &wide)) << rows;
  }
}

// Edges as equal_width_edges on the break source's values without NaN, codes as interval_index;
// with 10 bins (the counted path) and 40 (the binary search), values on the cuts, beyond the
// range, −0.0, and NaN as the missing level.
TEST(ContingencyCounts, EqualWidthCodingAsTheDefinitions) {
  Rng rng(5);
  for (int bins : {1, 10, 40}) {
    Column conf, syn;
    conf.name = syn.name = "x";
    for (int i = 0; i < 3000; ++i) {
      conf.numeric.push_back(rng.bernoulli(0.1) ? std::nan("") : std::round(rng.normal() * 20));
      syn.numeric.push_back(rng.bernoulli(0.1) ? std::nan("") : rng.normal() * 30);
    }
    conf.numeric.push_back(-0.0);
    std::vector<double> source;
    for (double v : conf.numeric)
      if (!std::isnan(v)) source.push_back(v);
    const auto edges = stats::equal_width_edges(source, bins);
    for (double edge : edges) syn.numeric.push_back(edge);  // values exactly on the cuts
    const auto coded = stats::code_column(
        {&conf, &syn},
        {.method = stats::NumericBinning::kEqualWidth, .groups = bins, .break_sources = {0}});
    EXPECT_EQ(coded.breaks, edges) << bins;
    const auto cuts = stats::interior(edges);
    for (std::size_t t = 0; t < 2; ++t) {
      const auto& values = (t == 0 ? conf : syn).numeric;
      for (std::size_t r = 0; r < values.size(); ++r) {
        const std::uint32_t expected =
            std::isnan(values[r])
                ? coded.missing_level
                : stats::interval_index(values[r], cuts, stats::IntervalClosure::kLeft);
        ASSERT_EQ(coded.codes[t][r], expected) << bins << " " << t << " " << r;
      }
    }
  }
}

// Every pair's table as joint_counts gives it, whichever group it was summed out of: columns of
// 2 to 300 levels (groups of two, three and four columns, and pairs too large to share a group),
// pairs in both orders, at one thread and two.
TEST(ContingencyCounts, PairCountsEqualJointCountsOfEachPair) {
  Rng rng(6);
  const std::size_t rows = 5003;
  std::vector<stats::CodedColumn> coded;
  for (std::uint32_t levels : {11u, 3u, 11u, 242u, 2u, 11u, 7u, 300u, 11u, 5u})
    coded.push_back(random_codes(rng, levels, rows));
  std::vector<const stats::CodedColumn*> columns;
  for (const auto& c : coded) columns.push_back(&c);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t a = 0; a < coded.size(); ++a)
    for (std::size_t b = a + 1; b < coded.size(); ++b) pairs.emplace_back(a, b);
  pairs.emplace_back(4, 1);
  pairs.emplace_back(7, 3);
  for (int threads : {1, 2}) {
    const ThreadCountScope scope(threads);
    const auto tables = stats::pair_counts(columns, pairs, 0);
    ASSERT_EQ(tables.size(), pairs.size());
    for (std::size_t p = 0; p < pairs.size(); ++p)
      EXPECT_EQ(tables[p],
                stats::joint_counts({columns[pairs[p].first], columns[pairs[p].second]}, 0))
          << pairs[p].first << "," << pairs[p].second << " at " << threads << " threads";
  }
  // A table over the cell limit fails as joint_counts does.
  EXPECT_THROW(stats::pair_counts(columns, {{3, 7}}, 0, 1000), InputError);
  EXPECT_THROW(stats::joint_counts({columns[3], columns[7]}, 0, 1000), InputError);
}
