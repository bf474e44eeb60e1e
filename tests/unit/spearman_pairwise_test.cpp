// correlation_matrices computes pairwise-complete Spearman from each column's sorted order
// (spearman_from_orders); it must agree with the direct definition (rank both columns on the
// rows where both are present, then Pearson), including ties and missing values.
#include <gtest/gtest.h>

#include <cmath>

#include "core/random.hpp"
#include "stats/correlation.hpp"

using namespace synthaudit;

TEST(SpearmanPairwise, SortedOrderPathMatchesDirectRanking) {
  Rng rng(11);
  const std::size_t n = 5000;
  std::vector<std::vector<double>> data(4, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const double base = rng.normal();
    data[0][i] = std::round(base * 3);  // many ties
    data[1][i] = base + rng.normal();   // continuous
    data[2][i] =
        rng.bernoulli(0.1) ? std::nan("") : std::round(rng.normal() * 2 + base);  // ties + NA
    data[3][i] = rng.bernoulli(0.3) ? std::nan("") : -base + 0.5 * rng.normal();  // NA
  }
  std::vector<std::span<const double>> columns(data.begin(), data.end());
  const auto m = stats::correlation_matrices(columns, true);
  for (std::size_t a = 0; a < 4; ++a)
    for (std::size_t b = 0; b < a; ++b) {
      const double direct = stats::spearman_pairwise(data[a], data[b]);
      EXPECT_NEAR(m.spearman[a * 4 + b], direct, 1e-12) << a << "," << b;
      EXPECT_EQ(m.spearman[a * 4 + b], m.spearman[b * 4 + a]);
    }
}
