// Linkability and inference attacks against a control set (src/metrics/attack_disclosure/) and
// the tie-aware neighbour search they use (src/stats/tied_neighbours.*). Golden values from
// tests/golden/attacks/make_attack_golden.py: anonymeter (commit 0188bdf5) run with every record
// a target on real data without neighbour ties (counts equal exactly), anonymeter's band over
// shuffled synthetic row orders on real data with ties, and the expected-value tie rule by
// brute-force enumeration of every tie-break on small tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/threads.hpp"
#include "metrics/registry.hpp"
#include "stats/neighbour_cache.hpp"
#include "stats/tied_neighbours.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string golden(const std::string& name) {
  const std::string here = __FILE__;  // tests/unit/<this file>
  return here.substr(0, here.rfind('/')) + "/../golden/attacks/" + name;
}

std::string data(const std::string& name) {
  const std::string here = __FILE__;
  return here.substr(0, here.rfind('/')) + "/../data/sd2011/" + name;
}

// Rows of a CSV file written by pandas (fields with commas are double-quoted) as name -> text.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  auto split = [](const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    return fields;
  };
  std::string line;
  std::getline(in, line);
  const auto header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const auto fields = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
  }
  EXPECT_FALSE(rows.empty()) << path;
  return rows;
}

std::vector<std::string> list_of(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text) {
    if (c == ',') {
      out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (!item.empty()) out.push_back(item);
  return out;
}

nlohmann::json params_of(const std::map<std::string, std::string>& row) {
  if (row.at("attack") == "linkability")
    return {{"aux_a", list_of(row.at("aux_a"))},
            {"aux_b", list_of(row.at("aux_b"))},
            {"k", std::stoi(row.at("k"))}};
  return {{"secrets", {row.at("secret")}}, {"aux", list_of(row.at("aux"))}};
}

std::string metric_of(const std::map<std::string, std::string>& row) {
  return row.at("attack") == "linkability" ? "linkability_attack" : "inference_attack";
}

std::string scope_of(const std::map<std::string, std::string>& row) {
  return row.at("attack") == "linkability" ? "all" : row.at("secret");
}

Tables boston() {
  return load_tables(golden("boston_train.csv"), {golden("boston_synthetic.csv")},
                     golden("boston_holdout.csv"));
}

// ---- the search ------------------------------------------------------------------------------

// Random tables with few distinct values (many ties) and missing values.
Tables tied_tables(unsigned seed) {
  std::mt19937 rng(seed);
  auto table = [&](int n) {
    std::string csv = "a,b,x,y\n";
    for (int i = 0; i < n; ++i) {
      const int a = static_cast<int>(rng() % 3), b = static_cast<int>(rng() % 2);
      const int x = static_cast<int>(rng() % 4), y = static_cast<int>(rng() % 5);
      csv += std::string(1, static_cast<char>('p' + a)) + "," + (b ? "u" : "") + "," +
             std::to_string(x) + "," + (y == 4 ? "NA" : std::to_string(y * 3)) + "\n";
    }
    return csv;
  };
  return make_tables(table(40), {table(60)});
}

TEST(TiedNeighbours, SureAndTiedSetsMatchABruteForceSort) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const auto t = tied_tables(seed);
    const Table& q = t.confidential;
    const Table& r = t.synthetic[0];
    for (const std::vector<std::size_t>& columns :
         {std::vector<std::size_t>{0, 1}, {2, 3}, {0, 2, 3}, {1, 3}}) {
      const stats::AttackDistance distance(q, r, columns);
      stats::TiedNeighbourScratch scratch;
      for (std::size_t k : {1u, 2u, 5u, 60u, 70u}) {
        for (std::size_t i = 0; i < q.rows(); ++i) {
          std::vector<double> d(r.rows());
          for (std::size_t j = 0; j < r.rows(); ++j) d[j] = distance(i, j);
          const auto found = stats::tied_nearest(distance, i, k, scratch);
          std::vector<std::uint32_t> sure, tied;
          if (r.rows() <= k) {
            sure.resize(r.rows());
            std::iota(sure.begin(), sure.end(), 0u);
          } else {
            auto sorted = d;
            std::sort(sorted.begin(), sorted.end());
            for (std::uint32_t j = 0; j < r.rows(); ++j) {
              if (d[j] < sorted[k - 1]) sure.push_back(j);
              if (d[j] == sorted[k - 1]) tied.push_back(j);
            }
          }
          ASSERT_EQ(std::vector<std::uint32_t>(found.sure.begin(), found.sure.end()), sure);
          ASSERT_EQ(std::vector<std::uint32_t>(found.tied.begin(), found.tied.end()), tied);
          EXPECT_EQ(found.picks, tied.empty() ? 0 : k - sure.size());
        }
      }
    }
  }
}

