// moments_and_covariance, column_summaries, ratio_of_counts and table_utility with survey weights
// against R's survey package (svymean, svyvar, svyquantile(qrule = "hf7"), svytable) on R's
// apistrat and its synthetic counterpart with its own weights (tests/data/survey; golden values by
// tests/golden/survey/make_golden.R, the "general." rows). Relative tolerance 1e-9 (absolute
// floor 1e-9): the weighted sums are the same arithmetic in a different order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "golden_tsv.hpp"
#include "stats/correlation.hpp"
#include "stats/distribution.hpp"
#include "stats/ecdf.hpp"
#include "stats/survey.hpp"
#include "stats/weighted_ecdf.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

const GoldenValues& golden() {
  static const auto g =
      read_golden_tsv(std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/survey/golden.tsv");
  return g;
}

double expected(const std::string& key) { return golden_value(golden(), key); }

void expect_close(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::abs(want))) << what;
}

Tables api_pair() {
  const std::string dir = std::string(SYNTHAUDIT_TEST_DATA) + "/survey/";
  return load_tables(dir + "apistrat.csv", {dir + "apistrat_syn.csv"});
}

EvaluationContext weighted() {
  EvaluationContext context;
  context.weights = "pw";
  return context;
}

EvaluationContext weighted_context_w() {
  EvaluationContext context;
  context.weights = "w";
  return context;
}

const std::vector<std::string> kNumeric = {"api00", "api99", "ell", "meals", "enroll", "acs_k3"};

void expect_weight_column_not_compared(const MetricResult& r) {
  for (const auto& v : r.values) {
    EXPECT_EQ(v.scope.find("pw"), std::string::npos) << v.statistic << " " << v.scope;
  }
}

}  // namespace

TEST(WeightedGeneralMetrics, MomentsAndCovarianceMatchSvymeanAndSvyvar) {
  const auto r = run_metric("moments_and_covariance", api_pair(), {{"plots", false}}, weighted());
  for (const std::string prefix : {"conf", "syn"}) {
    const std::string g = prefix == "conf" ? "general." : "general.syn.";
    for (const auto& v : kNumeric) {
      expect_close(value_of(r, prefix + "_mean", v), expected(g + "svymean." + v), prefix + v);
      expect_close(value_of(r, prefix + "_variance", v), expected(g + "svyvar." + v), prefix + v);
    }
    for (std::size_t i = 0; i < kNumeric.size(); ++i)
      for (std::size_t j = i + 1; j < kNumeric.size(); ++j) {
        const std::string pair = kNumeric[i] + ":" + kNumeric[j];
        expect_close(value_of(r, prefix + "_covariance", pair), expected(g + "svycov." + pair),
                     prefix + " cov " + pair);
        expect_close(value_of(r, prefix + "_correlation", pair), expected(g + "svycor." + pair),
                     prefix + " cor " + pair);
      }
  }
  expect_weight_column_not_compared(r);
}

TEST(WeightedGeneralMetrics, ColumnSummariesMatchSvyquantileAndWeightedShares) {
  const auto r = run_metric("column_summaries", api_pair(), {{"plots", false}}, weighted());
  const char* percentiles[] = {"p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99"};
  const char* probabilities[] = {"0.01", "0.05", "0.1",  "0.25", "0.5",
                                 "0.75", "0.9",  "0.95", "0.99"};
  for (const std::string prefix : {"conf", "syn"}) {
    const std::string g = prefix == "conf" ? "general." : "general.syn.";
    for (const auto& v : kNumeric) {
      expect_close(value_of(r, prefix + "_mean", v), expected(g + "svymean." + v), v);
      expect_close(value_of(r, prefix + "_sd", v), std::sqrt(expected(g + "svyvar." + v)), v);
      expect_close(value_of(r, prefix + "_skewness_g1", v), expected(g + "skewness." + v), v);
      expect_close(value_of(r, prefix + "_excess_kurtosis_g2", v), expected(g + "kurtosis." + v),
                   v);
      expect_close(value_of(r, prefix + "_missing_share", v), expected(g + "missing_share." + v),
                   v);
      expect_close(value_of(r, prefix + "_zero_share", v), expected(g + "zero_share." + v), v);
      for (std::size_t k = 0; k < std::size(percentiles); ++k)
        expect_close(value_of(r, prefix + "_" + percentiles[k], v),
                     expected(g + "svyquantile." + v + "." + probabilities[k]),
                     prefix + " " + v + " " + percentiles[k]);
    }
    for (const std::string level : {"stype=E", "stype=H", "stype=M", "sch_wide=No", "sch_wide=Yes"})
      expect_close(value_of(r, prefix + "_share", level), expected(g + "share." + level), level);
  }
  expect_weight_column_not_compared(r);
}

