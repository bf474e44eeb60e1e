// The shared primitives of src/stats (quantiles, binning, ROC/AUC, level counts, categorical
// coding, column lookup) against independent references: exact rational arithmetic, brute-force
// definitions, and values from the reference packages' own formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/random.hpp"
#include "stats/binning.hpp"
#include "stats/coded_column.hpp"
#include "stats/column_lookup.hpp"
#include "stats/level_counts.hpp"
#include "stats/quantile.hpp"
#include "stats/roc.hpp"

using namespace synthaudit;

namespace {

Column categorical(const std::string& name, std::shared_ptr<Dictionary> dictionary,
                   const std::vector<const char*>& values) {
  Column c;
  c.name = name;
  c.kind = ColumnKind::kCategorical;
  c.dictionary = std::move(dictionary);
  for (const char* v : values) c.codes.push_back(v ? c.dictionary->intern(v) : kMissingCode);
  return c;
}

}  // namespace

// x = (0.1, 0.7, 2.3, 3.3, 10.1): R's `(1 − h)·a + h·b` and numpy's `_lerp` round differently.
// Expected values: R 4.x quantile(x, p, type = 7) and numpy 1.26 numpy.quantile(x, p) by their
// source formulas evaluated in IEEE double (transcribed in Python; the packages are not installed
// on the build machine), so each arithmetic is checked to the bit.
TEST(Quantile, Type7MatchesRAndNumpyToTheBit) {
  const std::vector<double> x = {0.1, 0.7, 2.3, 3.3, 10.1};
  using stats::QuantileArithmetic;
  EXPECT_EQ(stats::quantile_type7(x, 0.1, QuantileArithmetic::kR), 0.3399999999999999);
  EXPECT_EQ(stats::quantile_type7(x, 0.3, QuantileArithmetic::kR), 1.0200000000000002);
  EXPECT_EQ(stats::quantile_type7(x, 0.9, QuantileArithmetic::kR), 7.379999999999997);
  EXPECT_EQ(stats::quantile_type7(x, 0.1, QuantileArithmetic::kNumpy), 0.33999999999999997);
  EXPECT_EQ(stats::quantile_type7(x, 0.3, QuantileArithmetic::kNumpy), 1.0199999999999998);
  EXPECT_EQ(stats::quantile_type7(x, 0.9, QuantileArithmetic::kNumpy), 7.380000000000001);
  for (auto arithmetic : {QuantileArithmetic::kR, QuantileArithmetic::kNumpy}) {
    EXPECT_EQ(stats::quantile_type7(x, 0.0, arithmetic), 0.1);
    EXPECT_EQ(stats::quantile_type7(x, 0.5, arithmetic), 2.3);
    EXPECT_EQ(stats::quantile_type7(x, 1.0, arithmetic), 10.1);
    EXPECT_TRUE(std::isnan(stats::quantile_type7(std::vector<double>{}, 0.5, arithmetic)));
    EXPECT_EQ(stats::quantile_type7(std::vector<double>{4.0}, 0.3, arithmetic), 4.0);
  }
}

// The definition (Hyndman & Fan 1996, type 7) with the order statistics found by integer
// arithmetic: for p = k/40, (n − 1)p = j + r/40 with integers j, r, and the quantile is
// x[j] + (r/40)(x[j+1] − x[j]). Both arithmetics within 1e-12 of it (integer data below 25); the
// selection routine equals the sorted one to the bit.
TEST(Quantile, Type7MatchesDefinitionAndSelectionMatchesSorted) {
  Rng rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t n = 1 + rng.next() % 60;
    std::vector<double> x(n);
    for (auto& v : x) v = static_cast<double>(rng.next() % 25);
    std::vector<double> sorted = x;
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> probs;
    for (int k = 0; k <= 40; ++k) probs.push_back(k / 40.0);
    for (auto arithmetic : {stats::QuantileArithmetic::kR, stats::QuantileArithmetic::kNumpy}) {
      std::vector<double> scratch = x;
      const auto selected = stats::quantiles_type7(scratch, probs, arithmetic);
      for (std::size_t i = 0; i < probs.size(); ++i) {
        const std::size_t k = i, whole = (n - 1) * k;
        const std::size_t lo = whole / 40, hi = std::min(lo + 1, n - 1);
        const double h = static_cast<double>(whole % 40) / 40.0;
        const double exact = sorted[lo] + h * (sorted[hi] - sorted[lo]);
        const double q = stats::quantile_type7(sorted, probs[i], arithmetic);
        EXPECT_NEAR(q, exact, 1e-12) << "n " << n << " p " << probs[i];
        EXPECT_EQ(selected[i], q) << "n " << n << " p " << probs[i];
      }
    }
  }
}