TEST(TiedNeighbours, EqualDifferencesGiveBitEqualDistances) {
  // Age 20 against 19 and 21 with range 79 (18..97 over both tables): both differences are 1.
  // Scaling first, as anonymeter does, gives 20/79 − 19/79 = 0.012658227848101278 but
  // 21/79 − 20/79 = 0.012658227848101222 and splits the tie; the difference first gives 1/79 twice.
  const auto t = make_tables("age,w\n20,a\n18,a\n", {"age,w\n19,a\n21,a\n97,b\n"});
  const stats::AttackDistance distance(t.confidential, t.synthetic[0], {0});
  EXPECT_NE(20.0 / 79 - 19.0 / 79, 21.0 / 79 - 20.0 / 79);
  EXPECT_EQ(distance(0, 0), distance(0, 1));
  EXPECT_EQ(distance(0, 0), 1.0 / 79);
  stats::TiedNeighbourScratch scratch;
  const auto found = stats::tied_nearest(distance, 0, 1, scratch);
  EXPECT_EQ(found.tied.size(), 2u);
  EXPECT_TRUE(found.sure.empty());
  // With the categorical column the integer count is added last: 1/79 + 0 for both rows again.
  const stats::AttackDistance both(t.confidential, t.synthetic[0], {0, 1});
  EXPECT_EQ(both(0, 0), both(0, 1));
  EXPECT_THROW(stats::AttackDistance(t.confidential, t.synthetic[0], {}), InputError);
}

TEST(TiedNeighbours, SharedPickProbabilityOfFullyTiedSetsIsTheHypergeometricMiss) {
  // Both searches tie all m rows: P(common) = 1 − C(m − k, k)/C(m, k).
  std::vector<std::uint32_t> all(10);
  std::iota(all.begin(), all.end(), 0u);
  stats::TiedNeighbours a;
  a.tied = all;
  for (std::size_t k : {1u, 2u, 3u, 5u, 6u}) {
    a.picks = k;
    double miss = 1.0;
    for (std::size_t i = 0; i < k; ++i) miss *= double(10 - k - i) / double(10 - i);
    EXPECT_NEAR(stats::shared_pick_probability(a, a), 1.0 - miss, 1e-15) << k;
  }
}

// ---- the pruned search against the brute force -------------------------------------------------

// Mixed tables with few distinct values (many ties at every k-th distance), missing values, and
// synthetic rows that copy training rows exactly.
Tables mixed_tied_tables(std::size_t train_count, std::size_t synthetic_rows, unsigned seed) {
  std::mt19937 rng(seed);
  auto row = [&]() {
    std::string line;
    line += std::string(1, static_cast<char>('a' + rng() % 3)) + ",";
    const auto c5 = rng() % 6;
    line += (c5 == 5 ? std::string("NA") : std::string(1, static_cast<char>('p' + c5))) + ",";
    line += "L" + std::to_string(rng() % 40) + ",";
    line += std::to_string(rng() % 10) + ",";
    line += std::to_string(18 + rng() % 80) + ",";
    const auto u = rng() % 1000;
    line += u < 50 ? std::string("NA") : std::to_string(static_cast<double>(u) * 37.25) + "";
    return line + "\n";
  };
  const std::string header = "c3,c5,c40,n10,age,income\n";
  std::string train = header, synthetic = header;
  std::vector<std::string> train_rows;
  for (std::size_t i = 0; i < train_count; ++i) {
    train_rows.push_back(row());
    train += train_rows.back();
  }
  for (std::size_t i = 0; i < synthetic_rows; ++i)
    synthetic += rng() % 10 == 0 ? train_rows[rng() % train_rows.size()] : row();
  return make_tables(train, {synthetic});
}

void expect_same(const stats::TiedNeighbours& a, const stats::TiedNeighbours& b) {
  ASSERT_EQ(std::vector<std::uint32_t>(a.sure.begin(), a.sure.end()),
            std::vector<std::uint32_t>(b.sure.begin(), b.sure.end()));
  ASSERT_EQ(std::vector<std::uint32_t>(a.tied.begin(), a.tied.end()),
            std::vector<std::uint32_t>(b.tied.begin(), b.tied.end()));
  ASSERT_EQ(a.picks, b.picks);
  ASSERT_EQ(a.kth_distance, b.kth_distance);  // bit-equal
}

