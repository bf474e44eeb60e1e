// Golden-value tests for column_summaries, ratio_of_counts, wasserstein_distance,
// moments_and_covariance, mean_in_confidence_interval, coverage_and_validity and their stats
// kernels. The golden values come from numpy / scipy / pandas and the SDMetrics formulas as
// documented, via tests/golden/marginal_metrics/make_golden.py (committed with its output).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "stats/distribution.hpp"
#include "stats/ecdf.hpp"
#include "stats/kde.hpp"
#include "stats/quantile.hpp"
#include "stats/summary.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

// tests/golden/marginal_metrics next to this file's tests/unit (no compile definition needed).
std::string golden(const std::string& file) {
  const std::string here = __FILE__;
  return here.substr(0, here.rfind('/')) + "/../golden/marginal_metrics/" + file;
}

std::vector<std::vector<std::string>> read_tsv(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

double parse(const std::string& s) { return s == "NA" ? std::nan("") : std::stod(s); }

// 1e-10 relative to max(1, |expected|): the golden values are printed to 17 digits, and sums over
// 5000 rows in a different order differ from numpy's pairwise sums in the last few bits.
void expect_close(double actual, double expected, const std::string& what) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(actual)) << what << ": expected NaN, got " << actual;
    return;
  }
  EXPECT_NEAR(actual, expected, 1e-10 * std::max(1.0, std::abs(expected))) << what;
}

const Tables& dataset(const std::string& name) {
  static std::map<std::string, Tables> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  Tables t;
  if (name == "small") {
    t = load_tables(golden("small_conf.csv"), {golden("small_syn.csv")});
  } else if (name == "small_paired") {
    t = load_tables(golden("small_conf.csv"), {golden("small_syn_paired.csv")});
  } else if (name == "sd2011") {
    ReadSettings settings;
    settings.missing_codes["income"] = {-8.0};  // synthpop's cont.na = list(income = -8)
    t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")}, std::nullopt,
                    settings);
  } else {
    throw std::runtime_error("unknown golden dataset " + name);
  }
  return cache.emplace(name, std::move(t)).first->second;
}

}  // namespace

TEST(MarginalMetricsGolden, EveryMetricMatchesNumpyScipyPandas) {
  const auto rows = read_tsv(golden("golden.tsv"));
  ASSERT_GT(rows.size(), 1000u);
  // Group rows by (dataset, metric, params) and run each metric once per group.
  std::map<std::tuple<std::string, std::string, std::string>,
           std::vector<const std::vector<std::string>*>>
      groups;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 6u);
    groups[{r[0], r[1], r[2]}].push_back(&r);
  }
  std::set<std::string> metrics_seen;
  for (const auto& [key, group] : groups) {
    const auto& [ds, metric, params] = key;
    EvaluationContext context;
    if (ds == "small_paired") context.synthesis = SynthesisType::kPartial;
    const MetricResult result =
        run_metric(metric, dataset(ds), nlohmann::json::parse(params), context);
    std::map<std::pair<std::string, std::string>, double> got;
    for (const auto& v : result.values) got[{v.statistic, v.scope}] = v.value;
    for (const auto* r : group) {
      const std::string what =
          ds + " " + metric + " " + params + " " + (*r)[3] + " [" + (*r)[4] + "]";
      auto found = got.find({(*r)[3], (*r)[4]});
      if (found == got.end()) {
        ADD_FAILURE() << "missing " << what;
        continue;
      }
      expect_close(found->second, parse((*r)[5]), what);
    }
    metrics_seen.insert(metric);
  }
  EXPECT_EQ(metrics_seen.size(), 6u);
}