TEST(WeightedGeneralMetrics, RatioOfCountsUsesWeightedShares) {
  const auto r = run_metric("ratio_of_counts", api_pair(), {}, weighted());
  for (const std::string v : {"stype", "sch_wide", "ell", "acs_k3"})
    expect_close(value_of(r, "ratio_of_counts", v), expected("general.ratio_of_counts." + v), v);
  expect_weight_column_not_compared(r);
}

TEST(WeightedGeneralMetrics, TableUtilityCountsAreSvytableRescaledToTheRows) {
  const auto r = run_metric("table_utility", api_pair(),
                            {{"columns", {"stype", "sch_wide", "pw"}}, {"worst", 100}}, weighted());
  expect_weight_column_not_compared(r);
  const auto& conf_cells = golden().at("general.svytable.stype:sch_wide");
  const auto& syn_cells = golden().at("general.syn.svytable.stype:sch_wide");
  ASSERT_EQ(conf_cells.size(), 6u);
  const std::vector<std::string> stype = {"E", "H", "M"}, sch_wide = {"No", "Yes"};
  bool found = false;
  for (const auto& table : r.details.at("worst_tables")) {
    if (table["table"] != "stype:sch_wide") continue;
    found = true;
    std::size_t matched = 0;
    for (const auto& cell : table["cells"]) {
      const auto a = cell["levels"][0].get<std::string>();
      const auto b = cell["levels"][1].get<std::string>();
      const auto i =
          static_cast<std::size_t>(std::find(stype.begin(), stype.end(), a) - stype.begin()) +
          3 * static_cast<std::size_t>(std::find(sch_wide.begin(), sch_wide.end(), b) -
                                       sch_wide.begin());
      ASSERT_LT(i, 6u) << a << " " << b;
      expect_close(cell["confidential"].get<double>(), conf_cells[i], a + " " + b);
      expect_close(cell["synthetic"].get<double>(), syn_cells[i], a + " " + b);
      ++matched;
    }
    EXPECT_EQ(matched, 6u);
  }
  EXPECT_TRUE(found);
}

// synthetic_weights = none: the synthetic side is the plain sample moments, the confidential side
// stays weighted.
TEST(WeightedGeneralMetrics, UnweightedSyntheticSideIsThePlainSample) {
  const auto tables = api_pair();
  const auto weighted_run =
      run_metric("moments_and_covariance", tables,
                 {{"plots", false}, {"synthetic_weights", "none"}}, weighted());
  const auto plain = run_metric("moments_and_covariance", tables, {{"plots", false}});
  for (const auto& v : kNumeric) {
    EXPECT_DOUBLE_EQ(value_of(weighted_run, "syn_mean", v), value_of(plain, "syn_mean", v)) << v;
    EXPECT_NEAR(value_of(weighted_run, "syn_variance", v), value_of(plain, "syn_variance", v),
                1e-9 * value_of(plain, "syn_variance", v))
        << v;
    expect_close(value_of(weighted_run, "conf_mean", v), expected("general.svymean." + v), v);
  }
}