// Every target's sets from the pruned search at 1 and 2 threads, and every 25th against the brute
// force (all of them would take a minute), on 20k x 20k with categorical, few-valued numeric and
// continuous columns, missing values and 10 % exact copies.
TEST(TiedNeighbours, PrunedSearchEqualsTheBruteForceOnMixedDataWithTiesAndCopies) {
  const auto t = mixed_tied_tables(20000, 20000, 11);
  const Table& q = t.confidential;
  const Table& r = t.synthetic[0];
  const std::vector<std::vector<std::size_t>> column_sets = {
      {0, 1, 2}, {0, 3}, {1, 2, 3, 4}, {0, 1, 2, 3, 4, 5}, {5}, {3, 4}};
  for (const auto& columns : column_sets) {
    for (std::size_t k : {1u, 3u}) {
      SCOPED_TRACE("columns " + std::to_string(columns.size()) + " from " +
                   std::to_string(columns[0]) + ", k " + std::to_string(k));
      std::vector<std::unique_ptr<stats::TiedNeighbourLists>> runs;
      for (int threads : {1, 2}) {
        const ThreadCountScope scope(threads);
        runs.push_back(std::make_unique<stats::TiedNeighbourLists>(
            q, r, columns, k, std::size_t{1} << 30, nullptr, ""));
        ASSERT_TRUE(runs.back()->stored());
      }
      const stats::AttackDistance distance(q, r, columns);
      const stats::TiedNeighbourSearch search(distance);
      if (!distance.categorical_columns().empty()) {
        EXPECT_GT(search.signature_columns(), 0u);
      }
      stats::TiedNeighbourScratch s1, s2, s3;
      for (std::size_t i = 0; i < q.rows(); ++i) {
        expect_same(runs[0]->of(i, s1), runs[1]->of(i, s2));
        if (i % 25 == 0) expect_same(runs[0]->of(i, s1), stats::tied_nearest(distance, i, k, s3));
      }
    }
  }
}

TEST(TiedNeighbours, ListsOverTheirBudgetSearchAgainWithTheSameResult) {
  const auto t = mixed_tied_tables(600, 900, 12);
  const std::vector<std::size_t> columns = {0, 1, 4};
  const stats::TiedNeighbourLists kept(t.confidential, t.synthetic[0], columns, 2,
                                       std::size_t{1} << 30, nullptr, "");
  const stats::TiedNeighbourLists searched(t.confidential, t.synthetic[0], columns, 2, 100, nullptr,
                                           "");
  EXPECT_TRUE(kept.stored());
  EXPECT_FALSE(searched.stored());
  const stats::AttackDistance distance(t.confidential, t.synthetic[0], columns);
  stats::TiedNeighbourScratch s1, s2, s3;
  for (std::size_t i = 0; i < t.confidential.rows(); ++i) {
    expect_same(kept.of(i, s1), searched.of(i, s2));
    expect_same(kept.of(i, s1), stats::tied_nearest(distance, i, 2, s3));
  }
}

TEST(TiedNeighbours, ListsReportTheirProgress) {
  struct Recording : ProgressSink {
    std::string task;
    std::size_t done = 0, total = 0;
    bool finished = false;
    void report(const std::string& t, std::size_t d, std::size_t n, double, bool f) override {
      task = t;
      done = d;
      total = n;
      finished = finished || f;
    }
  } sink;
  const auto t = mixed_tied_tables(3000, 2000, 13);
  const stats::TiedNeighbourLists lists(t.confidential, t.synthetic[0], {0, 4}, 1,
                                        std::size_t{1} << 30, &sink, "nearest of the targets");
  EXPECT_TRUE(sink.finished);
  EXPECT_EQ(sink.task, "nearest of the targets");
  EXPECT_EQ(sink.done, 3000u);
  EXPECT_EQ(sink.total, 3000u);
}

