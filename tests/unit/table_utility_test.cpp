#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "stats/contingency.hpp"
#include "test_support.hpp"

using namespace synthaudit;
using namespace synthaudit::testing;

namespace {

struct RefRow {
  std::string scope, statistic;
  double value;
};

std::vector<RefRow> read_reference(const std::string& path, const std::string& metric) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<RefRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string m, scope, statistic, value;
    std::getline(fields, m, '\t');
    std::getline(fields, scope, '\t');
    std::getline(fields, statistic, '\t');
    std::getline(fields, value, '\t');
    if (m == metric) rows.push_back({scope, statistic, std::stod(value)});
  }
  return rows;
}

}  // namespace

// synthpop 1.9-3 utility.tab on SD2011 (orig vs syn) with cont.na = list(income = -8), every
// one-way and two-way table, ngroups = 5: all 28 tables x 19 statistics of
// ../shared/data/sd2011/ref_synthpop_orig_vs_syn.tsv. The file prints 15 significant digits;
// tolerance relative 1e-9 with an absolute floor of 1e-9 (PO50 is a difference of percentages,
// printed as 0.149999999999991 for 0.15).
TEST(TableUtility, ReproducesSynthpopUtilityTabOnSd2011) {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8};
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                             std::nullopt, settings);
  const auto r = run_metric("table_utility", t);
  const auto ref =
      read_reference(shared_data("sd2011/ref_synthpop_orig_vs_syn.tsv"), "utility.tab");
  ASSERT_EQ(ref.size(), 28u * 19u);
  for (const auto& row : ref) {
    std::string statistic = row.statistic;
    if (statistic == "VW") statistic = "VW_synthpop";
    if (statistic == "JSD") statistic = "JSD_log2";
    const double got = value_of(r, statistic, row.scope);
    const double tol = std::max(1e-9, 1e-9 * std::abs(row.value));
    EXPECT_NEAR(got, row.value, tol) << row.scope << " " << row.statistic;
  }
}

// synthpop's utility.tables(tables = "threeway") on SD2011 (orig vs syn, ngroups = 5, income's
// -8 a missing code): the 19 statistics of all 35 triples and var.scores, from the independent
// transcription tests/golden/general/table_utility/make_threeway_golden.py (which first checks
// itself against synthpop's printed one-way and two-way values). Relative 1e-9, absolute floor
// 1e-9.
TEST(TableUtility, ThreeWayTablesMatchSynthpopDefinitionsOnSd2011) {
  ReadSettings settings;
  settings.missing_codes["income"] = {-8};
  const auto t = load_tables(shared_data("sd2011/orig.csv"), {shared_data("sd2011/syn.csv")},
                             std::nullopt, settings);
  const auto r = run_metric("table_utility", t, {{"max_way", 3}});
  const std::string golden = (std::filesystem::path(__FILE__).parent_path() /
                              "../golden/general/table_utility/threeway_golden.tsv")
                                 .string();
  std::ifstream in(golden);
  ASSERT_TRUE(in.good()) << golden;
  std::string line;
  std::size_t compared = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string scope, statistic, value;
    std::getline(fields, scope, '\t');
    std::getline(fields, statistic, '\t');
    std::getline(fields, value, '\t');
    if (statistic == "VW") statistic = "VW_synthpop";
    if (statistic == "JSD") statistic = "JSD_log2";
    if (statistic == "variable_score") statistic = "variable_mean_S_pMSE";
    const double expected = std::stod(value);
    const double got = value_of(r, statistic, scope);
    EXPECT_NEAR(got, expected, std::max(1e-9, 1e-9 * std::abs(expected)))
        << scope << " " << statistic;
    ++compared;
  }
  EXPECT_EQ(compared, 35u * 19u + 7u);
  // The three-way heatmap pairs the other columns with the column of the highest score.
  const auto& plots = r.details.at("plots");
  ASSERT_EQ(plots.size(), 2u);
  EXPECT_NE(plots[1]["title"].get<std::string>().find("together with"), std::string::npos);
  EXPECT_EQ(plots[1]["data"].size(), 2u * 15u);  // 6 other columns: 15 pairs, both triangles
}
