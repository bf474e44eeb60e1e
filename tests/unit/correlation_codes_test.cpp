// correlation_matrices ranks each column once by its distinct values and derives every pair's
// pairwise-complete mid-ranks from the counts of those codes. Checked against scipy (golden file
// from tests/golden/tables_and_correlation/make_spearman_golden.py), against the direct
// definition (spearman_pairwise: rank both columns on the common rows, then Pearson), and for
// independence from the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/random.hpp"
#include "core/threads.hpp"
#include "stats/correlation.hpp"

using namespace synthaudit;

namespace {

std::string golden(const std::string& file) {
  const std::string here = __FILE__;
  return here.substr(0, here.rfind('/')) + "/../golden/tables_and_correlation/" + file;
}

struct Columns {
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;
};

Columns read_columns() {
  std::ifstream in(golden("spearman_columns.csv"));
  EXPECT_TRUE(in.good());
  Columns c;
  std::string line, field;
  std::getline(in, line);
  for (std::istringstream header(line); std::getline(header, field, ',');) c.names.push_back(field);
  c.values.resize(c.names.size());
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (std::size_t i = 0; i < c.names.size() && std::getline(row, field, ','); ++i)
      c.values[i].push_back(field == "NA" ? std::nan("") : std::stod(field));
  }
  return c;
}

std::vector<std::span<const double>> spans(const std::vector<std::vector<double>>& values) {
  return {values.begin(), values.end()};
}

// Both NaN, or within `tolerance` relative (absolute below 1).
void expect_same(double got, double expected, double tolerance, const std::string& what) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(got)) << what << " = " << got;
    return;
  }
  EXPECT_NEAR(got, expected, tolerance * std::max(1.0, std::abs(expected))) << what;
}

}  // namespace

// scipy.stats.spearmanr and pearsonr on the rows where both are present, 1e-12.
TEST(CorrelationCodes, MatchesScipyOnTiesMissingAndSignedZeros) {
  const auto c = read_columns();
  ASSERT_EQ(c.names.size(), 7u);
  ASSERT_EQ(c.values[0].size(), 3000u);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < c.names.size(); ++i) index[c.names[i]] = i;
  const auto m = stats::correlation_matrices(spans(c.values), true);
  const std::size_t k = c.names.size();
  std::ifstream in(golden("spearman_golden.tsv"));
  std::string line;
  int pairs = 0;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string a, b, spearman, pearson;
    std::getline(f, a, '\t');
    std::getline(f, b, '\t');
    std::getline(f, spearman, '\t');
    std::getline(f, pearson, '\t');
    const std::size_t i = index.at(a), j = index.at(b);
    expect_same(m.spearman[i * k + j], std::stod(spearman), 1e-12, a + ":" + b + " spearman");
    expect_same(m.pearson[i * k + j], std::stod(pearson), 1e-12, a + ":" + b + " pearson");
    EXPECT_EQ(std::isnan(m.spearman[i * k + j]), std::isnan(m.spearman[j * k + i]));
    ++pairs;
  }
  EXPECT_EQ(pairs, 21);
}

// The same as ranking each pair's common rows from scratch, on data where the coding has more to
// do: tens of thousands of distinct values (the value table grows several times), infinities,
// −0.0 and 0.0 as one value, and pairs with no or one common row.
TEST(CorrelationCodes, MatchesDirectRankingOfEachPair) {
  Rng rng(18);
  const std::size_t n = 40000;
  std::vector<std::vector<double>> data(5, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const double base = rng.normal();
    data[0][i] = base + rng.normal();  // all distinct
    data[1][i] = rng.bernoulli(0.05)   ? std::nan("")
                 : rng.bernoulli(0.01) ? (rng.bernoulli(0.5) ? INFINITY : -INFINITY)
                                       : std::round(base * 4);
    data[2][i] = rng.bernoulli(0.4) ? std::nan("") : (rng.bernoulli(0.5) ? -0.0 : 0.0) + base;
    data[3][i] = rng.bernoulli(0.5) ? -0.0 : (rng.bernoulli(0.5) ? 0.0 : std::round(base));
    data[4][i] = i == 3 ? 1.0 : std::nan("");  // one present row
  }
  const auto m = stats::correlation_matrices(spans(data), true);
  for (std::size_t a = 0; a < 5; ++a)
    for (std::size_t b = 0; b < a; ++b) {
      const std::string pair = std::to_string(a) + "," + std::to_string(b);
      expect_same(m.spearman[a * 5 + b], stats::spearman_pairwise(data[a], data[b]), 1e-12, pair);
      EXPECT_EQ(std::isnan(m.spearman[a * 5 + b]), std::isnan(m.spearman[b * 5 + a]));
    }
  EXPECT_TRUE(std::isnan(m.spearman[4 * 5 + 0]));
}

// Every sum is exact or taken in a fixed order, so one thread and two give the same bits.
TEST(CorrelationCodes, SameForAnyThreadCount) {
  const auto c = read_columns();
  auto on_threads = [&](int threads) {
    const ThreadCountScope scope(threads);
    return stats::correlation_matrices(spans(c.values), true);
  };
  const auto one = on_threads(1);
  const auto two = on_threads(2);
  ASSERT_EQ(one.spearman.size(), two.spearman.size());
  for (std::size_t i = 0; i < one.spearman.size(); ++i) {
    if (std::isnan(one.spearman[i])) {
      EXPECT_TRUE(std::isnan(two.spearman[i]));
      continue;
    }
    EXPECT_EQ(one.spearman[i], two.spearman[i]) << i;
    EXPECT_EQ(one.pearson[i], two.pearson[i]) << i;
  }
}

// Pearson runs several pairs per pass over the rows with the sums of pearson_pairwise in the same
// order: the same bits for every pair, whichever batch it falls in.
TEST(CorrelationCodes, BatchedPearsonIsPearsonPairwise) {
  const auto c = read_columns();
  std::vector<std::vector<double>> many;
  for (int copy = 0; copy < 2; ++copy)
    for (const auto& column : c.values) {
      many.push_back(column);
      if (copy == 1)
        for (double& v : many.back()) v = v * 1.5 - 3;
    }
  const auto m = stats::correlation_matrices(spans(many), false);
  const std::size_t k = many.size();
  EXPECT_TRUE(m.spearman.empty());
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b) {
      if (a == b) {
        EXPECT_EQ(m.pearson[a * k + b], 1.0);
        continue;
      }
      const double direct = stats::pearson_pairwise(many[a], many[b]);
      if (std::isnan(direct)) {
        EXPECT_TRUE(std::isnan(m.pearson[a * k + b])) << a << "," << b;
      } else {
        EXPECT_EQ(m.pearson[a * k + b], a > b ? direct : stats::pearson_pairwise(many[b], many[a]))
            << a << "," << b;
      }
    }
}