// numpy.histogram_bin_edges([0, 1, 2, 10], 4) = [0, 2.5, 5, 7.5, 10]; a constant column gets the
// range (v − 0.5, v + 0.5). R: quantile(c(1,1,1,1,2,3,4,5,5,5), seq(0, 1, 0.2)) =
// 1 1 1.6 3.4 5 5, unique() 1 1.6 3.4 5.
TEST(Binning, EdgesMatchNumpyAndR) {
  EXPECT_EQ(stats::equal_width_edges(std::vector<double>{10, 0, 2, 1}, 4),
            (std::vector<double>{0, 2.5, 5, 7.5, 10}));
  EXPECT_EQ(stats::equal_width_edges(std::vector<double>{3, 3}, 2),
            (std::vector<double>{2.5, 3, 3.5}));
  EXPECT_TRUE(stats::equal_width_edges(std::vector<double>{}, 3).empty());
  std::vector<double> v = {5, 1, 4, 1, 2, 5, 1, 3, 1, 5};
  const auto breaks = stats::quantile_breaks(v, 5);
  ASSERT_EQ(breaks.size(), 4u);
  EXPECT_EQ(breaks[0], 1.0);
  EXPECT_NEAR(breaks[1], 1.6, 1e-15);
  EXPECT_NEAR(breaks[2], 3.4, 1e-15);
  EXPECT_EQ(breaks[3], 5.0);
  EXPECT_EQ(stats::interior(breaks).size(), 2u);
  EXPECT_TRUE(stats::interior(std::vector<double>{1, 2}).empty());
}

// Cuts 1, 2, 3: R's cut(x, c(-Inf, 1, 2, 3, Inf), right = FALSE) puts 2 in [2, 3) (index 2), and
// pandas.cut / R's cut(right = TRUE) put 2 in (1, 2] (index 1); values beyond the outer cuts go
// to the open outer intervals.
TEST(Binning, IntervalIndexLeftAndRightClosed) {
  const std::vector<double> cuts = {1, 2, 3};
  using stats::IntervalClosure;
  const double values[] = {-5, 1, 1.5, 2, 3, 9};
  const std::uint32_t left[] = {0, 1, 1, 2, 3, 3};
  const std::uint32_t right[] = {0, 0, 1, 1, 2, 3};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(stats::interval_index(values[i], cuts, IntervalClosure::kLeft), left[i]) << values[i];
    EXPECT_EQ(stats::interval_index(values[i], cuts, IntervalClosure::kRight), right[i])
        << values[i];
  }
  EXPECT_EQ(stats::interval_index(7, std::vector<double>{}, IntervalClosure::kLeft), 0u);
}

// sklearn.metrics.roc_curve / roc_auc_score documentation example: y = (0, 0, 1, 1),
// scores (0.1, 0.4, 0.35, 0.8): fpr (0, 0, 0.5, 0.5, 1), tpr (0, 0.5, 0.5, 1, 1),
// thresholds (inf, 0.8, 0.4, 0.35, 0.1), AUC 0.75.
TEST(Roc, MatchesSklearnExample) {
  const std::vector<double> scores = {0.1, 0.4, 0.35, 0.8};
  const std::vector<std::uint8_t> positive = {0, 0, 1, 1};
  EXPECT_EQ(stats::roc_auc(scores, positive), 0.75);
  const auto roc = stats::roc_curve(scores, positive);
  const double fpr[] = {0, 0, 0.5, 0.5, 1}, tpr[] = {0, 0.5, 0.5, 1, 1};
  const double threshold[] = {std::numeric_limits<double>::infinity(), 0.8, 0.4, 0.35, 0.1};
  ASSERT_EQ(roc.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(roc[i].fpr, fpr[i]);
    EXPECT_EQ(roc[i].tpr, tpr[i]);
    EXPECT_EQ(roc[i].threshold, threshold[i]);
  }
  EXPECT_TRUE(std::isnan(stats::roc_auc(scores, std::vector<std::uint8_t>{1, 1, 1, 1})));
  EXPECT_TRUE(stats::roc_curve(scores, std::vector<std::uint8_t>{0, 0, 0, 0}).empty());
}

