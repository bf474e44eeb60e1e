#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "stats/correlation.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

// SDMetrics 0.29.1 on SD2011 (ref_sdmetrics_orig_vs_syn.tsv): CorrelationSimilarity (Pearson,
// Spearman) for age:income and ContingencySimilarity for all 21 pairs. SDMetrics reads income as
// a plain number (-8 is a value), so no missing codes here. Printed to 16 digits: 1e-12.
TEST(CorrelationFit, ReproducesSdmetricsOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")});
  const auto r = run_metric("correlation_fit", t, {{"contour_pairs", 0}});
  std::ifstream in(shared_data("sd2011/ref_sdmetrics_orig_vs_syn.tsv"));
  std::string line;
  int contingency = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string metric, scope, value;
    std::getline(fields, metric, '\t');
    std::getline(fields, scope, '\t');
    std::getline(fields, value, '\t');
    const double expected = std::stod(value);
    if (metric == "ContingencySimilarity") {
      EXPECT_NEAR(value_of(r, "contingency_similarity", scope), expected, 1e-12) << scope;
      ++contingency;
    } else if (metric == "CorrelationSimilarity.Pearson") {
      EXPECT_NEAR(value_of(r, "correlation_similarity_pearson", scope), expected, 1e-12);
    } else if (metric == "CorrelationSimilarity.Spearman") {
      EXPECT_NEAR(value_of(r, "correlation_similarity_spearman", scope), expected, 1e-12);
    }
  }
  EXPECT_EQ(contingency, 21);
}

// Seed 001's correlation exercise: synthetic (0.5, 0.75, 0.8) vs confidential (0.35, 0.1, 0.9)
// below the diagonal give MAE = 0.3, RMSE = 0.38944 and a sum of absolute differences of 0.9.
TEST(CorrelationFit, Seed001DifferenceSummaries) {
  const std::vector<double> conf = {1, 0.35, 0.1, 0.35, 1, 0.9, 0.1, 0.9, 1};
  const std::vector<double> syn = {1, 0.5, 0.75, 0.5, 1, 0.8, 0.75, 0.8, 1};
  const auto s = stats::lower_triangle_difference(conf, syn, 3);
  EXPECT_NEAR(s.mae, 0.3, 1e-15);
  EXPECT_NEAR(s.rmse, 0.38944, 5e-6);
  EXPECT_NEAR(s.rmse, std::sqrt(0.455 / 3), 1e-15);
  EXPECT_NEAR(s.sum_abs, 0.9, 1e-15);
  EXPECT_EQ(s.pairs, 3u);
}

// When the engine drops the plot data (plots: none, later replicates, baseline draws) the contour
// grids, a kernel sum over every row per pair, are not computed; every value stays the same.
TEST(CorrelationFit, SkipsContourGridsWhosePlotDataAreDropped) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")});
  const MetricSpec* metric = find_metric("correlation_fit");
  ASSERT_NE(metric, nullptr);
  const Params params = Params::resolve("correlation_fit", metric->params, {}, "test");
  const EvaluationContext context;
  auto run = [&](bool plots) {
    MetricInput input{t.confidential, {&t.synthetic.at(0)}, nullptr, context, "test", 1};
    input.plots = plots;
    return metric->compute(input, params);
  };
  auto contours = [](const MetricResult& r) {
    int n = 0;
    for (const auto& plot : r.details.at("plots")) n += plot.at("kind") == "contour" ? 1 : 0;
    return n;
  };
  const auto kept = run(true);
  const auto dropped = run(false);
  EXPECT_GE(contours(kept), 1);
  EXPECT_EQ(contours(dropped), 0);
  ASSERT_EQ(kept.values.size(), dropped.values.size());
  for (std::size_t i = 0; i < kept.values.size(); ++i) {
    EXPECT_EQ(kept.values[i].statistic, dropped.values[i].statistic);
    EXPECT_EQ(kept.values[i].scope, dropped.values[i].scope);
    if (!std::isnan(kept.values[i].value)) {
      EXPECT_EQ(kept.values[i].value, dropped.values[i].value) << kept.values[i].statistic;
    }
  }
}
