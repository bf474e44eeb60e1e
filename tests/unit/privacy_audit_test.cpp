// Membership inference at low false-positive rates and ε-identifiability, against the independent
// Python computations in tests/golden/distance/make_mia_low_fpr_golden.py and
// make_identifiability_golden.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/threads.hpp"
#include "metrics/params.hpp"
#include "stats/membership_audit.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string golden(const std::string& name) {
  const std::string here = __FILE__;  // tests/unit/<this file>
  return here.substr(0, here.rfind('/')) + "/../golden/distance/" + name;
}

std::vector<std::vector<std::string>> read_rows(const std::string& name) {
  std::ifstream in(golden(name));
  EXPECT_TRUE(in.good()) << name;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

struct Scores {
  std::vector<double> distance;
  std::vector<std::uint8_t> member;
};

Scores read_scores(const std::string& name) {
  Scores s;
  for (const auto& row : read_rows(name)) {
    s.distance.push_back(std::stod(row.at(0)));
    s.member.push_back(static_cast<std::uint8_t>(std::stoi(row.at(1))));
  }
  return s;
}

// case -> (delta, confidence, statistic -> value)
struct Expected {
  double delta = 0, confidence = 0;
  std::map<std::string, double> values;
};
std::map<std::string, Expected> read_low_fpr_expected() {
  std::map<std::string, Expected> out;
  for (const auto& row : read_rows("mia_low_fpr_expected.csv")) {
    Expected& e = out[row.at(0)];
    e.delta = std::stod(row.at(1));
    e.confidence = std::stod(row.at(2));
    e.values[row.at(3)] = std::stod(row.at(4));
  }
  return out;
}

const char* const kTprNames[] = {"tpr_at_fpr_0.001", "tpr_at_fpr_0.01", "tpr_at_fpr_0.1"};

stats::MembershipAudit audit_of(const Scores& s, double delta, double confidence) {
  std::vector<double> closeness(s.distance.size());
  for (std::size_t i = 0; i < closeness.size(); ++i) closeness[i] = -s.distance[i];
  stats::MembershipAuditOptions options;
  options.delta = delta;
  options.confidence = confidence;
  return stats::audit_membership(closeness, s.member, options);
}

}  // namespace

// Ties at distance 0 (the first threshold's FPR 0.008 exceeds 0.001) and a leaky attack, at two
// (δ, confidence) settings: TPRs and the advantage exactly, the ε bound to 1e-12 (the beta
// quantiles are Boost's in both, through scipy).
TEST(MembershipAudit, MatchesSklearnAndScipyOnConstructedScores) {
  const auto expected = read_low_fpr_expected();
  for (const std::string name : {"ties", "leaky", "leaky_delta"}) {
    SCOPED_TRACE(name);
    const Expected& e = expected.at(name);
    const auto scores =
        read_scores("mia_low_fpr_" + name.substr(0, name.find('_')) + "_scores.csv");
    const auto audit = audit_of(scores, e.delta, e.confidence);
    for (std::size_t t = 0; t < 3; ++t) EXPECT_EQ(audit.tpr_at_fpr[t], e.values.at(kTprNames[t]));
    EXPECT_EQ(audit.advantage, e.values.at("membership_advantage"));
    EXPECT_NEAR(audit.epsilon_lower_bound, e.values.at("epsilon_lower_bound"),
                1e-12 * std::max(1.0, e.values.at("epsilon_lower_bound")));
    if (name == "ties") {
      EXPECT_EQ(audit.tpr_at_fpr[0], 0.0);
      EXPECT_TRUE(audit.first_threshold_above_target[0]);
      EXPECT_FALSE(audit.first_threshold_above_target[1]);
    }
  }
}