TEST(MarginalMetricsGolden, StatsKernelsMatchNumpyScipy) {
  const auto t = dataset("small");
  const auto x = stats::sorted_non_missing(t.confidential.column("x").numeric);
  std::vector<double> scott_grid, scott, silverman_grid, silverman;
  double h_scott = 0, h_silverman = 0;
  for (const auto& r : read_tsv(golden("stats.tsv"))) {
    const double arg = std::stod(r[1]), want = parse(r[2]);
    if (r[0] == "quantile")
      expect_close(stats::quantile_type7(x, arg, stats::QuantileArithmetic::kNumpy), want,
                   "quantile " + r[1]);
    if (r[0] == "bandwidth_scott") h_scott = want;
    if (r[0] == "bandwidth_silverman") h_silverman = want;
    if (r[0] == "kde_scott") {
      scott_grid.push_back(arg);
      scott.push_back(want);
    }
    if (r[0] == "kde_silverman") {
      silverman_grid.push_back(arg);
      silverman.push_back(want);
    }
    if (r[0] == "t_quantile_0.975")
      expect_close(stats::student_t_quantile(0.975, arg), want, "t quantile df " + r[1]);
    if (r[0] == "t_pvalue_2.1")
      expect_close(stats::student_t_two_sided_pvalue(2.1, arg), want, "t p-value df " + r[1]);
  }
  expect_close(stats::kde_bandwidth(x, stats::BandwidthRule::kScott), h_scott, "scott bandwidth");
  expect_close(stats::kde_bandwidth(x, stats::BandwidthRule::kSilverman), h_silverman,
               "silverman bandwidth");
  ASSERT_EQ(scott.size(), 11u);
  const auto fs = stats::kde_evaluate(x, h_scott, scott_grid);
  const auto fv = stats::kde_evaluate(x, h_silverman, silverman_grid);
  EXPECT_FALSE(fs.binned);
  for (std::size_t g = 0; g < scott.size(); ++g) {
    EXPECT_NEAR(fs.density[g], scott[g], 1e-12) << "scott kde at " << scott_grid[g];
    EXPECT_NEAR(fv.density[g], silverman[g], 1e-12) << "silverman kde at " << silverman_grid[g];
  }
  // The linear-binning path (forced with exact_limit = 0) stays within 1e-4 of the peak.
  const auto binned = stats::kde_evaluate(x, h_scott, scott_grid, 0);
  EXPECT_TRUE(binned.binned);
  const double peak = *std::max_element(scott.begin(), scott.end());
  for (std::size_t g = 0; g < scott.size(); ++g)
    EXPECT_NEAR(binned.density[g], scott[g], 1e-4 * peak);
}

// scipy.stats.wasserstein_distance([0, 1, 3], [5, 6, 8]) = 5 (a pure shift) and
// ([1, 2, 2, 3], [2, 3, 3, 4, 5]) = 1.4 (ties; by hand ∫|F_a − F_b| = 0.25 + 0.55 + 0.4 + 0.2).
TEST(MarginalMetricsStats, WassersteinHandChecked) {
  EXPECT_NEAR(
      stats::wasserstein1_sorted(std::vector<double>{0, 1, 3}, std::vector<double>{5, 6, 8}), 5.0,
      1e-15);
  EXPECT_NEAR(stats::wasserstein1_sorted(std::vector<double>{1, 2, 2, 3},
                                         std::vector<double>{2, 3, 3, 4, 5}),
              1.4, 1e-15);
  EXPECT_TRUE(
      std::isnan(stats::wasserstein1_sorted(std::vector<double>{}, std::vector<double>{1})));
}