// U by its definition over all (positive, negative) pairs, ties ½ (scipy.stats.mannwhitneyu's U of
// the first sample), on scores with many ties; the AUC is U/(n₀n₁) exactly, and the trapezoid area
// under the curve (sklearn's roc_auc_score) equals it to 1e-12; thinning keeps both ends.
TEST(Roc, UAndAucMatchPairCountingWithTies) {
  Rng rng(11);
  std::vector<double> scores(700);
  std::vector<std::uint8_t> positive(700);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    positive[i] = rng.next() % 3 == 0;
    scores[i] = static_cast<double>(rng.next() % 40 + (positive[i] ? 6 : 0)) / 40.0;
  }
  double u = 0;
  std::size_t n0 = 0, n1 = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    (positive[i] ? n1 : n0)++;
    if (!positive[i]) continue;
    for (std::size_t j = 0; j < scores.size(); ++j)
      if (!positive[j]) u += scores[i] > scores[j] ? 1.0 : scores[i] == scores[j] ? 0.5 : 0.0;
  }
  EXPECT_EQ(stats::mann_whitney_u(stats::score_runs(scores, positive)), u);
  const double auc = stats::roc_auc(scores, positive);
  EXPECT_EQ(auc, u / (static_cast<double>(n0) * static_cast<double>(n1)));
  const auto roc = stats::roc_curve(scores, positive);
  double area = 0;
  for (std::size_t i = 1; i < roc.size(); ++i)
    area += (roc[i].fpr - roc[i - 1].fpr) * (roc[i].tpr + roc[i - 1].tpr) / 2;
  EXPECT_NEAR(area, auc, 1e-12);
  const auto thin = stats::roc_curve(scores, positive, 10);
  ASSERT_EQ(thin.size(), 10u);
  EXPECT_EQ(thin.front().fpr, 0.0);
  EXPECT_EQ(thin.back().fpr, 1.0);
  EXPECT_EQ(thin.back().tpr, 1.0);
}

// Counts by hand; R's table(factor(x, levels), useNA = "always") gives the same numbers.
TEST(LevelCounts, CountsEachLevelThenMissing) {
  auto dictionary = std::make_shared<Dictionary>();
  const Column c = categorical("x", dictionary, {"b", "a", nullptr, "b", "b", nullptr});
  dictionary->intern("c");  // a level no row has
  EXPECT_EQ(stats::level_counts(c), (std::vector<std::size_t>{3, 1, 0, 2}));
}

// Levels follow the shared dictionary in every table; the missing level exists always or only when
// a table has a missing value.
TEST(CodedColumn, CategoricalCodingSharesTheDictionary) {
  auto dictionary = std::make_shared<Dictionary>();
  const Column a = categorical("x", dictionary, {"u", "v", "u"});
  const Column b = categorical("x", dictionary, {"v", nullptr});
  const auto both = stats::code_categorical({&a, &b}, "NA", false);
  EXPECT_EQ(both.labels, (std::vector<std::string>{"u", "v", "NA"}));
  EXPECT_EQ(both.missing_level, 2u);
  EXPECT_EQ(both.codes[0], (std::vector<std::uint32_t>{0, 1, 0}));
  EXPECT_EQ(both.codes[1], (std::vector<std::uint32_t>{1, 2}));
  const auto first_only = stats::code_categorical({&a}, "Missing", false);
  EXPECT_EQ(first_only.levels(), 2u);
  EXPECT_EQ(first_only.missing_level, stats::kNoLevel);
  EXPECT_EQ(stats::code_categorical({&a}, "NA", true).levels(), 3u);
}

TEST(ColumnLookup, IndicesInOrderAndOneLineErrorWithHint) {
  auto dictionary = std::make_shared<Dictionary>();
  std::vector<Column> columns = {categorical("age", dictionary, {"1"}),
                                 categorical("income", dictionary, {"2"})};
  const Table table({"conf.csv", "", "confidential"}, std::move(columns));
  EXPECT_EQ(stats::resolve_columns(table, {"income", "age"}, "parameter columns"),
            (std::vector<std::size_t>{1, 0}));
  try {
    stats::resolve_column(table, "incme", "parameter columns");
    FAIL() << "no error for an unknown column";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "parameter columns: no column 'incme' (did you mean 'income'?)");
  }
}