// The metric on SD2011 (train members, holdout non-members, distances to train_syn): its
// per-record distances are the scores the golden script read, and its statistics are the script's.
TEST(MembershipAudit, DistanceMembershipInferenceOnSd2011) {
  const auto t = load_tables(shared_data("sd2011/train.csv"), {shared_data("sd2011/train_syn.csv")},
                             shared_data("sd2011/holdout.csv"));
  const auto r = run_metric("distance_membership_inference", t, {{"record_level", true}});
  const auto scores = read_scores("mia_low_fpr_sd2011_scores.csv");
  ASSERT_EQ(r.records.size(), 2u);
  ASSERT_EQ(r.records[0].fields[1], "distance");
  std::vector<double> d = r.records[0].values[1];
  d.insert(d.end(), r.records[1].values[1].begin(), r.records[1].values[1].end());
  ASSERT_EQ(d.size(), scores.distance.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    ASSERT_EQ(d[i], scores.distance[i]) << i;
    ASSERT_EQ(scores.member[i], i < r.records[0].values[1].size() ? 1 : 0) << i;
  }
  const auto expected = read_low_fpr_expected();
  const Expected& e = expected.at("sd2011");
  for (const char* name : kTprNames) EXPECT_EQ(value_of(r, name, "all"), e.values.at(name)) << name;
  EXPECT_EQ(value_of(r, "membership_advantage", "all"), e.values.at("membership_advantage"));
  EXPECT_NEAR(value_of(r, "epsilon_lower_bound", "all"), e.values.at("epsilon_lower_bound"), 1e-12);
  // The log-log ROC plot: positive rates only, sorted by FPR.
  const auto& plots = r.details["plots"];
  ASSERT_EQ(plots.size(), 2u);
  EXPECT_EQ(plots[1]["kind"], "roc_log");
  double last = 0;
  for (const auto& p : plots[1]["data"]) {
    EXPECT_GT(p["fpr"].get<double>(), 0.0);
    EXPECT_GT(p["tpr"].get<double>(), 0.0);
    EXPECT_GE(p["fpr"].get<double>(), last);
    last = p["fpr"].get<double>();
  }
}

// Exact copies at distance 0 make the lowest FPR targets unreachable: TPR 0 and a warning.
TEST(MembershipAudit, CopiesAtDistanceZeroWarn) {
  const auto t = make_tables("x,g\n1,a\n2,b\n3,a\n4,b\n", {"x,g\n1,a\n2,b\n3,a\n9,b\n"},
                             std::string("x,g\n1,a\n7,b\n8,a\n"));
  const auto r = run_metric("distance_membership_inference", t);
  // Members 1, 2, 3 and non-member 1 are at distance 0: the first threshold has FPR 1/3.
  EXPECT_EQ(value_of(r, "tpr_at_fpr_0.1", "all"), 0.0);
  EXPECT_EQ(r.warnings.size(), 3u);
  EXPECT_NE(r.warnings[0].find("tpr_at_fpr_0.001 is 0"), std::string::npos);
}

TEST(MembershipAudit, ClopperPearsonMatchesScipy) {
  // scipy.stats.beta.ppf(0.025, 3, 8) and beta.isf(0.025, 4, 7) (statsmodels'
  // proportion_confint(3, 10, method="beta")).
  const auto ci = stats::clopper_pearson(3, 10, 0.95);
  EXPECT_NEAR(ci.lower, 0.06673951117773447, 1e-15);
  EXPECT_NEAR(ci.upper, 0.6524528500599973, 1e-15);
  EXPECT_EQ(stats::clopper_pearson(0, 10, 0.95).lower, 0.0);
  EXPECT_EQ(stats::clopper_pearson(10, 10, 0.95).upper, 1.0);
  EXPECT_NEAR(stats::clopper_pearson(0, 10, 0.95).upper, 1.0 - std::pow(0.025, 0.1), 1e-15);
}

TEST(MembershipAudit, BadParametersAreInputErrors) {
  const MetricSpec* m = find_metric("distance_membership_inference");
  ASSERT_NE(m, nullptr);
  for (const auto& bad : {nlohmann::json{{"delta", 0.5}}, nlohmann::json{{"delta", -1e-6}},
                          nlohmann::json{{"confidence", 1.0}}, nlohmann::json{{"confidence", "x"}}})
    EXPECT_THROW(Params::resolve(m->name, m->params, bad, "test"), InputError) << bad.dump();
}

