#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "sim/simulator.hpp"
#include "stats/roc.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string golden(const std::string& name) {
  const std::string here = __FILE__;  // tests/unit/<this file>
  return here.substr(0, here.rfind('/')) + "/../golden/distance/" + name;
}

std::map<std::string, double> read_expected(const std::string& name) {
  std::ifstream in(golden(name));
  std::map<std::string, double> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    out[line.substr(0, comma)] = std::stod(line.substr(comma + 1));
  }
  EXPECT_FALSE(out.empty()) << name;
  return out;
}

}  // namespace

// SDMetrics 0.29.1 DCRBaselineProtection on SD2011 (orig as real, syn as synthetic), from
// ../shared/data/sd2011/ref_sdmetrics_orig_vs_syn.tsv: the median DCR is deterministic and must
// match to print precision; the random-table baseline is random, so only its plausibility is
// checked (SDMetrics' draw gave 0.1552 and a score of 0.01136). SDMetrics reads income as a
// plain number (no -8 missing code), as here.
TEST(DistanceToClosestRecord, ReproducesSdmetricsDcrBaselineProtectionOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")});
  EvaluationContext ctx;
  ctx.seed = 7;
  const auto r = run_metric("distance_to_closest_record", t, {}, ctx);
  EXPECT_NEAR(value_of(r, "sdmetrics_median_dcr_synthetic", "all"), 0.001763668430335097, 1e-17);
  EXPECT_NEAR(value_of(r, "syn_to_conf_dcr_median", "all"), 0.001763668430335097, 1e-17);
  const double random = value_of(r, "sdmetrics_median_dcr_random_baseline", "all");
  EXPECT_GT(random, 0.13);
  EXPECT_LT(random, 0.18);
  const double score = value_of(r, "sdmetrics_dcr_baseline_protection", "all");
  EXPECT_NEAR(score, 0.001763668430335097 / random, 1e-15);
  EXPECT_NEAR(score, 0.011363636363636364, 0.0015);
  // Exact copies: share at distance 0 from a plain count of identical rows is checked in the
  // engine tests; here it must agree with NewRowSynthesis at tolerance 0 (identical rows).
  const auto nrs = run_metric("new_row_synthesis", t, {{"numerical_match_tolerance", 0.0}});
  EXPECT_NEAR(value_of(r, "syn_to_conf_exact_copy_share", "all"),
              value_of(nrs, "matched_row_share", "all"), 1e-15);
  EXPECT_FALSE(r.details["plots"].empty());
}

// SDMetrics 0.29.1 NewRowSynthesis on SD2011: 0.6926 (ref_sdmetrics_orig_vs_syn.tsv).
TEST(NewRowSynthesis, ReproducesSdmetricsOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")});
  EXPECT_NEAR(value_of(run_metric("new_row_synthesis", t), "new_row_share", "all"), 0.6926, 1e-12);
}

TEST(NewRowSynthesis, ToleranceIsRelativeToTheSyntheticValue) {
  const auto t =
      make_tables("x,c\n100,a\n-8,b\nNA,a\n", {"x,c\n100.9,a\n101.1,a\n-8.05,b\nNA,a\n5,a\n"});
  const auto r = run_metric("new_row_synthesis", t);
  // 100.9 (|Δ| 0.9 <= 1.009) and -8.05 (0.05 <= 0.0805) and NA match; 101.1 and 5 do not.
  EXPECT_NEAR(value_of(r, "new_row_share", "all"), 2.0 / 5.0, 1e-15);
}

// Transcriptions of SDMetrics' DCROverfittingProtection and syntheval's disc_mit in
// tests/golden/distance/make_golden.py, on SD2011 train (confidential), holdout and train_syn.
TEST(DistanceDisclosure, Sd2011TrainHoldoutMatchesTranscriptions) {
  const auto t = load_tables(shared_data("sd2011/train.csv"), {shared_data("sd2011/train_syn.csv")},
                             shared_data("sd2011/holdout.csv"));
  const auto e = read_expected("sd2011_expected.csv");
  const auto dcr = run_metric("distance_to_closest_record", t);
  EXPECT_NEAR(value_of(dcr, "sdmetrics_closer_to_training_share", "all"),
              e.at("overfitting_closer_to_training"), 1e-15);
  EXPECT_NEAR(value_of(dcr, "sdmetrics_dcr_overfitting_protection", "all"),
              e.at("overfitting_score"), 1e-14);
  EXPECT_NEAR(value_of(dcr, "syn_to_conf_dcr_median", "all"), e.at("train_syn_to_train_median_dcr"),
              1e-15);
  const auto mia = run_metric("distance_membership_inference", t);
  EXPECT_NEAR(value_of(mia, "threshold", "all"), e.at("mia_threshold"), 1e-15);
  for (const char* s : {"tp", "fp", "tn", "fn"})
    EXPECT_EQ(value_of(mia, s, "all"), e.at(std::string("mia_") + s)) << s;
  EXPECT_NEAR(value_of(mia, "precision", "all"), e.at("mia_precision"), 1e-15);
  EXPECT_NEAR(value_of(mia, "recall", "all"), e.at("mia_recall"), 1e-15);
  EXPECT_NEAR(value_of(mia, "auc", "all"), e.at("mia_auc"), 1e-12);
}