// synthetic_weights = own with a synthetic weight column that cannot serve as weights: a one-line
// input error naming the column and the row, for every metric that reads the parameter.
TEST(WeightedGeneralMetrics, UnusableOwnSyntheticWeightsAreAnInputError) {
  const auto t = make_tables("g,x,w\na,1,1\nb,2,2\na,3,1\n", {"g,x,w\na,1,1\nb,2,-1\na,3,1\n"});
  for (const std::string metric :
       {"moments_and_covariance", "column_summaries", "ratio_of_counts", "table_utility"}) {
    try {
      run_metric(metric, t, {{"synthetic_weights", "own"}}, weighted_context_w());
      ADD_FAILURE() << metric << " accepted a negative synthetic weight";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("'w'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
    }
  }
  // auto: the same column falls back to unweighted with a warning.
  const auto r = run_metric("moments_and_covariance", t, {}, weighted_context_w());
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_DOUBLE_EQ(value_of(r, "syn_mean", "x"), 2.0);
}

TEST(WeightedGeneralMetrics, TailAgreementUsesSvyquantileAndWeightedShares) {
  const auto r = run_metric("tail_agreement", api_pair(), {}, weighted());
  expect_weight_column_not_compared(r);
  const std::vector<std::pair<std::string, std::string>> tails = {
      {"bottom_1pct", "0.01"}, {"bottom_5pct", "0.05"}, {"top_5pct", "0.95"}, {"top_1pct", "0.99"}};
  for (const auto& v : kNumeric)
    for (const auto& [tail, p] : tails) {
      expect_close(value_of(r, "threshold_" + tail, v),
                   expected("general.svyquantile." + v + "." + p), v + " " + tail);
      for (const std::string side : {"conf", "syn"})
        expect_close(value_of(r, side + "_share_" + tail, v),
                     expected("general.tail." + side + "_share_" + tail + "." + v),
                     side + " " + v + " " + tail);
    }
}

TEST(WeightedGeneralMetrics, GeneralMetricsLeaveTheDesignColumnsOut) {
  EvaluationContext design = weighted();
  design.household = "stype";
  for (const std::string metric :
       {"ks_distance", "wasserstein_distance", "correlation_fit", "coverage_and_validity",
        "moments_and_covariance", "column_summaries", "ratio_of_counts", "table_utility",
        "tail_agreement", "total_variation", "mean_in_confidence_interval"}) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& p : find_metric(metric)->params) {
      if (p.name == "plots") params["plots"] = false;
      if (p.name == "contour_pairs") params["contour_pairs"] = 0;
    }
    const auto r = run_metric(metric, api_pair(), params, design);
    bool compares_data = false;
    for (const auto& v : r.values) {
      EXPECT_EQ(v.scope.find("pw"), std::string::npos) << metric << " " << v.statistic;
      EXPECT_EQ(v.scope.find("stype"), std::string::npos) << metric << " " << v.statistic;
      compares_data = compares_data || v.scope.find("api00") != std::string::npos ||
                      v.scope.find("sch_wide") != std::string::npos;
    }
    EXPECT_TRUE(compares_data) << metric;
    // Without a design the same columns are ordinary data.
    const auto plain = run_metric(metric, api_pair(), params);
    EXPECT_TRUE(std::any_of(plain.values.begin(), plain.values.end(), [](const auto& v) {
      return v.scope.find("pw") != std::string::npos || v.scope.find("stype") != std::string::npos;
    })) << metric;
  }
}

// Golden values by tests/golden/survey/make_weighted_distance_golden.py (scipy, pandas).
std::map<std::string, double> weighted_distance_golden() {
  std::map<std::string, double> want;
  std::ifstream in(std::string(SYNTHAUDIT_TEST_DATA) + "/../golden/survey/weighted_distances.tsv");
  std::string line;
  while (std::getline(in, line)) {
    const auto tab = line.find('\t');
    want[line.substr(0, tab)] = std::stod(line.substr(tab + 1));
  }
  return want;
}

TEST(WeightedGeneralMetrics, KsAndWassersteinUseTheWeightedEcdfs) {
  const auto want = weighted_distance_golden();
  ASSERT_EQ(want.size(), 4 * kNumeric.size() + 2);
  for (const std::string policy : {"own", "none"}) {
    const nlohmann::json params = {{"plots", false}, {"synthetic_weights", policy}};
    const auto ks =
        run_metric("ks_distance", api_pair(),
                   {{"plots", false}, {"pvalue", true}, {"synthetic_weights", policy}}, weighted());
    const auto w1 = run_metric("wasserstein_distance", api_pair(), params, weighted());
    for (const auto& v : kNumeric) {
      expect_close(value_of(ks, "ks_distance", v), want.at(policy + ".ks_distance." + v),
                   policy + " D " + v);
      EXPECT_TRUE(std::isnan(value_of(ks, "ks_pvalue_independent", v))) << v;
      const double w = want.at(policy + ".wasserstein." + v);
      expect_close(value_of(w1, "wasserstein", v), w, policy + " W1 " + v);
      // Scaled by the confidential svyquantile (hf7) interquartile range.
      expect_close(value_of(w1, "wasserstein_iqr_scaled", v),
                   w / (expected("general.svyquantile." + v + ".0.75") -
                        expected("general.svyquantile." + v + ".0.25")),
                   policy + " W1/IQR " + v);
    }
  }
}

