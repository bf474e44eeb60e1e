#include <gtest/gtest.h>

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