// Seed 000: the confidential CI for mean income is [9870.15, 10524.61] around 10197.38; a
// synthetic mean of 10112.00 lies inside it. Reproduced here from a constructed sample with the
// same mean and standard error is not possible without the data, so check the t quantile that
// interval needs instead (t_{0.975, ∞} → 1.959964) and the interval arithmetic.
TEST(MarginalMetricsStats, MeanIntervalArithmetic) {
  const std::vector<double> x = {1, 2, 3, 4, 5};  // mean 3, sd √2.5, se √0.5
  const auto ci = stats::mean_interval(x, 0.05);
  const double q = 2.7764451051977987;  // scipy.stats.t.ppf(0.975, 4)
  EXPECT_NEAR(ci.lower, 3 - q * std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(ci.upper, 3 + q * std::sqrt(0.5), 1e-12);
  const auto z = stats::mean_interval(x, 0.05, true);
  EXPECT_NEAR(z.critical, 1.959963984540054, 1e-12);
  const auto one = stats::mean_interval(std::vector<double>{1}, 0.05);
  EXPECT_TRUE(std::isnan(one.lower));
}

TEST(MarginalMetrics, EmptyAllMissingAndOneRowTablesDoNotCrash) {
  const std::vector<std::string> names = {"column_summaries",
                                          "ratio_of_counts",
                                          "wasserstein_distance",
                                          "moments_and_covariance",
                                          "mean_in_confidence_interval",
                                          "coverage_and_validity",
                                          "ks_distance",
                                          "total_variation"};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x,y,c\nNA,NA,NA\nNA,NA,NA\n", "x,y,c\nNA,NA,NA\n"},  // all missing
      {"x,y,c\n1,2,a\n", "x,y,c\n3,4,b\n"},                  // one row each
      {"x,y,c\n1,2,a\n", "x,y,c\n3,4,b\n"},                  // made empty below
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    auto t = make_tables(cases[k].first, {cases[k].second});
    if (k == 2) {  // CSV files need a data row; build tables without rows directly
      auto empty = [](const Table& from) {
        std::vector<Column> cols = from.columns();
        for (auto& c : cols) {
          c.numeric.clear();
          c.codes.clear();
        }
        return Table(from.source(), std::move(cols));
      };
      t.confidential = empty(t.confidential);
      t.synthetic[0] = empty(t.synthetic[0]);
    }
    for (const auto& name : names) {
      try {
        const auto r = run_metric(name, t);
        const std::string dumped = r.details.dump();  // NaN-free JSON
        EXPECT_EQ(dumped.find("NaN"), std::string::npos) << name;
      } catch (const MetricNotApplicable&) {
      }
    }
  }
}

TEST(MarginalMetrics, PairedTestOnlyWhenRowsCorrespond) {
  const auto& t = dataset("small_paired");
  const auto full = run_metric("mean_in_confidence_interval", t);
  for (const auto& v : full.values) EXPECT_NE(v.statistic, "paired_t");
  EvaluationContext partial;
  partial.synthesis = SynthesisType::kPartial;
  const auto r = run_metric("mean_in_confidence_interval", t, nlohmann::json::object(), partial);
  EXPECT_EQ(value_of(r, "paired_n", "x"), 73.0);  // 80 rows, 5 + 2 missing x, none shared
  EXPECT_TRUE(std::isnan(value_of(r, "paired_t", "const")));  // all differences 0
}