TEST(WeightedGeneralMetrics, CorrelationFitPearsonIsSvyvarCorrelation) {
  const auto r = run_metric("correlation_fit", api_pair(), {{"contour_pairs", 0}}, weighted());
  double abs_sum = 0;
  std::size_t pairs = 0;
  for (std::size_t i = 0; i < kNumeric.size(); ++i)
    for (std::size_t j = i + 1; j < kNumeric.size(); ++j) {
      const std::string pair = kNumeric[i] + ":" + kNumeric[j];
      const double conf = expected("general.svycor." + pair);
      const double syn = expected("general.syn.svycor." + pair);
      expect_close(value_of(r, "pearson_confidential", pair), conf, "conf " + pair);
      expect_close(value_of(r, "pearson_synthetic", pair), syn, "syn " + pair);
      expect_close(value_of(r, "correlation_similarity_pearson", pair),
                   1 - std::abs(conf - syn) / 2, "similarity " + pair);
      abs_sum += std::abs(syn - conf);
      ++pairs;
    }
  expect_close(value_of(r, "pearson_mae", "all"), abs_sum / double(pairs), "pearson_mae");
  // synthetic_weights = none: the synthetic side is the plain sample's correlation.
  const auto none = run_metric("correlation_fit", api_pair(),
                               {{"contour_pairs", 0}, {"synthetic_weights", "none"}}, weighted());
  const auto plain = run_metric("correlation_fit", api_pair(), {{"contour_pairs", 0}});
  expect_close(value_of(none, "pearson_synthetic", "api00:api99"),
               value_of(plain, "pearson_synthetic", "api00:api99"), "none");
  expect_close(value_of(none, "pearson_confidential", "api00:api99"),
               expected("general.svycor.api00:api99"), "none conf");
  const auto want = weighted_distance_golden();
  expect_close(value_of(r, "contingency_similarity", "stype:sch_wide"),
               want.at("own.contingency_similarity.stype:sch_wide"), "weighted contingency");
  expect_close(value_of(none, "contingency_similarity", "stype:sch_wide"),
               want.at("none.contingency_similarity.stype:sch_wide"), "none contingency");
}

TEST(WeightedEcdf, IntegerWeightsEqualRepeatedRowsAndZeroTotalIsNaN) {
  const std::vector<double> a = {3, 1, NAN, 2, 2}, wa = {2, 1, 5, 3, 0};
  const std::vector<double> b = {2.5, 1, 4}, wb = {1, 3, 2};
  // The same samples with each row repeated its weight's times, sorted, missing dropped.
  const std::vector<double> a_rows = {1, 2, 2, 2, 3, 3}, b_rows = {1, 1, 1, 2.5, 4, 4};
  const auto wsa = stats::weighted_sorted(a, wa), wsb = stats::weighted_sorted(b, wb);
  EXPECT_NEAR(stats::weighted_ks_distance(wsa, wsb), stats::ks_distance_sorted(a_rows, b_rows),
              1e-15);
  EXPECT_NEAR(stats::weighted_wasserstein1(wsa, wsb), stats::wasserstein1_sorted(a_rows, b_rows),
              1e-15);
  const auto zero = stats::weighted_sorted(b, std::vector<double>{0, 0, 0});
  EXPECT_TRUE(std::isnan(stats::weighted_ks_distance(wsa, zero)));
  EXPECT_TRUE(std::isnan(stats::weighted_wasserstein1(zero, wsa)));
}