TEST(AttackDisclosure, InferenceAttacksWithTheSameAuxiliaryColumnsShareTheirSearches) {
  const auto t = make_tables(
      [] {
        std::string csv = "a,b,x,s,u\n";
        for (int i = 0; i < 300; ++i)
          csv += std::to_string(i % 3) + "," + std::to_string(i % 7) + "," +
                 std::to_string(i % 11) + "," + std::to_string(i % 5) + "," +
                 std::to_string((i * 7) % 13) + "\n";
        return csv;
      }(),
      {[] {
        std::string csv = "a,b,x,s,u\n";
        for (int i = 0; i < 250; ++i)
          csv += std::to_string(i % 4) + "," + std::to_string(i % 6) + "," + std::to_string(i % 9) +
                 "," + std::to_string(i % 5) + "," + std::to_string((i * 5) % 13) + "\n";
        return csv;
      }()},
      [] {
        std::string csv = "a,b,x,s,u\n";
        for (int i = 0; i < 200; ++i)
          csv += std::to_string(i % 5) + "," + std::to_string(i % 7) + "," + std::to_string(i % 8) +
                 "," + std::to_string(i % 3) + "," + std::to_string((i * 3) % 13) + "\n";
        return csv;
      }());
  stats::NeighbourCache cache;
  cache.keep(t.confidential);
  cache.keep(t.synthetic[0]);
  cache.keep(*t.holdout);
  const MetricSpec* metric = find_metric("inference_attack");
  ASSERT_NE(metric, nullptr);
  const Params p = Params::resolve("inference_attack", metric->params,
                                   {{"secrets", {"s", "u"}}, {"aux", {"a", "b", "x"}}}, "test");
  const EvaluationContext context;
  MetricInput direct{t.confidential, {&t.synthetic[0]}, &*t.holdout, context, "c", 7};
  MetricInput shared = direct;
  shared.neighbours = &cache;
  const MetricResult a = metric->compute(direct, p);
  const MetricResult b = metric->compute(shared, p);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < a.values.size(); ++i)
    EXPECT_TRUE(a.values[i].value == b.values[i].value ||
                (std::isnan(a.values[i].value) && std::isnan(b.values[i].value)))
        << a.values[i].statistic;
  // Training and holdout searched once each for secret s, reused for secret u.
  EXPECT_EQ(cache.searches_run(), 2u);
  EXPECT_EQ(cache.searches_reused(), 2u);
}

// anonymeter's rule and the family rule for one (secret, guess) pair, as the doc states them.
bool anonymeter_right(double s, double g, double tolerance) {
  if (std::isnan(s) || std::isnan(g)) return std::isnan(s) && std::isnan(g);
  return std::fabs(g - s) / (std::fabs(g) + 1e-12) <= tolerance;
}
bool family_right(double s, double g, double absolute, double relative) {
  if (std::isnan(s) || std::isnan(g)) return false;
  return std::fabs(g - s) <= std::max(absolute, relative * std::fabs(s));
}

TEST(AttackDisclosure, RandomGuessBaselineEqualsTestingEverySyntheticRecord) {
  // Values on grids that put many guesses exactly on the rules' boundaries (secret 95, guess 100:
  // |100 − 95| = 0.05 × 100), signs, zeros, tiny values and missing ones.
  std::mt19937 rng(5);
  auto value = [&]() -> std::string {
    switch (rng() % 8) {
      case 0:
        return "NA";
      case 1:
        return "0";
      case 2:
        return "-" + std::to_string(rng() % 60);
      case 3:
        return std::to_string(static_cast<double>(rng() % 400) / 4.0);
      case 4:
        return "1e-" + std::to_string(5 + rng() % 6);
      default:
        return std::to_string(80 + rng() % 40);
    }
  };
  auto table = [&](int n) {
    std::string csv = "k,s,c\n";
    for (int i = 0; i < n; ++i)
      csv += std::to_string(rng() % 4) + "," + value() + "," +
             (rng() % 9 == 0 ? std::string("NA") : "v" + std::to_string(rng() % 6)) + "\n";
    return csv;
  };
  const auto t = make_tables(table(700), {table(900)});
  const auto& truth = t.confidential.column(1).numeric;
  const auto& guesses = t.synthetic[0].column(1).numeric;
  auto brute = [&](auto right) {
    double hits = 0;
    for (double s : truth)
      for (double g : guesses) hits += right(s, g);
    return hits / static_cast<double>(guesses.size());
  };
  auto baseline = [&](const nlohmann::json& extra, const std::string& secret) {
    nlohmann::json p = extra;
    p["secrets"] = {secret};
    p["aux"] = {"k"};
    return value_of(run_metric("inference_attack", t, p), "n_baseline", secret);
  };
  for (double tolerance : {0.05, 0.2, 0.0, 0.9}) {
    SCOPED_TRACE(tolerance);
    EXPECT_EQ(baseline({{"tolerance", tolerance}}, "s"),
              brute([&](double s, double g) { return anonymeter_right(s, g, tolerance); }));
  }
  for (const auto& [absolute, relative] :
       std::vector<std::pair<double, double>>{{0.0, 0.05}, {2.0, 0.0}, {0.5, 0.1}, {0.0, 0.0}}) {
    SCOPED_TRACE(std::to_string(absolute) + " " + std::to_string(relative));
    EXPECT_EQ(baseline({{"secret_match", "disclosure_matching"},
                        {"numeric_tolerance", absolute},
                        {"relative_tolerance", relative}},
                       "s"),
              brute([&](double s, double g) { return family_right(s, g, absolute, relative); }));
  }
  // A categorical secret: equal levels, missing equal to missing under anonymeter's rule.
  const auto& ct = t.confidential.column(2).codes;
  const auto& cg = t.synthetic[0].column(2).codes;
  double hits = 0;
  for (auto s : ct)
    for (auto g : cg) hits += s == g;
  EXPECT_EQ(baseline({}, "c"), hits / static_cast<double>(cg.size()));
}