TEST(MarginalMetrics, PlotsFollowTheConvention) {
  const auto& t = dataset("sd2011");
  std::map<std::string, std::size_t> kinds;
  for (const std::string name :
       {"column_summaries", "wasserstein_distance", "ks_distance", "total_variation",
        "moments_and_covariance", "mean_in_confidence_interval"}) {
    const auto r = run_metric(name, t);
    ASSERT_TRUE(r.details.contains("plots")) << name;
    for (const auto& plot : r.details["plots"]) {
      ++kinds[plot["kind"]];
      for (const char* key : {"kind", "title", "x_label", "y_label", "scope", "data"})
        EXPECT_TRUE(plot.contains(key)) << name << " plot lacks " << key;
      EXPECT_LE(plot["data"].size(), 400u) << name;  // ≤ 200 points per curve, two curves
      EXPECT_GT(plot["data"].size(), 0u) << name << " " << plot["scope"];
      const std::string kind = plot["kind"];
      if (kind == "histogram") {
        // Each dataset's density integrates to 1.
        std::map<std::string, double> area;
        for (const auto& rec : plot["data"])
          area[rec["dataset"]] +=
              double(rec["density"]) * (double(rec["bin_end"]) - double(rec["bin_start"]));
        for (const auto& [ds, a] : area) EXPECT_NEAR(a, 1.0, 1e-9) << ds;
      }
      if (kind == "ecdf") {
        std::map<std::string, double> last;
        for (const auto& rec : plot["data"]) {
          const double cdf = rec["cdf"];
          EXPECT_GE(cdf, last[rec["dataset"]]);
          last[rec["dataset"]] = cdf;
        }
        for (const auto& [ds, v] : last) EXPECT_EQ(v, 1.0) << ds;
      }
      if (kind == "bars") {
        std::map<std::string, double> total;
        for (const auto& rec : plot["data"]) total[rec["dataset"]] += double(rec["share"]);
        for (const auto& [ds, v] : total) EXPECT_NEAR(v, 1.0, 1e-12) << ds;
      }
      if (kind == "density") {
        EXPECT_EQ(plot["bandwidth_rule"], "scott");
      }
    }
  }
  for (const char* kind : {"histogram", "density", "ecdf", "qq", "bars", "heatmap", "forest"})
    EXPECT_GT(kinds[kind], 0u) << kind;
  EXPECT_EQ(kinds["histogram"], 2u);  // age, income
  EXPECT_EQ(kinds["bars"], 5u);       // sex, edu, marital, ls, smoke (total_variation)
}

// Where we follow SDMetrics' documentation rather than a stored version of its code (see
// docs/metrics.md): real range [0, 1], synthetic [0.25, 0.75] covers half the range (the code's
// 1 − |0.25 − 0.25| would say 1); real levels a b c d, synthetic a b c e covers 3/4 (the code's
// nunique ratio would say 4/4).
TEST(MarginalMetrics, CoverageFollowsSdmetricsDocumentation) {
  const auto t =
      make_tables("x,c\n0,a\n0.5,b\n1,c\n1,d\n", {"x,c\n0.25,a\n0.5,b\n0.75,c\n0.5,e\n"});
  const auto r = run_metric("coverage_and_validity", t);
  EXPECT_NEAR(value_of(r, "range_coverage", "x"), 0.5, 1e-15);
  EXPECT_NEAR(value_of(r, "boundary_adherence", "x"), 1.0, 1e-15);
  EXPECT_NEAR(value_of(r, "category_coverage", "c"), 0.75, 1e-15);
  EXPECT_NEAR(value_of(r, "category_adherence", "c"), 0.75, 1e-15);
  EXPECT_EQ(value_of(r, "new_categories", "c"), 1.0);
}

// The radix sort agrees with std::sort bit for bit (values and signs of zeros aside from order),
// with negatives, ±0, ±∞, duplicates, subnormals and NaN (dropped).
TEST(MarginalMetricsStats, RadixSortMatchesStdSort) {
  std::vector<double> x;
  std::uint64_t state = 12345;
  for (int i = 0; i < 50000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(state >> 11) / 9007199254740992.0;
    switch (i % 9) {
      case 0:
        x.push_back(std::nan(""));
        break;
      case 1:
        x.push_back(0.0);
        break;
      case 2:
        x.push_back(-0.0);
        break;
      case 3:
        x.push_back(std::round(u * 20) - 10);
        break;
      case 4:
        x.push_back(i % 2 ? INFINITY : -INFINITY);
        break;
      case 5:
        x.push_back(u * 1e-310);
        break;
      default:
        x.push_back((u - 0.5) * 1e6);
        break;
    }
  }
  auto expected = stats::sorted_non_missing(x);
  const auto got = stats::sorted_values(x);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << i;
  const auto cols =
      stats::sorted_columns({std::span<const double>(x), std::span<const double>(x).first(100)});
  EXPECT_EQ(cols[0], got);
  EXPECT_EQ(cols[1], stats::sorted_non_missing(std::span<const double>(x).first(100)));
}
