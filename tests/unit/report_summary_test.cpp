// The executive summary: plain-notation numbers, the terminal summary and the Markdown report's
// opening, on the report fixture (tests/data/report/make_fixture.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "report/report.hpp"
#include "report/summary.hpp"

using namespace synthaudit;
using json = nlohmann::json;

namespace {

json load_fixture() {
  std::ifstream in(std::string(SYNTHAUDIT_TEST_DATA) + "/report/results_fixture.json");
  return json::parse(in);
}

const OutputPaths kPaths{"out/results.json", "out/results.tsv", "out/report.html"};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(PlainNumber, FourSignificantDigitsWithoutExponents) {
  EXPECT_EQ(plain_number(16384), "16,384");  // a count in full
  EXPECT_EQ(plain_number(16384.5), "16,380");
  EXPECT_EQ(plain_number(-1234567), "-1,234,567");
  EXPECT_EQ(plain_number(0.003313), "0.003313");
  EXPECT_EQ(plain_number(0.123456), "0.1235");
  EXPECT_EQ(plain_number(1.5), "1.5");
  EXPECT_EQ(plain_number(999.96), "1000");
  EXPECT_EQ(plain_number(0), "0");
  EXPECT_EQ(plain_number(std::nan("")), "NA");
  EXPECT_EQ(plain_number(2.5e-9), "2.5e-09");  // below a millionth zeros would read as 0
}

TEST(PlainNumber, SharesArePercentages) {
  EXPECT_EQ(value_in_unit(0.481, "share"), "48.1 %");
  EXPECT_EQ(value_in_unit(0.0031, "share"), "0.31 %");
  EXPECT_EQ(value_in_unit(15.77, "percent"), "15.77 %");
  EXPECT_EQ(value_in_unit(0.481, "number"), "0.481");
  EXPECT_EQ(value_in_unit(0.481, ""), "0.481");
}

TEST(TerminalSummary, VerdictReasonsHeadlinesWarningsAndPaths) {
  const std::string text = render_summary(load_fixture(), kPaths);
  EXPECT_TRUE(contains(text, "Verdict (default policy): recommended alpha\n")) << text;
  EXPECT_TRUE(contains(text,
                       "  gamma  FAIL    21 % of records are at risk; a fresh real sample "
                       "(the holdout) has 2.1 %.\n"))
      << text;
  EXPECT_TRUE(contains(text, "  beta   REVIEW  The pMSE ratio is 5.2")) << text;
  // The engine's warning about unknown levels becomes one line under the candidate.
  EXPECT_TRUE(contains(text,
                       "5 synthetic level(s) not in the confidential data (occupation: OC1, "
                       "OC2, OC3, …)"))
      << text;
  // Risk headlines come first; a share is a percentage; the ideal is in words.
  EXPECT_LT(text.find("  Risk\n"), text.find("  Utility\n"));
  EXPECT_TRUE(contains(text, "share_at_risk")) << text;
  EXPECT_TRUE(contains(text, "2.625 %  1.05 %      21 %  holdout 2.1 %     lower\n")) << text;
  EXPECT_TRUE(contains(text, "resample 0.01685")) << text;
  EXPECT_TRUE(contains(text, "analytic 1 ")) << text;
  EXPECT_TRUE(contains(text, "near 1 (ratio)\n")) << text;
  EXPECT_TRUE(contains(text, "3 warning(s) (2 about the data, 1 from metrics)")) << text;
  EXPECT_TRUE(contains(text, "Report:  out/report.html\n")) << text;
  EXPECT_TRUE(contains(text, "synthaudit report out/results.json --format md\n")) << text;
  EXPECT_FALSE(contains(text, "e+")) << text;
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 40);
}

TEST(TerminalSummary, OlderDocumentsWithoutVerdictShowRanks) {
  json doc = load_fixture();
  doc.erase("verdict");
  doc.erase("baselines");
  for (auto& metric : doc["metrics"])
    for (auto& h : metric["headlines"]) h.erase("unit");
  const std::string text = render_summary(doc, kPaths);
  EXPECT_TRUE(contains(text, "No verdict in these results")) << text;
  EXPECT_TRUE(contains(text, "utility rank 1, risk rank 3")) << text;  // gamma
  EXPECT_TRUE(contains(text, "0.02625")) << text;  // no declared unit: a plain number
}

TEST(TerminalSummary, RepeatedStatisticsNameTheirMetric) {
  json doc = load_fixture();
  // A second metric with the same headline statistic as the first.
  json copy = doc["metrics"][0];
  copy["name"] = "fixture_marginal_gap_again";
  doc["metrics"].push_back(copy);
  const ExecutiveView view = executive_view(doc);
  std::vector<std::string> labels;
  for (const auto& h : view.headlines) labels.push_back(h.label);
  EXPECT_NE(std::find(labels.begin(), labels.end(), "mean_gap (fixture_marginal_gap)"),
            labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "mean_gap (fixture_marginal_gap_again)"),
            labels.end());
}

TEST(MarkdownReport, OpensOnTheExecutiveSummary) {
  const std::string md = render_markdown(load_fixture());
  const auto verdict = md.find("## Verdict");
  const auto headlines = md.find("## Headlines");
  const auto details = md.find("# Details");
  ASSERT_NE(verdict, std::string::npos) << md;
  EXPECT_LT(verdict, headlines);
  EXPECT_LT(headlines, details);
  EXPECT_TRUE(contains(md, "**Recommended: alpha** (policy: default)")) << md;
  EXPECT_TRUE(contains(md, "- **gamma**: **fail**\n  - 21 % of records are at risk;")) << md;
  EXPECT_TRUE(contains(md,
                       "| risk | fixture_attribute_risk | share_at_risk | lower | 2.625 % | "
                       "1.05 % | 21 % |"))
      << md;
  EXPECT_TRUE(contains(md, "| gamma | record-risk | 21 % | 2.1 % | 3.1 % | **fail** |")) << md;
  EXPECT_TRUE(contains(md, "- holdout: 500 real records")) << md;
}
