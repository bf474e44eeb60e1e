// The random table of SDMetrics' DCRBaselineProtection: its size cap and the order-statistic
// interval that reports its Monte Carlo precision.
#include <gtest/gtest.h>

#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stats/order_statistic_interval.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::vector<std::vector<std::string>> read_golden_csv(const std::string& name) {
  const std::string here = __FILE__;  // tests/unit/<this file>
  std::ifstream in(here.substr(0, here.rfind('/')) + "/../golden/distance/" + name);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream fields_in(line);
    std::string field;
    while (std::getline(fields_in, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    rows.push_back(fields);
  }
  EXPECT_FALSE(rows.empty()) << name;
  return rows;
}

std::string repeated_rows(const std::string& header, const std::string& row, int count) {
  std::string csv = header + "\n";
  for (int i = 0; i < count; ++i) csv += row + "\n";
  return csv;
}

}  // namespace

// Golden values: tests/golden/distance/make_median_interval_golden.py (scipy 1.10.1
// binom.ppf), exact integers.
TEST(BinomialQuantile, MatchesScipyBinomPpf) {
  for (const auto& row : read_golden_csv("binomial_quantiles.csv")) {
    const auto n = std::stoull(row.at(0));
    const double p = std::stod(row.at(1)), q = std::stod(row.at(2));
    EXPECT_EQ(stats::binomial_quantile(n, p, q), std::stoull(row.at(3)))
        << "n " << n << " p " << p << " q " << q;
  }
}

TEST(MedianIntervalRanks, MatchScipyBinomialRanksAndCoverage) {
  for (const auto& row : read_golden_csv("median_interval_ranks.csv")) {
    const auto n = std::stoull(row.at(0));
    const auto lower = std::stoull(row.at(1));
    const auto ranks = stats::median_interval_ranks(n, 0.95);
    if (lower == 0) {
      EXPECT_FALSE(ranks.has_value()) << "n " << n;
      continue;
    }
    ASSERT_TRUE(ranks.has_value()) << "n " << n;
    EXPECT_EQ(ranks->lower, lower) << "n " << n;
    EXPECT_EQ(ranks->upper, std::stoull(row.at(2))) << "n " << n;
    // Coverage 1 − 2 P(B <= lower − 1) from boost against scipy's, and never below 95 %.
    const boost::math::binomial_distribution<double> b(static_cast<double>(n), 0.5);
    const double coverage = 1.0 - 2.0 * boost::math::cdf(b, static_cast<double>(lower - 1));
    EXPECT_NEAR(coverage, std::stod(row.at(3)), 1e-12) << "n " << n;
    EXPECT_GE(coverage, 0.95) << "n " << n;
  }
}

// One numeric column with confidential values 0, 0.5 and 1 (not all whole, so the random values
// are uniform reals in [0, 1)): a random record's Gower distance to the closest confidential
// record is uniform on [0, 0.25], median 0.125. Over 400 metric seeds the interval must contain
// it about as often as the ranks' exact coverage at n = 101 random records, neither much less
// (wrong ranks) nor always (the minimum and maximum, say).
TEST(DistanceToClosestRecord, RandomMedianIntervalCoversTheTrueMedian) {
  const auto t = make_tables("x\n0\n0.5\n1\n", {repeated_rows("x", "0.3", 300)});
  const std::size_t random_rows = 101;
  // The exact coverage of the 95 % ranks at n = 101, from scipy (the golden file), so that wrong
  // ranks in the library cannot also move the expectation.
  double coverage = NAN;
  for (const auto& row : read_golden_csv("median_interval_ranks.csv"))
    if (std::stoull(row.at(0)) == random_rows) coverage = std::stod(row.at(3));
  ASSERT_FALSE(std::isnan(coverage));
  const int draws = 400;
  int covered = 0;
  for (int seed = 1; seed <= draws; ++seed) {
    EvaluationContext ctx;
    ctx.seed = static_cast<std::uint64_t>(seed);
    const auto r =
        run_metric("distance_to_closest_record", t, {{"sdmetrics_random_rows", random_rows}}, ctx);
    ASSERT_EQ(r.details["search"]["sdmetrics_random_rows"].get<std::size_t>(), random_rows);
    const double lower = value_of(r, "sdmetrics_median_dcr_random_baseline_ci95_lower", "all");
    const double upper = value_of(r, "sdmetrics_median_dcr_random_baseline_ci95_upper", "all");
    const double median = value_of(r, "sdmetrics_median_dcr_random_baseline", "all");
    ASSERT_LE(lower, median);
    ASSERT_LE(median, upper);
    ASSERT_GE(lower, 0.0);
    ASSERT_LE(upper, 0.25);
    covered += lower <= 0.125 && 0.125 <= upper;
    // The synthetic median (0.2, exact) through min(syn / random, 1).
    const double syn = value_of(r, "sdmetrics_median_dcr_synthetic", "all");
    EXPECT_NEAR(syn, 0.2, 1e-15);
    EXPECT_EQ(value_of(r, "sdmetrics_dcr_baseline_protection_ci95_lower", "all"),
              std::min(syn / upper, 1.0));
    EXPECT_EQ(value_of(r, "sdmetrics_dcr_baseline_protection_ci95_upper", "all"),
              std::min(syn / lower, 1.0));
  }
  // Binomial(400, coverage) sampling: ±4 standard deviations around the exact coverage.
  const double share = static_cast<double>(covered) / draws;
  const double sd = std::sqrt(coverage * (1.0 - coverage) / draws);
  EXPECT_NEAR(share, coverage, 4.0 * sd) << covered << " of " << draws;
  EXPECT_LT(covered, draws);
}