// ε-identifiability against the exact brute force (decimals as written, ties decided in rational
// arithmetic): counts equal.
TEST(EpsilonIdentifiability, MatchesExactBruteForce) {
  std::map<std::string, double> expected;
  for (const auto& row : read_rows("identifiability_expected.csv"))
    expected[row.at(0) + "/" + row.at(1)] = std::stod(row.at(2));
  ASSERT_EQ(expected.size(), 4u);
  const auto sd =
      load_tables(shared_data("sd2011/train.csv"), {shared_data("sd2011/train_syn.csv")});
  const auto dec =
      load_tables(golden("identifiability_conf.csv"), {golden("identifiability_syn.csv")});
  const nlohmann::json sd_columns = {"sex", "age", "edu", "marital", "ls", "smoke"};
  for (const std::string weights : {"entropy", "uniform"}) {
    for (int threads : {1, 3}) {
      SCOPED_TRACE(weights + " threads " + std::to_string(threads));
      ThreadCountScope scope(threads);
      const auto a = run_metric("epsilon_identifiability", sd,
                                {{"weights", weights}, {"columns", sd_columns}});
      EXPECT_EQ(value_of(a, "n_identifiable", "all"), expected.at("sd2011/" + weights));
      EXPECT_EQ(value_of(a, "identifiability", "all"), expected.at("sd2011/" + weights) / 4000.0);
      EXPECT_EQ(value_of(a, "n_records", "all"), 4000.0);
      const auto b = run_metric("epsilon_identifiability", dec, {{"weights", weights}});
      EXPECT_EQ(value_of(b, "n_identifiable", "all"), expected.at("decimals/" + weights));
    }
  }
}

TEST(EpsilonIdentifiability, ExactTiesAreNotCloser) {
  // Confidential 0.3: its other record 0.5 and the synthetic 0.1 are both 0.2 away, a tie, so it
  // is not identifiable; in binary doubles 0.3 − 0.1 = 0.19999999999999998 < 0.5 − 0.3 = 0.2.
  const auto t = make_tables("v\n0.3\n0.5\n", {"v\n0.1\n"});
  const auto r = run_metric("epsilon_identifiability", t, {{"weights", "uniform"}});
  EXPECT_EQ(value_of(r, "n_identifiable", "all"), 0.0);
  // A copy of a record that has no duplicate is identifiable.
  const auto copy = make_tables("v,g\n1,a\n5,b\n9,a\n", {"v,g\n5,b\n"});
  EXPECT_EQ(value_of(run_metric("epsilon_identifiability", copy), "n_identifiable", "all"), 1.0);
}

// A numeric column with missing values has no distance: left out (with a warning) by default,
// refused when named.
TEST(EpsilonIdentifiability, RefusesMissingNumericValuesAndBadParameters) {
  const auto t = make_tables("x,y\n1,2\nNA,3\n4,5\n", {"x,y\n1,2\n"});
  try {
    run_metric("epsilon_identifiability", t, {{"columns", {"x", "y"}}});
    ADD_FAILURE() << "expected MetricNotApplicable";
  } catch (const MetricNotApplicable& e) {
    EXPECT_NE(std::string(e.what()).find("(x)"), std::string::npos) << e.what();
  }
  const auto by_default = run_metric("epsilon_identifiability", t);
  EXPECT_EQ(value_of(by_default, "n_identifiable", "all"),
            value_of(run_metric("epsilon_identifiability", t, {{"columns", {"y"}}}),
                     "n_identifiable", "all"));
  ASSERT_EQ(by_default.warnings.size(), 1u);
  EXPECT_NE(by_default.warnings[0].find("left out"), std::string::npos);
  EXPECT_EQ(
      value_of(run_metric("epsilon_identifiability", t, {{"columns", {"y"}}}), "n_records", "all"),
      3.0);
  EXPECT_THROW(run_metric("epsilon_identifiability", t, {{"weights", "entropic"}}), InputError);
  EXPECT_THROW(run_metric("epsilon_identifiability", t, {{"columns", {"z"}}}), InputError);
}