// ---- anonymeter parity without ties ----------------------------------------------------------

TEST(AttackDisclosure, CountsEqualAnonymetersOnRealDataWithoutTies) {
  const auto t = boston();
  for (const auto& row : read_csv(golden("anonymeter_no_ties.csv"))) {
    SCOPED_TRACE(row.at("attack") + " " + row.at("aux_a") + row.at("aux") + " k=" + row.at("k"));
    const auto r = run_metric(metric_of(row), t, params_of(row));
    const std::string scope = scope_of(row);
    EXPECT_DOUBLE_EQ(value_of(r, "n_attacks", scope), std::stod(row.at("n_attacks")));
    EXPECT_NEAR(value_of(r, "n_success", scope), std::stod(row.at("n_success")), 1e-9);
    EXPECT_DOUBLE_EQ(value_of(r, "n_control_attacks", scope),
                     std::stod(row.at("n_control_attacks")));
    EXPECT_NEAR(value_of(r, "n_control", scope), std::stod(row.at("n_control")), 1e-9);
  }
}

// ---- anonymeter's band over row orders, with ties --------------------------------------------

TEST(AttackDisclosure, RiskIntervalOverlapsAnonymetersBandOverRowOrders) {
  const auto t = load_tables(data("train.csv"), {data("train_syn.csv")}, data("holdout.csv"));
  for (const auto& row : read_csv(golden("anonymeter_ties_band.csv"))) {
    SCOPED_TRACE(row.at("attack") + " " + row.at("aux_a") + row.at("aux") + " k=" + row.at("k"));
    const auto r = run_metric(metric_of(row), t, params_of(row));
    const std::string scope = scope_of(row);
    const double lo = value_of(r, "risk_ci_lo", scope), hi = value_of(r, "risk_ci_hi", scope);
    EXPECT_LE(lo, std::stod(row.at("risk_max")));
    EXPECT_GE(hi, std::stod(row.at("risk_min")));
    // The expected counts lie within the range of anonymeter's counts over the row orders
    // widened by their spread (a tie-broken count scatters around the expectation).
    const double s_lo = std::stod(row.at("n_success_min")),
                 s_hi = std::stod(row.at("n_success_max"));
    const double spread = std::max(1.0, s_hi - s_lo);
    EXPECT_GE(value_of(r, "n_success", scope), s_lo - spread);
    EXPECT_LE(value_of(r, "n_success", scope), s_hi + spread);
  }
}

// ---- the expected-value tie rule -------------------------------------------------------------

TEST(AttackDisclosure, ExpectedSuccessesEqualABruteForceOverEveryTieBreak) {
  const auto t = load_tables(golden("tiny_train.csv"), {golden("tiny_synthetic.csv")},
                             golden("tiny_holdout.csv"));
  for (const auto& row : read_csv(golden("tie_rule_expected.csv"))) {
    SCOPED_TRACE(row.at("attack") + " " + row.at("aux_a") + "|" + row.at("aux_b") + row.at("aux") +
                 " k=" + row.at("k") + " " + row.at("side"));
    const auto r = run_metric(metric_of(row), t, params_of(row));
    const std::string scope = scope_of(row);
    const double expected = std::stod(row.at("expected"));
    if (row.at("side") == "train") {
      EXPECT_NEAR(value_of(r, "n_success", scope), expected, 1e-12);
      EXPECT_NEAR(value_of(r, "n_baseline", scope), std::stod(row.at("baseline")), 1e-12);
    } else {
      EXPECT_NEAR(value_of(r, "n_control", scope), expected, 1e-12);
    }
  }
}

