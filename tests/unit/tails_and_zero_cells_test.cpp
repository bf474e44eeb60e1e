// tail_agreement and zero_cell_agreement against pandas/numpy on SD2011
// (tests/golden/general/tails_and_zero_cells/make_golden.py): train.csv as the confidential data,
// train_syn.csv as the synthetic data, and holdout.csv in its place (the holdout baseline).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

std::string sd2011(const std::string& file) {
  return (std::filesystem::path(__FILE__).parent_path() / "../data/sd2011" / file).string();
}

struct GoldenRow {
  std::string scope, statistic;
  double value;
};

std::vector<GoldenRow> golden(const std::string& comparison, const std::string& metric) {
  const auto path = std::filesystem::path(__FILE__).parent_path() /
                    "../golden/general/tails_and_zero_cells/golden.tsv";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<GoldenRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string c, m, scope, statistic, value;
    std::getline(fields, c, '\t');
    std::getline(fields, m, '\t');
    std::getline(fields, scope, '\t');
    std::getline(fields, statistic, '\t');
    std::getline(fields, value, '\t');
    if (c == comparison && m == metric) rows.push_back({scope, statistic, std::stod(value)});
  }
  return rows;
}

Tables sd2011_against(const std::string& other) {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8};
  return load_tables(sd2011("train.csv"), {sd2011(other)}, std::nullopt, settings);
}

void expect_golden(const std::string& metric, const std::string& comparison,
                   const std::string& other, std::size_t expected_rows) {
  const auto r = run_metric(metric, sd2011_against(other));
  const auto rows = golden(comparison, metric);
  ASSERT_EQ(rows.size(), expected_rows);
  for (const auto& row : rows)
    EXPECT_NEAR(value_of(r, row.statistic, row.scope), row.value,
                1e-12 * std::max(1.0, std::abs(row.value)))
        << comparison << " " << row.scope << " " << row.statistic;
  EXPECT_EQ(r.values.size(), expected_rows);  // nothing beyond what the reference computes
}

}  // namespace

// 2 numeric columns × 4 tails × 6 statistics + the mean.
TEST(TailAgreement, MatchesPandasOnSd2011) {
  expect_golden("tail_agreement", "synthetic", "train_syn.csv", 2 * 4 * 6 + 1);
}

TEST(TailAgreement, HoldoutInPlaceOfTheSyntheticDataMatchesPandas) {
  expect_golden("tail_agreement", "holdout", "holdout.csv", 2 * 4 * 6 + 1);
}

// 5 categorical columns: 10 pairs × 7 statistics + 3 summaries.
TEST(ZeroCellAgreement, MatchesPandasOnSd2011) {
  expect_golden("zero_cell_agreement", "synthetic", "train_syn.csv", 10 * 7 + 3);
}

TEST(ZeroCellAgreement, HoldoutInPlaceOfTheSyntheticDataMatchesPandas) {
  expect_golden("zero_cell_agreement", "holdout", "holdout.csv", 10 * 7 + 3);
}

// A copy of the confidential data agrees everywhere: share ratios 1, no disagreeing cell.
TEST(TailAgreement, CopyOfTheDataHasTheSameTails) {
  const auto r = run_metric("tail_agreement", sd2011_against("train.csv"));
  EXPECT_DOUBLE_EQ(value_of(r, "mean_abs_tail_share_difference", "all"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(r, "share_ratio_top_1pct", "income"), 1.0);
  const auto z = run_metric("zero_cell_agreement", sd2011_against("train.csv"));
  EXPECT_DOUBLE_EQ(value_of(z, "mean_zero_cell_agreement", "all"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(z, "total_cells_empty_only_in_synthetic", "all"), 0.0);
}

// A numeric column with no values in the synthetic data is reported, not divided by zero.
TEST(TailAgreement, ColumnWithoutValuesIsSkippedWithAWarning) {
  const auto t = make_tables("x,g\n1,a\n2,b\n3,a\n4,b\n", {"x,g\nNA,a\nNA,b\n"});
  const auto r = run_metric("tail_agreement", t);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.front().find("'x'"), std::string::npos);
}

TEST(ZeroCellAgreement, NeedsTwoCategoricalColumns) {
  const auto t = make_tables("x,g\n1,a\n2,b\n", {"x,g\n1,a\n2,b\n"});
  EXPECT_THROW(run_metric("zero_cell_agreement", t), MetricNotApplicable);
}