// The k-d tree search against a plain double loop in exact integer arithmetic (uniform weights,
// integer and categorical columns, so every distance is an exact integer): thousands of records,
// deep enough trees to prune, with duplicated confidential records, synthetic copies of
// confidential records and many equal distances, at 1 and 2 threads.
TEST(EpsilonIdentifiability, TreeSearchEqualsIntegerBruteForce) {
  std::mt19937_64 random(20261125);
  const std::vector<std::int64_t> numeric_levels = {4, 30, 1000};
  const std::string categories = "abcdef";
  const std::vector<std::size_t> category_levels = {2, 3, 6};
  using Record = std::vector<std::int64_t>;  // numeric values, then category ranks
  auto draw = [&]() {
    Record r;
    for (auto levels : numeric_levels) r.push_back(static_cast<std::int64_t>(random() % levels));
    for (auto levels : category_levels) r.push_back(static_cast<std::int64_t>(random() % levels));
    return r;
  };
  std::vector<Record> conf, syn;
  for (int i = 0; i < 3000; ++i)
    conf.push_back(i % 10 == 9 ? conf[random() % conf.size()] : draw());
  for (int i = 0; i < 2500; ++i) syn.push_back(i % 5 == 4 ? conf[random() % conf.size()] : draw());
  auto csv = [&](const std::vector<Record>& records) {
    std::string text = "n1,n2,n3,c1,c2,c3\n";
    for (const auto& r : records) {
      for (std::size_t c = 0; c < r.size(); ++c) {
        if (c > 0) text += ',';
        if (c < numeric_levels.size())
          text += std::to_string(r[c]);
        else
          text += categories[static_cast<std::size_t>(r[c])];
      }
      text += '\n';
    }
    return text;
  };
  auto squared = [](const Record& a, const Record& b) {
    std::int64_t total = 0;
    for (std::size_t c = 0; c < a.size(); ++c) total += (a[c] - b[c]) * (a[c] - b[c]);
    return total;
  };
  std::size_t expected = 0;
  for (std::size_t i = 0; i < conf.size(); ++i) {
    std::int64_t other = std::numeric_limits<std::int64_t>::max();
    for (std::size_t j = 0; j < conf.size(); ++j)
      if (j != i) other = std::min(other, squared(conf[i], conf[j]));
    bool closer = false;
    for (const auto& s : syn) closer = closer || squared(conf[i], s) < other;
    expected += closer ? 1 : 0;
  }
  ASSERT_GT(expected, 100u);  // neither none nor all: the comparison can fail both ways
  ASSERT_LT(expected, 2900u);
  const auto t = make_tables(csv(conf), {csv(syn)});
  for (int threads : {1, 2}) {
    ThreadCountScope scope(threads);
    const auto r = run_metric("epsilon_identifiability", t, {{"weights", "uniform"}});
    EXPECT_EQ(value_of(r, "n_identifiable", "all"), static_cast<double>(expected))
        << threads << " threads";
  }
}

namespace {
struct TaskRecorder : ProgressSink {
  std::map<std::string, std::pair<std::size_t, std::size_t>> finished;  // task -> (done, total)
  std::mutex mutex;
  void report(const std::string& task, std::size_t done, std::size_t total, double,
              bool is_finished) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (is_finished) finished[task] = {done, total};
  }
};

MetricResult run_with_progress(const std::string& name, const Tables& t, ProgressSink& sink,
                               const nlohmann::json& params = nlohmann::json::object()) {
  const MetricSpec* metric = find_metric(name);
  const Params p = Params::resolve(name, metric->params, params, "test");
  const EvaluationContext context;
  MetricInput input{
      t.confidential, {&t.synthetic.at(0)}, t.holdout ? &*t.holdout : nullptr, context, "test", 1};
  input.progress = &sink;
  return metric->compute(input, p);
}
}  // namespace

// The long searches of a 1M-record run report done/total: ε-identifiability over the
// confidential records, and DCR's SDMetrics searches (random baseline, synthetic to holdout),
// which used to run silently.
TEST(EpsilonIdentifiability, LongSearchesReportProgress) {
  const auto t = make_tables("v,g\n1,a\n5,b\n9,a\n2,b\n", {"v,g\n5,b\n3,a\n"}, "v,g\n4,a\n8,b\n");
  TaskRecorder eps;
  run_with_progress("epsilon_identifiability", t, eps);
  EXPECT_EQ(eps.finished.at("epsilon_identifiability: confidential records"),
            std::make_pair(std::size_t{4}, std::size_t{4}));
  TaskRecorder dcr;
  run_with_progress("distance_to_closest_record", t, dcr, {{"sdmetrics", true}});
  EXPECT_EQ(
      dcr.finished.at("distance_to_closest_record: random baseline to confidential (SDMetrics)"),
      std::make_pair(std::size_t{2}, std::size_t{2}));
  EXPECT_EQ(dcr.finished.at("distance_to_closest_record: synthetic to holdout (SDMetrics)"),
            std::make_pair(std::size_t{2}, std::size_t{2}));
}