TEST(AttackDisclosure, ResultsDoNotDependOnTheThreadCount) {
  const auto t = load_tables(data("train.csv"), {data("train_syn.csv")}, data("holdout.csv"));
  const nlohmann::json link = {
      {"aux_a", {"sex", "edu", "marital"}}, {"aux_b", {"ls", "age"}}, {"k", 2}};
  const nlohmann::json infer = {{"secrets", {"income", "ls"}}};
  std::vector<MetricResult> runs;
  for (int threads : {1, 2, 3}) {
    const ThreadCountScope scope(threads);
    runs.push_back(run_metric("linkability_attack", t, link));
    runs.push_back(run_metric("inference_attack", t, infer));
  }
  for (std::size_t i = 2; i < runs.size(); ++i) {
    ASSERT_EQ(runs[i].values.size(), runs[i % 2].values.size());
    for (std::size_t v = 0; v < runs[i].values.size(); ++v) {
      const double a = runs[i].values[v].value, b = runs[i % 2].values[v].value;
      EXPECT_TRUE((std::isnan(a) && std::isnan(b)) || a == b) << runs[i].values[v].statistic;
    }
  }
}

TEST(AttackDisclosure, WithoutAHoldoutTheRiskIsTheAttackRateAndAWarningSaysSo) {
  const auto t = load_tables(golden("tiny_train.csv"), {golden("tiny_synthetic.csv")});
  const auto r = run_metric("linkability_attack", t, {{"aux_a", {"a", "b"}}, {"aux_b", {"c"}}});
  EXPECT_TRUE(std::isnan(value_of(r, "control_rate", "all")));
  EXPECT_TRUE(std::isnan(value_of(r, "n_control_attacks", "all")));
  EXPECT_DOUBLE_EQ(value_of(r, "risk", "all"), value_of(r, "attack_rate", "all"));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("no holdout"), std::string::npos);
}

TEST(AttackDisclosure, DisclosureMatchingRuleIsAnOption) {
  // Secret 100 guessed as 104: right under anonymeter's 5 % of the guess; under the family rule
  // with relative_tolerance 0.01 wrong, with 0.05 right.
  const auto t = make_tables("k,s\na,100\nb,50\n", {"k,s\na,104\nb,80\n"});
  auto n = [&](const nlohmann::json& p) {
    nlohmann::json all = p;
    all["secrets"] = {"s"};
    return value_of(run_metric("inference_attack", t, all), "n_success", "s");
  };
  EXPECT_DOUBLE_EQ(n({}), 1.0);
  EXPECT_DOUBLE_EQ(n({{"secret_match", "disclosure_matching"}, {"relative_tolerance", 0.01}}), 0.0);
  EXPECT_DOUBLE_EQ(n({{"secret_match", "disclosure_matching"}, {"relative_tolerance", 0.05}}), 1.0);
}

TEST(AttackDisclosure, BadParametersAreInputErrors) {
  const auto t = load_tables(golden("tiny_train.csv"), {golden("tiny_synthetic.csv")},
                             golden("tiny_holdout.csv"));
  EXPECT_THROW(run_metric("linkability_attack", t, {{"aux_a", {"a"}}}), InputError);
  EXPECT_THROW(run_metric("linkability_attack", t, {{"aux_a", {"a"}}, {"aux_b", {"a", "b"}}}),
               InputError);
  EXPECT_THROW(run_metric("linkability_attack", t, {{"aux_a", {"nope"}}, {"aux_b", {"b"}}}),
               InputError);
  EXPECT_THROW(run_metric("linkability_attack", t, {{"aux_a", {"a", "a"}}, {"aux_b", {"b"}}}),
               InputError);
  EXPECT_THROW(run_metric("linkability_attack", t, {{"k", 0}}), InputError);
  EXPECT_THROW(run_metric("inference_attack", t, {{"secrets", {"a"}}, {"aux", {"a", "b"}}}),
               InputError);
  EXPECT_THROW(run_metric("inference_attack", t, {{"secrets", {"zz"}}}), InputError);
  EXPECT_THROW(run_metric("inference_attack", t, {{"secret_match", "fuzzy"}}), InputError);
}

}  // namespace