// Golden values by tests/golden/survey/make_weighted_correlation_golden.py (numpy, scipy, pandas).
TEST(WeightedGeneralMetrics, CorrelationFitSpearmanAndCramersVAreDesignWeighted) {
  std::map<std::string, double> want;
  std::ifstream in(std::string(SYNTHAUDIT_TEST_DATA) +
                   "/../golden/survey/weighted_correlations.tsv");
  std::string line;
  while (std::getline(in, line)) {
    const auto tab = line.find('\t');
    want[line.substr(0, tab)] = std::stod(line.substr(tab + 1));
  }
  ASSERT_EQ(want.size(), 3 * (kNumeric.size() * (kNumeric.size() - 1) / 2 + 1));
  const auto plain = run_metric("correlation_fit", api_pair(), {{"contour_pairs", 0}});
  for (const std::string policy : {"own", "none"}) {
    const auto r = run_metric("correlation_fit", api_pair(),
                              {{"contour_pairs", 0}, {"synthetic_weights", policy}}, weighted());
    double abs_sum = 0;
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < kNumeric.size(); ++i)
      for (std::size_t j = i + 1; j < kNumeric.size(); ++j) {
        const std::string pair = kNumeric[i] + ":" + kNumeric[j];
        const double conf = want.at("conf.spearman." + pair);
        const double syn = want.at(policy + ".spearman." + pair);
        expect_close(value_of(r, "spearman_confidential", pair), conf, policy + " conf " + pair);
        expect_close(value_of(r, "spearman_synthetic", pair), syn, policy + " syn " + pair);
        abs_sum += std::abs(syn - conf);
        ++pairs;
        if (policy == "none")  // the unweighted side is the plain Spearman correlation
          expect_close(value_of(plain, "spearman_synthetic", pair), syn, "plain " + pair);
      }
    expect_close(value_of(r, "spearman_mae", "all"), abs_sum / double(pairs), policy + " mae");
    const std::string pair = "stype:sch_wide";
    const double v_conf = want.at("conf.cramers_v." + pair);
    const double v_syn = want.at(policy + ".cramers_v." + pair);
    expect_close(value_of(r, "cramers_v_confidential", pair), v_conf, policy + " V conf");
    expect_close(value_of(r, "cramers_v_synthetic", pair), v_syn, policy + " V syn");
    expect_close(value_of(r, "cramers_v_mae", "all"), std::abs(v_syn - v_conf), policy + " V mae");
    if (policy == "none")
      expect_close(value_of(plain, "cramers_v_synthetic", pair), v_syn, "plain V");
  }
  // Weighting changes the confidential values (so the test above could fail on unweighted code).
  EXPECT_GT(std::abs(value_of(plain, "spearman_confidential", "api00:enroll") -
                     want.at("conf.spearman.api00:enroll")),
            1e-3);
  EXPECT_GT(std::abs(value_of(plain, "cramers_v_confidential", "stype:sch_wide") -
                     want.at("conf.cramers_v.stype:sch_wide")),
            1e-3);
}

TEST(WeightedSpearman, IntegerWeightsEqualRepeatedRowsAndScaleDoesNotMatter) {
  const std::vector<double> x = {3, 1, NAN, 2, 2, 5, 1}, y = {0.5, 2, 1, NAN, 3, 3, 1};
  const std::vector<double> w = {2, 1, 4, 3, 1, 3, 2};
  // Pairwise-complete rows (0, 1, 4, 5, 6) each repeated its weight's times.
  std::vector<double> xr, yr;
  for (std::size_t i : {0, 1, 4, 5, 6})
    for (int k = 0; k < static_cast<int>(w[i]); ++k) {
      xr.push_back(x[i]);
      yr.push_back(y[i]);
    }
  const double repeated = stats::spearman_pairwise(xr, yr);
  EXPECT_NEAR(stats::survey_spearman(x, y, w), repeated, 1e-14);
  std::vector<double> scaled = w;
  for (auto& v : scaled) v *= 0.37;
  EXPECT_NEAR(stats::survey_spearman(x, y, scaled), repeated, 1e-14);
  // Mid-ranks: weight below plus half the tied weight; NaN where a value or the mask is missing.
  const auto ranks = stats::weighted_mid_ranks(x, w, y);
  EXPECT_DOUBLE_EQ(ranks[1], 1.5);  // ties with row 6: tied weight 3
  EXPECT_DOUBLE_EQ(ranks[6], 1.5);
  EXPECT_DOUBLE_EQ(ranks[4], 3.5);  // weight 3 below, own weight 1
  EXPECT_DOUBLE_EQ(ranks[0], 5.0);  // 4 below, own 2
  EXPECT_DOUBLE_EQ(ranks[5], 7.5);
  EXPECT_TRUE(std::isnan(ranks[2]) && std::isnan(ranks[3]));
  const std::vector<double> zero(x.size(), 0.0);
  EXPECT_TRUE(std::isnan(stats::survey_spearman(x, y, zero)));
}