// disc_mit transcription with sklearn's roc_auc_score on mixed data with missing values.
TEST(DistanceMembershipInference, MatchesDiscMitTranscription) {
  const auto t = load_tables(golden("mia_train.csv"), {golden("mia_synthetic.csv")},
                             golden("mia_holdout.csv"));
  const auto e = read_expected("mia_expected.csv");
  const auto r = run_metric("distance_membership_inference", t);
  EXPECT_NEAR(value_of(r, "threshold", "all"), e.at("threshold"), 1e-15);
  for (const char* s : {"tp", "fp", "tn", "fn"}) EXPECT_EQ(value_of(r, s, "all"), e.at(s)) << s;
  EXPECT_NEAR(value_of(r, "precision", "all"), e.at("precision"), 1e-15);
  EXPECT_NEAR(value_of(r, "recall", "all"), e.at("recall"), 1e-15);
  EXPECT_NEAR(value_of(r, "auc", "all"), e.at("auc"), 1e-12);
  EXPECT_EQ(r.details["threshold_sweep"].size(), 21u);
}

TEST(DistanceMembershipInference, AucOfTiesIsOneHalf) {
  const std::vector<double> score = {1, 1, 1, 1};
  const std::vector<std::uint8_t> pos = {1, 0, 1, 0};
  EXPECT_DOUBLE_EQ(stats::roc_auc(score, pos), 0.5);
  const std::vector<double> s2 = {0.9, 0.8, 0.3, 0.1};
  EXPECT_DOUBLE_EQ(stats::roc_auc(s2, pos), 0.75);  // sklearn.metrics.roc_auc_score
}

// sklearn KNeighborsRegressor / KNeighborsClassifier (k = 3, Manhattan on range-scaled keys,
// which equals Gower when the confidential keys lie inside the synthetic range), baseline by
// sklearn's leave-one-out kneighbors().
TEST(KnnAttributeAttack, MatchesSklearn) {
  const auto t = load_tables(golden("attack_confidential.csv"), {golden("attack_synthetic.csv")});
  const auto e = read_expected("attack_expected.csv");
  EvaluationContext ctx;
  ctx.scenarios.push_back({{"k1", "k2", "k3"}, {"y", "cls"}});
  const auto r = run_metric("knn_attribute_attack", t, {}, ctx);
  const std::string y = "keys=k1,k2,k3;target=y", c = "keys=k1,k2,k3;target=cls";
  EXPECT_NEAR(value_of(r, "mse_synthetic", y), e.at("mse_synthetic"), 1e-12);
  EXPECT_NEAR(value_of(r, "mse_confidential", y), e.at("mse_confidential"), 1e-12);
  EXPECT_NEAR(value_of(r, "mean_relative_abs_error_synthetic", y),
              e.at("mean_relative_abs_error_synthetic"), 1e-10);
  EXPECT_NEAR(value_of(r, "mean_relative_abs_error_confidential", y),
              e.at("mean_relative_abs_error_confidential"), 1e-10);
  EXPECT_NEAR(value_of(r, "share_less_accurate_from_synthetic", y),
              e.at("share_less_accurate_from_synthetic_y"), 1e-15);
  EXPECT_NEAR(value_of(r, "accuracy_synthetic", c), e.at("accuracy_synthetic"), 1e-15);
  EXPECT_NEAR(value_of(r, "accuracy_confidential", c), e.at("accuracy_confidential"), 1e-15);
  EXPECT_NEAR(value_of(r, "share_less_accurate_from_synthetic", c),
              e.at("share_less_accurate_from_synthetic_cls"), 1e-15);
  ctx.scenarios = {{{"k1", "nope"}, {"y"}}};
  EXPECT_THROW(run_metric("knn_attribute_attack", t, {}, ctx), InputError);
  ctx.scenarios = {{{"k1", "y"}, {"y"}}};
  EXPECT_THROW(run_metric("knn_attribute_attack", t, {}, ctx), InputError);
}