// The cap leaves tables at or below it unchanged: SD2011's 5,000 synthetic records give the same
// numbers, to the bit, with the default cap, with 0 (SDMetrics' own size) and with a cap of
// exactly 5,000; a smaller cap draws fewer random records.
TEST(DistanceToClosestRecord, RandomRowsCapLeavesSmallerTablesUnchanged) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")});
  EvaluationContext ctx;
  ctx.seed = 7;
  const auto by_default = run_metric("distance_to_closest_record", t, {}, ctx);
  EXPECT_EQ(by_default.details["search"]["sdmetrics_random_rows"].get<std::size_t>(), 5000u);
  for (const std::int64_t cap : {0, 5000}) {
    const auto r =
        run_metric("distance_to_closest_record", t, {{"sdmetrics_random_rows", cap}}, ctx);
    ASSERT_EQ(r.values.size(), by_default.values.size());
    for (std::size_t i = 0; i < r.values.size(); ++i) {
      EXPECT_EQ(r.values[i].statistic, by_default.values[i].statistic);
      const double a = r.values[i].value, b = by_default.values[i].value;
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << r.values[i].statistic;
    }
  }
  const auto capped =
      run_metric("distance_to_closest_record", t, {{"sdmetrics_random_rows", 1000}}, ctx);
  EXPECT_EQ(capped.details["search"]["sdmetrics_random_rows"].get<std::size_t>(), 1000u);
  // Fewer random records: a wider interval around a median of the same population.
  const auto width = [](const MetricResult& r) {
    return value_of(r, "sdmetrics_median_dcr_random_baseline_ci95_upper", "all") -
           value_of(r, "sdmetrics_median_dcr_random_baseline_ci95_lower", "all");
  };
  EXPECT_GT(width(capped), width(by_default));
  EXPECT_EQ(value_of(capped, "sdmetrics_median_dcr_synthetic", "all"),
            value_of(by_default, "sdmetrics_median_dcr_synthetic", "all"));
}

TEST(DistanceToClosestRecord, RandomRowsMustNotBeNegative) {
  const auto t = make_tables("x\n0\n0.5\n1\n", {"x\n0.3\n"});
  EXPECT_THROW(run_metric("distance_to_closest_record", t, {{"sdmetrics_random_rows", -1}}),
               InputError);
}

// Too few random records for a 95 % interval (n <= 5): no interval, the score still reported.
TEST(DistanceToClosestRecord, NoRandomMedianIntervalBelowSixRecords) {
  const auto t = make_tables("x\n0\n0.5\n1\n", {repeated_rows("x", "0.3", 5)});
  const auto r = run_metric("distance_to_closest_record", t);
  for (const auto& v : r.values)
    EXPECT_EQ(v.statistic.find("ci95"), std::string::npos) << v.statistic;
  value_of(r, "sdmetrics_dcr_baseline_protection", "all");
}