// Simulator: `leaky` perturbs the confidential records, `ideal` draws new people from the same
// model. Leaky must show many near-zero DCRs and a strong membership attack; ideal must look like
// the holdout.
TEST(DistanceDisclosure, SimulatorLeakyIsRiskyIdealIsNot) {
  const auto dir = synthaudit::testing::private_temp_dir("synthaudit_distance_sim");
  SimulationOptions o;
  o.rows = 1500;
  o.holdout_rows = 1500;
  o.replicates = 1;
  o.seed = 5;
  o.out_dir = dir.string();
  const auto files = simulate(o);
  ReadSettings settings;
  settings.kinds = {{"household_size", ColumnKind::kNumeric},
                    {"hours_worked", ColumnKind::kNumeric}};
  std::map<std::string, std::string> path;
  for (const auto& [name, reps] : files.candidates) path[name] = reps.front();
  const auto leaky = load_tables(files.confidential, {path["leaky"]}, files.holdout, settings);
  const auto ideal = load_tables(files.confidential, {path["ideal"]}, files.holdout, settings);
  const auto dl = run_metric("distance_to_closest_record", leaky);
  const auto di = run_metric("distance_to_closest_record", ideal);
  const auto ml = run_metric("distance_membership_inference", leaky);
  const auto mi = run_metric("distance_membership_inference", ideal);
  EXPECT_LT(value_of(dl, "dcr_median_ratio_syn_vs_holdout", "all"), 0.5);
  EXPECT_NEAR(value_of(di, "dcr_median_ratio_syn_vs_holdout", "all"), 1.0, 0.15);
  EXPECT_GT(value_of(ml, "auc", "all"), 0.8);
  EXPECT_GT(value_of(ml, "precision", "all"), 0.75);
  EXPECT_NEAR(value_of(mi, "auc", "all"), 0.5, 0.05);
  EXPECT_NEAR(value_of(mi, "precision", "all"), 0.5, 0.05);
  std::filesystem::remove_all(dir);
}

// Hand-checked: one numeric column, range 10 from the confidential data.
TEST(DistanceToClosestRecord, BothDirectionsAndNndrByHand) {
  const auto t = make_tables("x\n0\n10\n4\n", {"x\n1\n9\n"});
  const auto r = run_metric("distance_to_closest_record", t, {{"sdmetrics", false}});
  // syn 1: d1 = 0.1 (to 0), d2 = 0.3 (to 4); syn 9: d1 = 0.1 (to 10), d2 = 0.5 (to 4).
  EXPECT_NEAR(value_of(r, "syn_to_conf_dcr_mean", "all"), 0.1, 1e-15);
  EXPECT_NEAR(value_of(r, "syn_to_conf_nndr_mean", "all"), (1.0 / 3.0 + 0.2) / 2.0, 1e-15);
  // conf 0 -> 1: 0.1; conf 10 -> 9: 0.1; conf 4 -> 1: 0.3.
  EXPECT_NEAR(value_of(r, "conf_to_syn_dcr_mean", "all"), 0.5 / 3.0, 1e-15);
  EXPECT_NEAR(value_of(r, "conf_to_syn_dcr_median", "all"), 0.1, 1e-15);
  EXPECT_NEAR(value_of(r, "conf_to_syn_dcr_max", "all"), 0.3, 1e-15);
  EXPECT_EQ(value_of(r, "syn_to_conf_exact_copy_share", "all"), 0.0);
}

TEST(DistanceDisclosure, NeedsAndEdgeCases) {
  EXPECT_TRUE(find_metric("distance_membership_inference")->needs_holdout);
  EXPECT_TRUE(find_metric("knn_attribute_attack")->needs_scenarios);
  // One-row tables and an all-missing column do not crash.
  const auto t =
      make_tables("x,y,c\n1,NA,a\n", {"x,y,c\n2,NA,b\n"}, std::string("x,y,c\n1,NA,a\n"));
  const auto r = run_metric("distance_to_closest_record", t);
  EXPECT_DOUBLE_EQ(value_of(r, "syn_to_conf_dcr_median", "all"), 2.0 / 3.0);  // (1 + 0 + 1) / 3
  const auto m = run_metric("distance_membership_inference", t);
  EXPECT_EQ(value_of(m, "tp", "all") + value_of(m, "fn", "all"), 1.0);
  EXPECT_THROW(run_metric("distance_to_closest_record", t, {{"columns", "nope"}}), InputError);
}
